"""A sort by a column that a narrower terminal leaves out stays, and the header says so."""

from __future__ import annotations

from typing import Any

from tui_helpers import settle

from tui.widgets.bigtable import BigTable


def _index(table: BigTable[Any], title: str) -> int:
    return next(i for i, c in enumerate(table.columns) if c.title == title)


async def test_sort_by_a_column_a_resize_leaves_out_still_shows(make_app: Any) -> None:
    """Servers sorted by Kind at 160 columns, then the terminal down to 80: Kind is left
    out, the rows keep their order (a resize reorders nothing) and the Server header names
    the sort ("Server · Kind ▼"): it showed no glyph anywhere, the sort still in force."""
    app = make_app()
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#servers-table", BigTable)
        kind = _index(table, "Kind")
        assert table.widths[kind]
        table.sort_by(kind, reverse=True)
        await settle(pilot)
        order = [table.cursor_key] + [str(r) for r in table.rows]
        assert "Kind \u25bc" in table.render_line(0).text

        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert not table.widths[kind]  # left out at 80 columns
        header = table.render_line(0).text
        assert "Server \u00b7 Kind \u25bc" in header, header
        assert header.count("\u25bc") == 1
        assert table.sort_column == kind
        assert [table.cursor_key] + [str(r) for r in table.rows] == order

        await pilot.resize_terminal(160, 30)
        await settle(pilot)
        header = table.render_line(0).text
        assert "Kind \u25bc" in header and "Server \u00b7" not in header, header
