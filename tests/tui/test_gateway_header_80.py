"""At 80 columns the header keeps the gateway's state in view: "gateway NOT serving" (``tui
--serve`` on a taken port) and "followed (stopped)" (``tui --follow`` once the gateway stops)
came after the workspace's name, tier and profile and fell off the line's end.

Real gateways in front of real stdio MCP servers (the ones of :func:`servers_config`)."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import anyio
import pytest
from textual.widgets._header import HeaderTitle
from tui_helpers import servers_config, wait_for

from toolsearch.gateway.events import EventLog
from toolsearch.gateway.server import Gateway
from tui.app import ToolSearchApp
from tui.follow import FollowApp, ServeApp

pytestmark = pytest.mark.live

LONG = "team-production-mcp-servers.json"
"""A config's name as long as real ones are (the workspace is named after it)."""


def _header(app: ToolSearchApp) -> str:
    """The header line as drawn on the screen."""
    return "".join(segment.text for segment in app.query_one(HeaderTitle).render_line(0))


def _config(tmp_path: Path) -> tuple[Path, Path]:
    config, gate = servers_config(tmp_path)
    gate.touch()
    return config.rename(tmp_path / LONG), gate


async def test_serve_on_a_taken_port_says_not_serving_at_80_columns(tmp_path: Path) -> None:
    config, _gate = _config(tmp_path)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        app = ServeApp([str(config)], host="127.0.0.1", port=int(sock.getsockname()[1]),
                       events=tmp_path / "e.jsonl")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "NOT serving" in app.sub_title, seconds=30)
            await pilot.pause(0.2)
            assert "gateway NOT serving" in _header(app), _header(app)


async def _run(gateway: Gateway, ready: anyio.Event, stop: anyio.Event) -> None:
    async with gateway.running():
        ready.set()
        await stop.wait()


async def test_follow_says_followed_stopped_at_80_columns(tmp_path: Path) -> None:
    config, _gate = _config(tmp_path)
    events = tmp_path / "events.jsonl"
    log = EventLog(events)
    gateway = Gateway([str(config)], events=log, startup_grace=30, connect_timeout=60)
    ready, stop = anyio.Event(), anyio.Event()
    task = asyncio.create_task(_run(gateway, ready, stop))
    try:
        with anyio.fail_after(40):
            await ready.wait()
        app = FollowApp(events)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: " \u00b7 following " in app.sub_title)
            await pilot.pause(0.2)
            assert "following a gateway" in _header(app), _header(app)
            stop.set()
            await task
            log.close()
            await wait_for(pilot, lambda: "stopped" in app.sub_title, seconds=10)
            await pilot.pause(0.2)
            assert "followed (stopped) a gateway" in _header(app), _header(app)
    finally:
        stop.set()
        await task
        log.close()
