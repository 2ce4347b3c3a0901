"""A hidden widget's restyle after it lost focus waits until it is shown (tui/restyle.py):
what is drawn has the look of the widget's present state, by keys and by a click."""

from __future__ import annotations

from typing import Any

from tui_helpers import settle


def _frame(app: Any) -> list[list[tuple[str, str]]]:
    """The screen's lines as (text, style) segments."""
    return [[(segment.text, str(segment.style)) for segment in strip]
            for strip in app.screen._compositor.render_strips()]


async def test_a_table_left_by_a_tab_switch_waits_and_comes_back_with_its_look(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.query_one("#servers-table")
        assert table.has_focus
        before = _frame(app)
        await pilot.press("2")
        await settle(pilot)
        assert not table.has_focus
        assert table in app._restyle_when_shown  # its blurred look is never drawn
        tools = app.query_one("#tools-table")
        assert tools.has_focus and tools not in app._restyle_when_shown
        await pilot.press("1")
        await settle(pilot)
        assert table.has_focus and table not in app._restyle_when_shown
        assert _frame(app) == before


async def test_a_tab_shown_by_a_click_is_drawn_with_its_present_look(make_app):
    """Shown by a click on the tab bar, not the app's key: the table that waited is restyled
    before the frame that shows it, and the frame is the one the keys give."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        by_key = _frame(app)
        await pilot.press("1")
        await settle(pilot)
        tools = app.query_one("#tools-table")
        assert tools in app._restyle_when_shown
        await pilot.click("#--content-tab-tab-tools")
        await settle(pilot)
        assert tools.has_focus and tools not in app._restyle_when_shown
        assert _frame(app) == by_key
