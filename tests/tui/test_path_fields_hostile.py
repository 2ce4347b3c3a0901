"""The Recall path field and the Save dialog's path field show no control character: a pasted
ESC[2J reached the terminal raw (these were plain Inputs, not BoundedInputs). A path the app
sets (a file whose name holds an ESC) is still the file read."""

from __future__ import annotations

import json
import re
from pathlib import Path

from textual import events
from textual.widgets import Input, Static
from tui_helpers import FakeClock, settle

from toolsearch.toolsets import Toolset, ToolSpec, Workspace
from tui.app import ToolSearchApp
from tui.screens.save import SavePathScreen
from tui.widgets.recall import RecallPane

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
HOSTILE = "q\x1b[2J\x1b]0;title\x07\x9b\u202e.jsonl"


def _app() -> ToolSearchApp:
    tools = tuple(ToolSpec(f"wipe{i}", f"wipe the disk {i}", {"type": "object"})
                  for i in range(8))
    return ToolSearchApp(workspace=Workspace(name="paths", toolsets=(
        Toolset("fill", "mcp", tools),), context_length=200_000),
        clock=FakeClock(), wall_clock=FakeClock(step=1.0), exact=False, demo_delay=0.0)


def _unsafe_lines(app: ToolSearchApp) -> list[str]:
    return [s.text for s in app.screen._compositor.render_strips() if UNSAFE.search(s.text)]


async def test_a_pasted_escape_in_the_recall_path_is_not_shown(tmp_path: Path) -> None:
    app = _app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        field = app.query_one("#recall-path", Input)
        field.focus()
        field.value = ""
        field.post_message(events.Paste(str(tmp_path / HOSTILE)))
        await settle(pilot)
        assert "\x1b" not in field.value and field.value.endswith("q [2J ]0;title   .jsonl")
        assert _unsafe_lines(app) == []


async def test_a_recall_file_set_with_an_escape_in_its_name_is_still_read(tmp_path: Path) -> None:
    odd = tmp_path / HOSTILE
    odd.write_text(json.dumps({"query": "wipe", "gold": "mcp__fill__wipe1"}) + "\n")
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        pane = app.query_one(RecallPane)
        pane.set_path(str(odd))
        await pilot.pause()
        assert _unsafe_lines(app) == []
        await pilot.press("f5")
        await settle(pilot)
        status = str(app.query_one("#recall-status", Static).content)
        assert "queries from" in status and "\\x1b[2J" in status, status


async def test_a_pasted_escape_in_the_save_path_is_not_shown() -> None:
    app = _app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.push_screen(SavePathScreen("config.yaml"))
        await settle(pilot)
        field = app.screen.query_one("#save-path", Input)
        field.focus()
        field.post_message(events.Paste(HOSTILE))
        await settle(pilot)
        assert "\x1b" not in field.value
        assert _unsafe_lines(app) == []


async def test_the_save_refusal_shows_an_escape_in_the_path_as_text(tmp_path: Path) -> None:
    """The line under the Save field names the refused path: a path the app set (a file
    named with an ESC, kept as given) reached the terminal raw in that line."""
    from tui import services

    odd = tmp_path / HOSTILE  # no .yaml suffix: refused, the reason naming the path
    app = _app()
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        app.push_screen(SavePathScreen(str(odd), refusal=services.save_refusal))
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, SavePathScreen)  # refused: the dialog stays open
        error = str(app.screen.query_one("#save-error", Static).content)
        assert "must end in .yaml" in error and "q\\x1b[2J\\x1b]0;title\\x07" in error, error
        assert _unsafe_lines(app) == []


async def test_the_save_confirmation_shows_an_escape_in_the_path_as_text(tmp_path: Path) -> None:
    """The confirmation names the file and its backup, and shows the file's old values: a
    config loaded from a file named with an ESC (or a path the Save dialog kept as given)
    and an old value holding U+202E reached the terminal raw."""
    from tui.screens.confirm_save import ConfirmSaveScreen

    odd = str(tmp_path / "c\x1b[2J\u202e.yaml")
    lines = ["  tools:", "    tool_search:", "-     enabled: \u202eoff\x1b[5m", "+     enabled: on"]
    app = _app()
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        app.push_screen(ConfirmSaveScreen(odd, lines))
        await settle(pilot)
        head = str(app.screen.query_one("#confirm-head", Static).content)
        assert "c\\x1b[2J\\u202e.yaml" in head and "c\\x1b[2J\\u202e.yaml.bak" in head, head
        diff = str(app.screen.query_one("#confirm-diff", Static).content)
        assert "enabled: \\u202eoff\\x1b[5m" in diff, diff
        assert _unsafe_lines(app) == []
