"""The app following a gateway (``tui --follow EVENTS``) shows the servers the gateway has up
as "● connected", and one it reports failed as the error row, though its rows come from the
gateway's catalog snapshot (which reads "○ snapshot"); once the gateway stops, the header
says so and no row claims a connection any more.

A real gateway runs in the test, in its own task (its own events file and catalog snapshot,
written by its own writers), in front of real stdio MCP servers written with the mcp SDK."""

from __future__ import annotations

import asyncio
from pathlib import Path

import anyio
import pytest
from tui_helpers import panes_mounted, servers_config, status, wait_for

from toolsearch.gateway.events import EventLog, last_record
from toolsearch.gateway.server import Gateway
from tui.follow import FollowApp, reported_of
from tui.widgets.bigtable import BigTable

pytestmark = pytest.mark.live

CONNECTED = "\u25cf connected"
SNAPSHOT = "\u25cb snapshot"
ERROR = "\u2716 error"


async def run_gateway(gateway: Gateway, ready: anyio.Event, stop: anyio.Event) -> None:
    async with gateway.running():
        ready.set()
        await stop.wait()


async def test_follow_shows_the_gateways_own_status_until_it_stops(tmp_path: Path) -> None:
    config, gate = servers_config(tmp_path)
    gate.touch()  # all three start at once: up and sleepy serve, broken exits
    events = tmp_path / "events.jsonl"
    log = EventLog(events)
    gateway = Gateway([str(config)], events=log, startup_grace=30, connect_timeout=60)
    ready, stop = anyio.Event(), anyio.Event()
    task = asyncio.create_task(run_gateway(gateway, ready, stop))
    try:
        with anyio.fail_after(40):
            await ready.wait()
        record = last_record(events, "assembly")
        assert record is not None and record["starting"] == []
        app = FollowApp(events)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: status(app, "up") == CONNECTED
                           and status(app, "sleepy") == CONNECTED
                           and status(app, "broken") == ERROR)
            table = app.query_one("#servers-table", BigTable)
            assert [s.style for s in table.get_cell("up", "status").spans] == \
                ["$status-connected"]
            assert "refused to start" in table.get_cell("broken", "note").plain
            assert "stopped" not in app.sub_title

            stop.set()  # the gateway stops: its events file is no longer held
            await task
            log.close()
            await wait_for(pilot, lambda: status(app, "up") == SNAPSHOT
                           and status(app, "sleepy") == SNAPSHOT, seconds=10)
            assert "followed (stopped)" in app.sub_title
            assert status(app, "broken") == ERROR  # as its snapshot had it

            # a gateway started again on the same file: connected again
            log = EventLog(events)
            gateway = Gateway([str(config)], events=log, startup_grace=30,
                              connect_timeout=60)
            ready, stop = anyio.Event(), anyio.Event()
            task = asyncio.create_task(run_gateway(gateway, ready, stop))
            await wait_for(pilot, lambda: status(app, "up") == CONNECTED
                           and status(app, "sleepy") == CONNECTED
                           and "stopped" not in app.sub_title)
    finally:
        stop.set()
        await task
        log.close()


async def test_follow_opened_on_a_stopped_gateway_claims_no_connection(tmp_path: Path
                                                                       ) -> None:
    config, gate = servers_config(tmp_path)
    gate.touch()
    events = tmp_path / "events.jsonl"
    log = EventLog(events)
    gateway = Gateway([str(config)], events=log, startup_grace=30, connect_timeout=60)
    try:
        async with gateway.running():
            pass
    finally:
        log.close()
    app = FollowApp(events)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: status(app, "up") != "")
        await pilot.pause(0.3)
        assert status(app, "up") == SNAPSHOT and status(app, "sleepy") == SNAPSHOT
        assert status(app, "broken") == ERROR
        await panes_mounted(pilot)  # leaving mid-mount is run_test's race, not the app's
        assert "followed (stopped)" in app.sub_title


def test_an_assembly_line_not_the_gateways_reports_only_what_it_can() -> None:
    record = {"toolsets": [
        {"name": "ok", "status": "connected", "error": None},
        {"name": "bad", "status": "error", "error": "boom\x1b[31m\nred"},
        {"name": "odd", "status": "\x1b[2Jwiped"}, {"status": "connected"}, "text", 3,
    ]}
    reported = reported_of(record)
    assert set(reported) == {"ok", "bad"}
    assert reported["ok"].status == "connected" and reported["ok"].error == ""
    assert "\x1b" not in reported["bad"].error and "\n" not in reported["bad"].error
    assert reported_of({"toolsets": "up"}) == {}
