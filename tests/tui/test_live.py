"""The app on a Hermes config with real stdio MCP servers: rows, errors, a real tool_call."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from tui_helpers import settle, wait_until

from toolsearch.cli import main
from tui.app import ToolSearchApp
from tui.widgets.servers import ServersPane

SERVERS = Path(__file__).resolve().parent.parent / "sources" / "servers"
pytestmark = pytest.mark.live


async def test_live_servers_load_in_a_worker_and_execute_for_real(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({
        "mcp_servers": {
            "demo": {"command": sys.executable, "args": [str(SERVERS / "demo_server.py")]},
            "broken": {"command": sys.executable, "args": [str(SERVERS / "crash_server.py")]},
        },
        "tools": {"tool_search": {"listing_max_tokens": 3000}},
    }))
    app = ToolSearchApp([str(config)], exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(60):
            await pilot.pause(0.25)
            if app.session is not None and app.session.workspace.toolsets:
                break
        await settle(pilot)
        assert app.session.config.listing_max_tokens == 3000
        table = app.query_one(ServersPane).table
        assert str(table.get_cell("demo", "status")) == "\u25cf connected"
        assert str(table.get_cell("broken", "status")) == "\u2716 error"
        assert str(table.get_cell("broken", "note"))
        assert app.save_target == str(config)
        reply = await app.dispatch("tool_call", {"name": "mcp__demo__add",
                                                 "arguments": {"a": 2, "b": 3}})
        assert reply.activity.outcome == "ok", reply.result
        assert "5" in str(reply.result)
        await settle(pilot)
        assert app.activity[-1].event.tool == "mcp__demo__add"


@pytest.mark.parametrize("command", ["tui", "demo"])
def test_timeout_on_the_command_line_reaches_the_apps_servers(tmp_path, monkeypatch, command):
    """`toolsearch tui CONFIG --timeout 1` took the option and dropped it: a server that never
    answers held the app on "Loading sources…" for the default 15 s."""
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"mcp_servers": {
        "hang": {"command": sys.executable, "args": [str(SERVERS / "hang_server.py")]}}}))
    seen: dict[str, str] = {}
    run = ToolSearchApp.run

    async def operator(pilot):
        app = pilot.app
        await wait_until(pilot, lambda: app.session is not None
                         and app.session.workspace.toolsets, "servers listed")
        seen["error"] = app.session.workspace.toolsets[0].error
        app.exit()

    def headless(self, **_):
        return run(self, headless=True, size=(100, 30), auto_pilot=operator)

    monkeypatch.setattr(ToolSearchApp, "run", headless)
    assert main([command, str(config), "--timeout", "1"]) == 0
    assert seen["error"] == "no answer within 1 s"
