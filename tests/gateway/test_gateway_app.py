"""The app and the gateway (Pilot): following a running gateway's events file, and hosting
the gateway in the app so a tuning change reaches a connected client at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from gateway_helpers import (
    start_http_gateway,
    stop,
    text_of,
    upstream_entry,
    write_config,
)
from mcp import Client
from textual.widgets import RichLog

from toolsearch.gateway.server import listen_socket
from tui.follow import FollowApp, ServeApp
from tui.widgets.bigtable import BigTable
from tui.widgets.feed import ActivityFeed

pytestmark = pytest.mark.live


def feed_text(app: Any) -> str:
    log = app.query_one(ActivityFeed).query_one(RichLog)
    return "\n".join(line.text for line in log.lines)


async def wait_for(pilot: Any, predicate: Any, seconds: float = 30.0) -> None:
    with anyio.fail_after(seconds):
        while not predicate():
            await pilot.pause(0.1)


@pytest.mark.parametrize("tuning", [["--set", "listing=off"], []], ids=["retuned", "defaults"])
async def test_app_follows_a_running_gateway(tmp_path: Path, tuning: list[str]) -> None:
    """The app shows the gateway's tuning; with the gateway on the default tuning (the
    followed state then equals the loaded one) the panes still fill: they stayed on
    "loading sources..." before."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "events.jsonl"
    proc, url = start_http_gateway([str(config)], "--events", str(events), *tuning)
    listing = "off" if tuning else "auto"
    try:
        app = FollowApp(events)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.session is not None
                           and app.session.workspace.toolsets[0].name == "up"
                           and app.session.config.listing == listing)
            await wait_for(pilot, lambda: "following" in app.sub_title, 10)
            assert app.session is not None
            assert app.session.config.listing == listing  # the gateway's tuning, not defaults
            record = [json.loads(line) for line in events.read_text().splitlines()][-1]
            assert app.session.assembly.listing_form == record["listing_form"]
            assert app.session.assembly.tier == record["tier"]
            assert app.query_one("#servers-table", BigTable).row_count == 1
            assert "loading" not in app.sub_title
            assert "following http://127.0.0.1" in app.sub_title
            async with Client(url, mode="legacy", cache=None,
                              client_info=types.Implementation(name="followed", version="1")
                              ) as c:
                await c.call_tool("tool_call", {"name": "mcp__up__add", "arguments": {}})
                await c.call_tool("tool_call", {"name": "mcp__up__add",
                                                "arguments": {"a": 1, "b": 2}})
            await pilot.press("5")
            await wait_for(pilot, lambda: app.query_one(ActivityFeed).lines_written >= 2)
            text = feed_text(app)
            assert "tool_call \u2192 mcp__up__add" in text
            assert "missing args" in text and "\u2714 ok" in text
            assert "followed" in text
    finally:
        stop(proc)


async def test_app_hosts_the_gateway_and_retunes_the_client(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    sock = listen_socket("127.0.0.1", 0)  # as `tui --serve` binds it before the app opens
    port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    app = ServeApp([str(config)], host="127.0.0.1", port=port, events=tmp_path / "e.jsonl",
                   sock=sock)
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.serving != "")
        await pilot.pause(0.5)
        async with Client(url, mode="legacy", cache=None, message_handler=on_message) as c:
            before = {t.name: t for t in (await c.list_tools()).tools}
            assert set(before) == {"tool_search", "tool_describe", "tool_call"}
            reply = await c.call_tool("tool_call", {"name": "mcp__up__add",
                                                    "arguments": {"a": 20, "b": 22}})
            assert text_of(reply) == "42"
            await wait_for(pilot, lambda: "1 client(s)" in app.sub_title)
            assert f"serving on {url}" in app.sub_title
            await pilot.press("5")
            await wait_for(pilot, lambda: app.query_one(ActivityFeed).lines_written >= 1)
            assert "mcp__up__add" in feed_text(app)
            assert app.session is not None
            app.session = app.session.with_config(listing="off")  # what Tuning does
            await wait_for(pilot, changed.is_set)
            after = {t.name: t for t in (await c.list_tools()).tools}
            assert after["tool_search"].description != before["tool_search"].description
            described = json.loads(text_of(await c.call_tool(
                "tool_describe", {"name": "mcp__up__add"})))
            assert described["parameters"]["required"] == ["a", "b"]
        # every assembly line names where it serves, the first one too (it said "")
        records = [json.loads(line) for line in (tmp_path / "e.jsonl").read_text().splitlines()]
        served = [r["serving"] for r in records if r["type"] == "assembly"]
        assert len(served) >= 2 and set(served) == {url}, served
