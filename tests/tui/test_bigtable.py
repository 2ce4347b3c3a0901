"""The Tools pane's virtual table, and panes that skip work while hidden then catch up."""

from __future__ import annotations

from textual.widgets import Static
from tui_helpers import settle

from tui.widgets.listing import ListingPane
from tui.widgets.servers import ServersPane
from tui.widgets.tools import ToolsPane


async def test_keys_move_the_cursor_and_the_explanation_follows(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.action_show_tab("tools")
        await settle(pilot)
        pane = app.query_one(ToolsPane)
        pane.table.focus()
        await pilot.press("down", "down")
        await pilot.pause()
        assert pane.highlighted_name() == "web_search"
        assert "web_search" in str(pane.query_one("#tool-explain", Static).content)
        await pilot.press("end")
        await pilot.pause()
        assert pane.table.cursor_row == pane.table.row_count - 1
        await pilot.press("home")
        await pilot.pause()
        assert pane.table.cursor_row == 0
        # the header stays on the first line; rows follow it
        assert pane.table.render_line(0).text.split() == ["Status", "Tool", "Rule",
                                                           "Toolset", "Tokens"]
        assert "terminal" in pane.table.render_line(1).text


async def test_the_cursor_stays_on_its_tool_when_every_row_changes(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.action_show_tab("tools")
        await settle(pilot)
        pane = app.query_one(ToolsPane)
        assert pane.select_tool("mcp__xactions__send_dm")
        await pilot.pause()
        app.action_set_enabled("off")
        await settle(pilot)
        assert pane.highlighted_name() == "mcp__xactions__send_dm"
        assert "visible" in str(pane.table.get_cell("mcp-xactions\x1fmcp__xactions__send_dm",
                                                    "status"))
        assert "Tool search is off" in str(pane.query_one("#tool-explain", Static).content)


async def test_clicking_a_row_highlights_it(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.action_show_tab("tools")
        await settle(pilot)
        pane = app.query_one(ToolsPane)
        await pilot.click("#tools-table", offset=(20, 3))  # header, then rows 0, 1, 2
        await pilot.pause()
        assert pane.table.cursor_row == 2
        assert pane.highlighted_name() == "web_search"


async def test_hidden_servers_and_listing_catch_up_when_shown(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.action_show_tab("tools")
        await settle(pilot)
        app.action_toggle_attached("firecrawl")
        await settle(pilot)
        listing = app.query_one(ListingPane)
        assert "firecrawl" not in listing.text_of("full")  # asked for: computed at once
        app.action_show_tab("servers")
        await settle(pilot)
        table = app.query_one(ServersPane).table
        assert str(table.get_cell("firecrawl", "attached")) == "\u2013 detached"


async def test_gauges_follow_a_narrower_terminal(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = app.query_one("#gauge-text", Static)
        assert text.region.height == 6
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert text.region.height == 4  # the compact lines, with no stale blank rows
        app.change(app.session.with_config(listing_max_tokens=9000))
        await settle(pilot)
        assert text.region.height == 4 and "9,000" in str(text.content)
