"""Hostile text in the panes the first sweep did not reach: a query file's queries (Recall's
misses) and a catalog's texts hold terminal escapes, C1 controls, bidi overrides and Rich
markup look-alikes; each pane shows them as text, at 80x24 and 120x40."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Input, Static, TextArea
from tui_helpers import FakeClock, active_tab, settle

from toolsearch.toolsets import Toolset, ToolSpec, Workspace
from tui.app import ToolSearchApp
from tui.screens.call import CallScreen
from tui.widgets.recall import RecallPane

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
HOSTILE = ("\x1b[5mB\x1b]0;title\x07\x1b[2J\x9bC\u202eR\u200bZ"
           "[bold red]RED[/bold red][link=https://example.com]LNK[/link]")
SIZES = [(80, 24), (120, 40)]


def _workspace() -> Workspace:
    fill = tuple(ToolSpec(f"wipe{i}", f"wipe the disk {i}", {"type": "object"})
                 for i in range(8))
    return Workspace(name="hostile", toolsets=(
        Toolset("fill", "mcp", fill),
        Toolset("gone", "mcp", (ToolSpec("zzz", "", {"type": "object"}),)),
    ), context_length=200_000)


def _app() -> ToolSearchApp:
    return ToolSearchApp(workspace=_workspace(), clock=FakeClock(),
                         wall_clock=FakeClock(step=1.0), exact=False, demo_delay=0.0)


def _strips(app: ToolSearchApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def _unsafe_lines(app: ToolSearchApp) -> list[str]:
    return [line for line in _strips(app) if UNSAFE.search(line)]


def _styled(app: ToolSearchApp) -> list[str]:
    """Segments a markup look-alike would have styled: a link, or bold red."""
    found = []
    for strip in app.screen._compositor.render_strips():
        for segment in strip:
            style = segment.style
            if style is not None and (style.link or (
                    style.bold and style.color is not None and "red" in style.color.name)):
                found.append(segment.text)
    return found


async def _recall_with_a_hostile_miss(app: ToolSearchApp, pilot: Any, tmp_path: Path) -> None:
    """Recall (7) run (F5) on a query file of one query holding HOSTILE, which misses."""
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"query": "wipe " + HOSTILE, "gold": "mcp__gone__zzz"}) + "\n")
    await settle(pilot)
    await pilot.press("7")
    await settle(pilot)
    app.query_one(RecallPane).set_path(str(queries))
    await pilot.pause()
    await pilot.press("f5")
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
async def test_a_recall_miss_shows_the_querys_escapes_as_text(tmp_path: Path, size) -> None:
    app = _app()
    async with app.run_test(size=size) as pilot:
        await _recall_with_a_hostile_miss(app, pilot, tmp_path)
        text = "\n".join(_strips(app))
        assert "wipe \\x1b[5mB" in text  # the miss's query, its escape as text
        assert _unsafe_lines(app) == []
        await pilot.press("down")
        await settle(pilot)
        assert _unsafe_lines(app) == []
        assert _styled(app) == []


@pytest.mark.parametrize("size", SIZES)
async def test_a_recall_miss_picked_into_search_shows_no_escape(tmp_path: Path, size) -> None:
    app = _app()
    async with app.run_test(size=size) as pilot:
        await _recall_with_a_hostile_miss(app, pilot, tmp_path)
        await pilot.press("enter")  # the miss, tried in Search
        await settle(pilot)
        assert active_tab(app) == "search"
        field = app.query_one("#search-query", Input)
        assert field.value.startswith("wipe  [5mB ]0;title  [2J C R")
        assert _unsafe_lines(app) == []
        assert _styled(app) == []
        assert "1   " in "\n".join(_strips(app))  # it searched: hits are listed


async def test_a_pasted_query_shows_no_escape() -> None:
    app = _app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("4", "slash")
        await settle(pilot)
        field = app.query_one("#search-query", Input)
        field.post_message(events.Paste("wipe " + HOSTILE))
        await settle(pilot)
        assert "\x1b" not in field.value and field.value.startswith("wipe  [5mB")
        assert _unsafe_lines(app) == []


@pytest.mark.parametrize("size", SIZES)
async def test_the_call_dialog_shows_a_pasted_query_and_arguments_without_escapes(size) -> None:
    app = _app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert isinstance(app.screen, CallScreen)
        name = app.screen.query_one("#call-name", Input)
        name.post_message(events.Paste("wipe " + HOSTILE))
        await settle(pilot)
        assert _unsafe_lines(app) == []
        args = app.screen.query_one("#call-args", TextArea)
        args.focus()
        args.post_message(events.Paste('{"a": "' + HOSTILE + '"}'))
        await settle(pilot)
        assert args.text.startswith('{"a": "\\u001b[5mB')  # the same JSON value, as text
        assert json.loads(args.text)["a"] == HOSTILE
        assert _unsafe_lines(app) == []
        assert _styled(app) == []


async def test_the_recall_status_shows_a_query_files_odd_name_as_text(tmp_path: Path) -> None:
    odd = tmp_path / "q\x1b[5m\u202e.jsonl"
    odd.write_text(json.dumps({"query": "wipe", "gold": "mcp__gone__zzz"}) + "\n")
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        pane = app.query_one(RecallPane)
        for path in (odd, tmp_path / "missing\x1b[2J.jsonl"):  # read, then an error
            pane.set_path(str(path))
            await pilot.pause()
            await pilot.press("f5")
            await settle(pilot)
            status = str(app.query_one("#recall-status", Static).content)
            assert "\\x1b[" in status and not UNSAFE.search(status), status
