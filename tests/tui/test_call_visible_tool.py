"""Ctrl+T on a visible tool: the Call dialog no longer pre-fills a call the bridge can only
refuse (``not_deferrable``); it says why, and a deferred tool is still pre-filled."""

from __future__ import annotations

from textual.widgets import Input, Static
from tui_helpers import settle

from tui.screens.call import CallScreen
from tui.widgets.tools import ToolsPane


async def test_ctrl_t_on_a_visible_tool_says_why_instead_of_a_call_that_fails(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        tools = app.query_one(ToolsPane)
        assert tools.table.cursor_value.status == "visible"
        visible = tools.highlighted_name()
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert isinstance(app.screen, CallScreen)
        assert app.screen.query_one("#call-name", Input).value == ""
        status = str(app.screen.query_one("#call-status", Static).content)
        assert visible in status and "deferred tools only" in status
        await pilot.press("escape")
        await settle(pilot)
        deferred = next(row.name for row in tools.table.rows if row.status == "deferred")
        tools.select_tool(deferred)
        await settle(pilot)
        await pilot.press("ctrl+t", "enter")
        await settle(pilot)
        assert app.screen.query_one("#call-name", Input).value == deferred
        assert app.screen.last_reply is not None
        assert app.screen.last_reply.activity.outcome == "ok"
