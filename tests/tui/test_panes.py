"""Servers, gauges, tools and listing panes follow the session."""

from __future__ import annotations

from textual.widgets import DataTable, Static
from tui_helpers import settle

from toolsearch.schemas import search_description
from tui.widgets.gauges import GaugesPane
from tui.widgets.listing import ListingPane
from tui.widgets.servers import ServersPane
from tui.widgets.tools import ToolsPane


def _cell(table: DataTable, row: str, col: str) -> str:
    return str(table.get_cell(row, col))


async def test_servers_rows_follow_the_session(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.query_one(ServersPane).table
        assert [key for key, _ in table.rows] == ["hermes-core", "firecrawl", "xactions",
                                                  "weather"]
        assert _cell(table, "firecrawl", "status") == "\u25cb snapshot"
        assert _cell(table, "weather", "status") == "\u2716 error"
        assert "connection refused" in _cell(table, "weather", "note")
        assert _cell(table, "firecrawl", "form") == "full"
        assert _cell(table, "hermes-core", "form") == "eager"
        # exact counts arrive from a worker
        assert _cell(table, "firecrawl", "exact") not in ("\u2026", "")


async def test_detaching_a_server_recomputes_everything(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = app.session.assembly.deferred_count
        pane = app.query_one(ServersPane)
        pane.table.focus()
        pane.table.move_cursor(row=1)  # firecrawl
        await pilot.press("a")
        await settle(pilot)
        assert "firecrawl" in app.session.detached
        assert app.session.assembly.deferred_count == before - 6
        assert _cell(pane.table, "firecrawl", "attached") == "\u2013 detached"
        app.action_show_tab("tools")  # a hidden Tools pane catches up when shown
        await settle(pilot)
        tools = app.query_one(ToolsPane).table
        assert _cell(tools, "mcp-firecrawl\x1fmcp__firecrawl__scrape", "status") == \
            "\u2013 detached"
        assert "deferred 8" in str(app.query_one(GaugesPane).query_one(Static).content) or \
            app.query_one(GaugesPane).figures.deferred_count == 8
        app.action_show_tab("servers")
        await settle(pilot)
        pane.table.focus()
        pane.table.move_cursor(row=1)
        await pilot.press("a")  # re-attach
        await settle(pilot)
        assert app.session.assembly.deferred_count == before


async def test_scope_toggle_takes_a_server_out_of_the_session(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.query_one(ServersPane)
        pane.table.focus()
        pane.table.move_cursor(row=2)  # xactions
        await pilot.press("s")
        await settle(pilot)
        assert not app.session.in_scope("xactions")
        assert app.session.assembly.deferred_count == 6
        assert _cell(pane.table, "xactions", "scope") == "\u2298 out"
        assert app.query_one(GaugesPane).figures.deferred_count == 6


async def test_tools_table_filter_and_explain(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_show_tab("tools")
        pane = app.query_one(ToolsPane)
        assert pane.table.row_count == 17
        pane.apply_filter("deferred firecrawl")
        await pilot.pause()
        assert pane.table.row_count == 6
        assert pane.select_tool("mcp__firecrawl__scrape")
        await pilot.pause()
        text = str(pane.query_one("#tool-explain", Static).content)
        assert "rule mcp-toolset" in text
        assert "toolset mcp-firecrawl" in text
        assert "- mcp__firecrawl__scrape: Scrape one URL" in text
        pane.apply_filter("terminal")
        await pilot.pause()
        assert pane.table.row_count == 1
        text = str(pane.query_one("#tool-explain", Static).content)
        assert "core tool" in text and "not in the listing" in text


async def test_tools_status_cells_update_when_tool_search_is_off(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.action_show_tab("tools")
        await settle(pilot)
        table = app.query_one(ToolsPane).table
        key = "mcp-xactions\x1fmcp__xactions__send_dm"
        assert _cell(table, key, "status") == "\u25c7 deferred"
        app.action_set_enabled("off")
        await settle(pilot)
        assert app.session.assembly.tier == 0
        assert _cell(table, key, "status") == "\u25c6 visible"
        assert app.query_one(GaugesPane).figures.activated is False


async def test_listing_tabs_show_each_form_and_the_sent_text(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_show_listing("full")
        pane = app.query_one(ListingPane)
        assert "- mcp__firecrawl__scrape: Scrape one URL" in pane.text_of("full")
        assert "firecrawl tools (6):\nmcp__firecrawl__check_crawl_status, " in \
            pane.text_of("names")
        assert "firecrawl (6 tools \u2014 names not listed" in pane.text_of("summary")
        a = app.session.assembly
        assert pane.text_of("sent") == search_description(a.deferred_count, a.listing_text,
                                                          a.listing_form)
        for form in ("names", "summary", "sent"):
            app.action_show_listing(form)
            await pilot.pause()
            assert pane.active_form == form
            head = str(pane.query_one(f"#listing-head-{form}", Static).content)
            assert "tokens" in head and ("fits" in head or "over budget" in head)
        head = str(pane.query_one("#listing-head-full", Static).content)
        assert "the chosen form" in head


async def test_gauges_show_budget_leg_and_saving(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = str(app.query_one("#gauge-text", Static).content)
        assert "Tier 1" in text
        assert "listing_max_tokens binds" in text
        assert "/ 4,000 tokens" in text and "fits" in text
        assert "saving" in text and "%" in text
        assert "3 bridge defs cost" in text
        app.change(app.session.with_context(40_000))
        await settle(pilot)
        text = str(app.query_one("#gauge-text", Static).content)
        assert "threshold_pct binds" in text and "= 2,000" in text


async def test_tools_pane_catches_up_when_shown_again(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_show_tab("servers")
        await settle(pilot)
        app.action_set_enabled("off")
        await settle(pilot)
        app.action_show_tab("tools")
        await settle(pilot)
        table = app.query_one(ToolsPane).table
        assert _cell(table, "mcp-xactions\x1fmcp__xactions__send_dm", "status") == "\u25c6 visible"


async def test_tools_count_line_catches_up_when_shown_again(make_app):
    """A server detached and tool search turned off while Tools is hidden: shown again, its
    count line counts the rows it shows."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "1")
        await settle(pilot)

        def count_line() -> str:
            return str(app.query_one("#tools-count", Static).content)

        def wanted() -> str:
            rows = app.query_one(ToolsPane)._rows
            deferred = sum(1 for r in rows if r.status == "deferred")
            visible = sum(1 for r in rows if r.status == "visible")
            return f"{len(rows):,} of {len(rows):,} tools \u00b7 {visible:,} visible \u00b7 " \
                   f"{deferred:,} deferred"

        before = count_line()
        app.action_toggle_attached("firecrawl")
        app.action_set_enabled("off")
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert count_line() == wanted() != before
        assert "0 deferred" in count_line()
