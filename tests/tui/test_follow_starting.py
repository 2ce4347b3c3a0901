"""A server the gateway is still starting reads "◌ starting" on the Servers tab of the app
following (or hosting) the gateway, not an error row: then the normal row once it is up, or
the error row when it failed.

A real gateway runs in the test (its own events file and catalog snapshot, written by its
own writers), in front of real stdio MCP servers held at their start by a gate file."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolsearch.gateway.events import EventLog, last_record
from toolsearch.gateway.server import Gateway, listen_socket
from tui.app import ToolSearchApp
from tui.follow import FollowApp, ServeApp
from tui.widgets.bigtable import BigTable

pytestmark = pytest.mark.live

SERVERS = Path(__file__).resolve().parents[1] / "gateway" / "servers"
UPSTREAM = SERVERS / "upstream_server.py"
GATED = """\
import os, runpy, sys, time
gate, target = sys.argv[1], sys.argv[2]
while not os.path.exists(gate):  # no answer to the handshake until the test opens the gate
    time.sleep(0.05)
if target == "fail":
    sys.exit("gated server: refused to start")
sys.argv = [target, *sys.argv[3:]]
runpy.run_path(target, run_name="__main__")
"""


def servers_config(tmp_path: Path) -> tuple[Path, Path]:
    """Three stdio servers: ``up`` at once, ``sleepy`` and ``broken`` once the gate file
    exists (``sleepy`` then serves, ``broken`` exits). (config path, gate path)"""
    script = tmp_path / "gated.py"
    script.write_text(GATED)
    gate = tmp_path / "gate"

    def gated(target: str, *args: str) -> dict[str, Any]:
        return {"command": sys.executable, "args": [str(script), str(gate), target, *args]}

    servers = {
        "up": {"command": sys.executable, "args": [str(UPSTREAM), "--name", "up"]},
        "sleepy": gated(str(UPSTREAM), "--name", "sleepy"),
        "broken": gated("fail"),
    }
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    return config, gate


def status(app: ToolSearchApp, name: str) -> str:
    table = app.query_one("#servers-table", BigTable)
    return table.get_cell(name, "status").plain if table.index_of(name) is not None else ""


def statuses(app: ToolSearchApp) -> dict[str, str]:
    return {name: status(app, name) for name in ("up", "sleepy", "broken")}


async def wait_for(pilot: Any, predicate: Callable[[], bool], seconds: float = 40.0) -> None:
    try:
        with anyio.fail_after(seconds):
            while not predicate():
                await pilot.pause(0.1)
    except TimeoutError:
        raise AssertionError(f"waited {seconds} s; rows: {statuses(pilot.app)}, "
                             f"starting: {sorted(getattr(pilot.app, 'starting', ()))}") from None


async def starting_then_up_or_failed(app: ToolSearchApp, pilot: Any, gate: Path, up: str
                                     ) -> None:
    """*up*: the status of a server that is up (the app following the gateway loads the
    gateway's catalog snapshot, whose rows read "snapshot")."""
    await wait_for(pilot, lambda: status(app, "up") == up
                   and status(app, "sleepy") == "\u25cc starting"
                   and status(app, "broken") == "\u25cc starting")
    table = app.query_one("#servers-table", BigTable)
    cell = table.get_cell("sleepy", "status")
    assert [span.style for span in cell.spans] == ["$warning"]  # the theme's warning colour
    assert "error" not in table.get_cell("sleepy", "note").plain
    gate.touch()
    await wait_for(pilot, lambda: status(app, "sleepy") == up
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
                await starting_then_up_or_failed(app, pilot, gate, "\u25cb snapshot")
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
            await starting_then_up_or_failed(app, pilot, gate, "\u25cf connected")
    finally:
        gate.touch()
