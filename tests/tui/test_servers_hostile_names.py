"""A server named with a terminal escape (a config key or catalog entry can hold one): the
Servers table shows the escape as text, never hands it to the terminal (the name cell held
a raw ESC[5m, which made the row blink on a real terminal)."""

from __future__ import annotations

from tui_helpers import settle

from toolsearch.toolsets import Toolset, ToolSpec, Workspace
from tui.app import ToolSearchApp
from tui.widgets.bigtable import BigTable

NAME = "srv\x1b[5m" + "s" * 10_000


async def test_server_name_escape_is_shown_as_text_at_80_columns() -> None:
    tool = ToolSpec("only", "\x1b]0;title\x07" + "d" * 10_000, {"type": "object"})
    workspace = Workspace(name="hostile", toolsets=(Toolset(NAME, "mcp", (tool,)),))
    app = ToolSearchApp(workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one("#servers-table", BigTable)
        cell = table.get_cell(NAME, "name").plain
        assert "\x1b" not in cell and cell.startswith("srv\\x1b[5m")
        for y in range(table.size.height):
            assert "\x1b" not in table.render_line(y).text
