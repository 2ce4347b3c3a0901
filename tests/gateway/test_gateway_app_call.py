"""Issue #12: in the app hosting the gateway, a call made by hand (Ctrl+T) shows the same
formatted summary in the feed as the gateway's client calls and the app's live calls
(``result: {"result": 42}``), never the raw reply object."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from gateway_helpers import free_port, text_of, upstream_entry, write_config
from mcp import Client

from tui.follow import ServeApp
from tui.screens.call import CallScreen

pytestmark = pytest.mark.live


async def wait_for(pilot: Any, predicate: Any, seconds: float = 30.0) -> None:
    with anyio.fail_after(seconds):
        while not predicate():
            await pilot.pause(0.1)


async def test_call_by_hand_shows_the_formatted_result(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    port = free_port()
    app = ServeApp([str(config)], host="127.0.0.1", port=port, events=tmp_path / "e.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.serving != "")
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, CallScreen))
        screen = app.screen
        assert isinstance(screen, CallScreen)
        screen.fill("tool_call", "mcp__up__add", '{"a": 20, "b": 22}')
        screen.action_send()
        await wait_for(pilot, lambda: screen.last_reply is not None
                       and any(e.event.tool == "mcp__up__add" for e in app.activity))
        by_hand = app.activity[-1]
        assert by_hand.event.outcome == "ok"
        assert by_hand.note == 'result: {"result": 42}'  # was the reply object's repr
        await pilot.press("escape")

        async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy", cache=None,
                          client_info=types.Implementation(name="agent", version="1")) as c:
            assert text_of(await c.call_tool("tool_call", {
                "name": "mcp__up__add", "arguments": {"a": 1, "b": 2}})) == "3"
        await wait_for(pilot, lambda: len(app.activity) >= 2)
        through = app.activity[-1]
        assert through.note.startswith('agent: result: {"result": 3}')
        assert "UpstreamResult" not in by_hand.note + through.note
