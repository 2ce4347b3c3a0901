"""A tab's digit on the key map or an activity entry closes it and shows the tab, the cursor
in its main widget (SPEC §11: no keystroke lost; the digit did nothing there)."""

from __future__ import annotations

from textual.widgets import TabbedContent
from tui_helpers import burst, play_demo, settle

from tui.screens.activity_detail import ActivityDetailScreen
from tui.screens.help import HelpScreen
from tui.widgets.listing import ListingPane
from tui.widgets.tools import ToolsPane


async def test_a_digit_on_the_key_map_shows_that_tab(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("2", "slash", *"scrape")
        await settle(pilot)
        assert not isinstance(app.screen, HelpScreen)
        assert app.query_one("#main-tabs", TabbedContent).active == "tab-tools"
        assert app.query_one("#tools-filter").value == "scrape"  # `/` then typing worked


async def test_a_digit_typed_in_one_burst_after_the_key_map_lands_in_that_tab(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(app, ["question_mark", "2", "slash", *"scrape", "enter"])
        await settle(pilot)
        tools = app.query_one(ToolsPane)
        assert app.query_one("#tools-filter").value == "scrape"
        assert app.focused is tools.table


async def test_a_digit_on_an_activity_entry_shows_that_tab(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await play_demo(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ActivityDetailScreen)
        await pilot.press("3", "right_square_bracket")
        await settle(pilot)
        assert not isinstance(app.screen, ActivityDetailScreen)
        assert app.query_one("#main-tabs", TabbedContent).active == "tab-listing"
        assert app.query_one(ListingPane).query_one("#listing-tabs").active == "listing-names"
