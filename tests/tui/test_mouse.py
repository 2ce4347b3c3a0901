"""The mouse and the palette do what the keys do: never leave the cursor where no key works."""

from __future__ import annotations

from tui_helpers import settle

from tui.widgets.footer import KeyFooter
from tui.widgets.listing import ListingPane


async def test_clicking_the_tab_shown_keeps_the_panes_keys(make_app):
    """Clicking the tab already shown left the cursor in the tab bar: `a` no longer detached
    a server, `]` no longer stepped the Listing forms, and the footer lost the pane's keys."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.click("#--content-tab-tab-servers")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert app.session.detached == {"hermes-core"}
        await pilot.press("3")
        await settle(pilot)
        await pilot.click("#--content-tab-tab-listing")
        await settle(pilot)
        await pilot.press("]")
        await settle(pilot)
        assert app.query_one(ListingPane).active_form == "names"
        await pilot.click("#--content-tab-listing-summary")  # a form's own tab
        await settle(pilot)
        assert app.query_one(ListingPane).active_form == "summary"
        await pilot.press("]")
        await settle(pilot)
        assert app.query_one(ListingPane).active_form == "sent"
        assert app.focused is not None and app.focused.id == "listing-text-sent"


async def test_clicking_another_tab_puts_the_cursor_in_its_table(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.click("#--content-tab-tab-tools")
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "tools-table"
        await pilot.click("#--content-tab-tab-servers")
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "servers-table"


async def test_esc_restores_a_widget_maximized_from_the_palette(make_app):
    """The palette's "Maximize" hid the footer, and Esc (taken by the pane's or the app's
    own Esc binding) never restored the view: the operator was stuck in it."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for tab in ("1", "2", "5"):
            await pilot.press(tab)
            await settle(pilot)
            await pilot.press("ctrl+p")
            await settle(pilot)
            await pilot.press(*"Maximize")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert app.screen.maximized is not None, tab
            footer = app.screen.query_one(KeyFooter)
            assert footer.display and footer.region.height == 1, tab
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen.maximized is None, tab
