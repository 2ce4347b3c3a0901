"""The app at 80x24 with the most the gauges can show (a context warning): the Tools table
keeps room for rows, and the explanation under it still says what matters."""

from __future__ import annotations

from textual.widgets import Static
from tui_helpers import FakeClock, loaded, settle

from tui.app import ToolSearchApp
from tui.widgets.tools import ToolsPane

TOOL = "mcp__cloudflare__zone_holds_list"


async def test_tools_table_keeps_rows_at_80x24_with_the_context_warning():
    app = ToolSearchApp(["cloudflare-scale"], context=2000, clock=FakeClock(),
                        wall_clock=FakeClock(step=1.0), exact=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert "context" in str(app.query_one("#gauge-text", Static).content)  # the warning
        await pilot.press("2")
        await settle(pilot)
        tools = app.query_one(ToolsPane)
        rows_shown = tools.table.content_region.height - 2  # its header, a scrollbar
        assert rows_shown >= 5, rows_shown
        tools.select_tool(TOOL)
        await settle(pilot)
        box = tools.query_one("#tool-explain", Static)
        assert box.content_region.height >= 4
        # what the box draws (a line cut off, or wrapped below its height, is not there)
        lines = [strip.text for strip in box.render_lines(box.size.region)]
        text = "\n".join(lines)
        assert TOOL in text and "deferred" in text and "rule mcp-toolset" in text
        assert "Why:" in text and "What would change it" in text and "enabled: off" in text
