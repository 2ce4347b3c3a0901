"""Esc and the key typed just after it, delivered by the terminal in one read (a quick typist
within Textual's 100 ms escape delay, or `tmux send-keys Escape 3`): Textual makes one key of
them (Esc 3 is `£`, Esc q is Alt+q). SPEC §11: Esc leaves the field, then the key does what it
does outside a field."""

from __future__ import annotations

from textual.widgets import Input, TextArea
from tui_helpers import active_tab, settle, terminal_read, wait_until

from tui.widgets.tools import ToolsPane


async def in_the_filter(pilot, text: str) -> None:
    """From launch: Tools, `/`, *text* typed into the filter."""
    await settle(pilot)
    await pilot.press("2", "slash", *text)
    await settle(pilot)


async def test_escape_and_a_digit_in_one_read_leave_the_filter_for_that_tab(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await in_the_filter(pilot, "scrape")
        field = app.query_one(ToolsPane).query_one("#tools-filter", Input)
        terminal_read(app, "\x1b3")
        await settle(pilot)
        assert field.value == ""  # Esc cleared it; no "£" typed
        assert active_tab(app) == "listing"


async def test_escape_and_a_letter_in_one_read_quit_from_a_field(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await in_the_filter(pilot, "scr")
        terminal_read(app, "\x1bq")
        await wait_until(pilot, lambda: not app.is_running, "q after Esc quits")


async def test_escape_and_a_capital_in_one_read_run_that_keys_binding(make_app):
    """Textual names Esc S `alt+shift+s`; outside the field it is `S`, the sort key."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await in_the_filter(pilot, "scr")
        pane = app.query_one(ToolsPane)
        before = pane.table.sort_column
        terminal_read(app, "\x1bS")
        await settle(pilot)
        assert app.focused is pane.table
        assert pane.query_one("#tools-filter", Input).value == ""
        assert pane.table.sort_column != before


async def test_a_pound_sign_in_a_calls_arguments_stays_typed(make_app):
    """The characters Textual makes of Esc and a digit are real characters on some keyboards
    (`£` is Shift+3 on a British one); in a call's arguments they are kept as typed."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "slash", *"scrape", "enter", "ctrl+t")
        await settle(pilot)
        assert type(app.screen).__name__ == "CallScreen"
        area = app.screen.query_one("#call-args", TextArea)
        await pilot.press("tab")  # cycle until the arguments hold the cursor
        for _ in range(6):
            if app.focused is area:
                break
            await pilot.press("tab")
        assert app.focused is area
        terminal_read(app, "£")
        await settle(pilot)
        assert type(app.screen).__name__ == "CallScreen"
        assert "£" in area.text
