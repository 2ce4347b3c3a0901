"""Text from sources and callers shown as text: escape sequences, bidi overrides and Rich
markup in a catalog's names, descriptions and versions never drive the terminal, never style
the screen and never close the app; each key-driven from launch."""

from __future__ import annotations

import json
import re
from pathlib import Path

from textual.widgets import Static
from tui_helpers import FakeClock, loaded, play_demo, settle

from tui.app import ToolSearchApp
from tui.screens.call import CallScreen

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""What must never reach the terminal from a source: control characters (ESC starts a
sequence that clears the screen or retitles the window), C1 (\\x9b is CSI) and bidi
overrides (they reorder the rest of the line)."""
HOSTILE = "Clear \x1b[2J\x1b[H the \u202eevil\u202c screen \x1b]0;PWNED\x07 and \x9b2J now."
TOOL = "mcp__evil__wipe"


def _catalog(tmp_path: Path, **extra: object) -> str:
    tool = {"name": "wipe", "description": HOSTILE,
            "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}},
                            "required": ["url"]}}
    data: dict[str, object] = {
        "name": "cat\x1b]0;TITLE\x07", "toolsets": [
            {"name": "evil", "kind": "mcp", "version": "1.0\x1b[2J\u202e", "tools": [tool]}]}
    data.update(extra)
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(data))
    return str(path)


def _app(source: str) -> ToolSearchApp:
    return ToolSearchApp([source], clock=FakeClock(), wall_clock=FakeClock(step=1.0),
                         exact=False, demo_delay=0.0)


def _unsafe_lines(app: ToolSearchApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()
            if UNSAFE.search(strip.text)]


def _screen_text(app: ToolSearchApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_a_description_with_escapes_is_shown_escaped_in_the_tools_explanation(tmp_path):
    app = _app(_catalog(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("2")
        await settle(pilot)
        explained = str(app.query_one("#tool-explain", Static).content)
        assert TOOL in explained and "Listing line:" in explained
        assert "\\x1b[2J" in explained and "\\u202e" in explained  # shown, as text
        assert _unsafe_lines(app) == []


async def test_the_header_and_the_server_detail_show_a_sources_escapes_as_text(tmp_path):
    app = _app(_catalog(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("1")
        await settle(pilot)
        text = _screen_text(app)
        assert "cat\\x1b]0;TITLE" in text  # the catalog's name, in the header
        assert "version 1.0\\x1b[2J\\u202e" in text  # the server's, in the detail line
        assert _unsafe_lines(app) == []


async def test_a_call_by_hand_shows_the_reply_escaped(tmp_path):
    app = _app(_catalog(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("2", "ctrl+t")  # the highlighted tool, described by default
        await settle(pilot)
        assert isinstance(app.screen, CallScreen)
        await pilot.press("enter")
        await settle(pilot)
        assert "\\u202eevil" in _screen_text(app)
        assert _unsafe_lines(app) == []


async def test_the_demo_feed_shows_a_query_made_of_a_description_escaped(tmp_path):
    app = _app(_catalog(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await play_demo(pilot)
        assert not app.demo_running and len(app.activity) >= 3
        await pilot.press("5")
        await settle(pilot)
        assert "\\u202eevil" in _screen_text(app)  # the demo searched the first sentence
        assert _unsafe_lines(app) == []


async def test_a_source_warning_holding_markup_is_shown_as_text_not_a_crash(tmp_path):
    dup = {"name": "dup[/]", "description": "x"}
    source = _catalog(tmp_path, toolsets=[
        {"name": "srv[/]", "kind": "mcp", "tools": [dup, dup]},
        {"name": "bad[bold]\x1b[2J", "kind": "plugin", "tools": []}])
    app = _app(source)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert "(srv[/]/dup[/]):" in _screen_text(app).replace("\n", "")  # the toast, as text
        assert _unsafe_lines(app) == []
        assert app.is_running


async def test_the_servers_kind_column_holds_every_kind_whole(tmp_path):
    tools = [{"name": "t", "description": "A tool."}]
    source = _catalog(tmp_path, name="kinds", toolsets=[
        {"name": kind + "-set", "kind": kind, "tools": tools}
        for kind in ("plugin", "direct", "unregistered")])
    app = _app(source)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("1")
        await settle(pilot)
        lines = _screen_text(app).splitlines()
        for kind in ("plugin", "direct", "unregistered"):  # `plug…` before
            row = next(line for line in lines if f"{kind}-set" in line)
            assert f" {kind} " in row + " ", row


async def test_the_call_dialog_names_the_send_key_a_terminal_delivers(make_app):
    """Ctrl+Enter reaches the app as Enter in most terminals (a new line in the arguments):
    the dialog names Ctrl+J, and Ctrl+J from the arguments sends the call."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t", "shift+tab", "shift+tab", "enter", "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, CallScreen)
        assert "Ctrl+J" in _screen_text(app)
        await pilot.press("tab", "tab", "ctrl+u", *"mcp__firecrawl__scrape", "tab",
                          *'{"url": "https://example.com"}', "ctrl+j")
        await settle(pilot)
        status = str(app.screen.query_one("#call-status", Static).content)
        assert "tool_call \u2192 mcp__firecrawl__scrape" in status, status
