"""A server the gateway is still starting reads "◌ starting" on the Servers tab of the app
following (or hosting) the gateway, not an error row: then the normal row once it is up, or
the error row when it failed.

A real gateway runs in the test (its own events file and catalog snapshot, written by its
own writers), in front of real stdio MCP servers held at their start by a gate file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tui_helpers import servers_config, status, wait_for

from toolsearch.gateway.events import EventLog, last_record
from toolsearch.gateway.server import Gateway, listen_socket
from tui.app import ToolSearchApp
from tui.follow import FollowApp, ServeApp
from tui.widgets.bigtable import BigTable

pytestmark = pytest.mark.live

UP = "\u25cf connected"
"""A server the gateway has up (the app following it too: the gateway says so, though the
app loads the gateway's catalog snapshot)."""


async def starting_then_up_or_failed(app: ToolSearchApp, pilot: Any, gate: Path) -> None:
    await wait_for(pilot, lambda: status(app, "up") == UP
                   and status(app, "sleepy") == "\u25cc starting"
                   and status(app, "broken") == "\u25cc starting")
    table = app.query_one("#servers-table", BigTable)
    cell = table.get_cell("sleepy", "status")
    assert [span.style for span in cell.spans] == ["$warning"]  # the theme's warning colour
    assert "error" not in table.get_cell("sleepy", "note").plain
    gate.touch()
    await wait_for(pilot, lambda: status(app, "sleepy") == UP
                   and status(app, "broken") == "\u2716 error")
    assert "refused to start" in table.get_cell("broken", "note").plain
    assert getattr(app, "starting", None) == frozenset()


async def test_follow_shows_a_starting_server_until_it_is_up_or_failed(tmp_path: Path
                                                                       ) -> None:
    config, gate = servers_config(tmp_path)
    events = tmp_path / "events.jsonl"
    log = EventLog(events)
    gateway = Gateway([str(config)], events=log, startup_grace=0.5, connect_timeout=60)
    try:
        async with gateway.running():
            record = last_record(events, "assembly")
            assert record is not None and {"broken", "sleepy"} <= set(record["starting"])
            app = FollowApp(events)
            async with app.run_test(size=(120, 40)) as pilot:
                await starting_then_up_or_failed(app, pilot, gate)
    finally:
        gate.touch()
        log.close()


async def test_serve_shows_a_starting_server_until_it_is_up_or_failed(tmp_path: Path
                                                                      ) -> None:
    config, gate = servers_config(tmp_path)
    sock = listen_socket("127.0.0.1", 0)
    app = ServeApp([str(config)], host="127.0.0.1", port=sock.getsockname()[1],
                   events=tmp_path / "events.jsonl", sock=sock)
    app.gateway.startup_grace = 0.5
    app.gateway.connect_timeout = 60
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await starting_then_up_or_failed(app, pilot, gate)
    finally:
        gate.touch()
