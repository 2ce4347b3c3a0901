"""The mouse does what the keys do: a click never leaves the cursor where no key works."""

from __future__ import annotations

from tui_helpers import settle

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
