"""The header of the app following a gateway (``tui --follow EVENTS``) tells whether the
gateway runs: "following ..." while it does, "followed (stopped) ..." once it stopped, and
"following" again when a gateway writes the file again.

A real gateway runs in the test, in its own task, in front of real stdio MCP servers
written with the mcp SDK (the ones of :func:`tui_helpers.servers_config`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import anyio
import pytest
from textual.widgets._header import HeaderTitle
from tui_helpers import servers_config, wait_for

from toolsearch.gateway.events import EventLog
from toolsearch.gateway.server import Gateway
from tui.follow import FollowApp

pytestmark = pytest.mark.live


async def _run(gateway: Gateway, ready: anyio.Event, stop: anyio.Event) -> None:
    async with gateway.running():
        ready.set()
        await stop.wait()


def _start(config: Path, events: Path) -> tuple[EventLog, anyio.Event, anyio.Event,
                                                 asyncio.Task[None]]:
    log = EventLog(events)
    gateway = Gateway([str(config)], events=log, startup_grace=30, connect_timeout=60)
    ready, stop = anyio.Event(), anyio.Event()
    return log, ready, stop, asyncio.create_task(_run(gateway, ready, stop))


def _header(app: FollowApp) -> str:
    """The header line as drawn on the screen."""
    title = app.query_one(HeaderTitle)
    return "".join(segment.text for segment in title.render_line(0))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_header_says_followed_and_stopped_once_the_gateway_stops(
        tmp_path: Path, size: tuple[int, int]) -> None:
    config, gate = servers_config(tmp_path)
    gate.touch()
    events = tmp_path / "events.jsonl"
    log, ready, stop, task = _start(config, events)
    try:
        with anyio.fail_after(40):
            await ready.wait()
        app = FollowApp(events)
        async with app.run_test(size=size) as pilot:
            await wait_for(pilot, lambda: " \u00b7 following " in app.sub_title)
            assert "stopped" not in app.sub_title

            stop.set()
            await task
            log.close()
            await wait_for(pilot, lambda: "stopped" in app.sub_title, seconds=10)
            assert " \u00b7 following " not in app.sub_title  # it said "following" still
            assert " \u00b7 followed (stopped) " in app.sub_title
            assert "nothing writes its events file" in app.sub_title  # the why stays
            await pilot.pause(0.2)
            assert "followed (stopped)" in _header(app)  # on screen, at 80 columns too

            log, ready, stop, task = _start(config, events)  # up again on the same file
            await wait_for(pilot, lambda: " \u00b7 following " in app.sub_title
                           and "stopped" not in app.sub_title, seconds=20)
    finally:
        stop.set()
        await task
        log.close()
