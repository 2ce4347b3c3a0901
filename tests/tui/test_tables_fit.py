"""The Servers and Tools tables fit the terminal at 80x24 (no horizontal scroll, no column
cut by the screen's edge): narrower columns, the name column taking the rest and clipped
with an ellipsis, the least needed Servers columns left out; at 120 columns the Tools table
is laid out as before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from tui_helpers import settle

from tui.widgets.bigtable import BigTable, Column

TABLES = {"1": "#servers-table", "2": "#tools-table"}


@asynccontextmanager
async def table_shown(make_app: Any, tab: str, size: tuple[int, int]
                      ) -> AsyncIterator[tuple[Any, Any, BigTable[Any]]]:
    """The app at *size* with *tab* shown by its digit: (app, pilot, that tab's table)."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press(tab)
        await settle(pilot)
        yield app, pilot, app.screen.query_one(TABLES[tab], BigTable)


def shown_width(table: BigTable[Any]) -> int:
    """The widest line the table draws: its header, as the screen shows it."""
    return len(table.render_line(0).text.rstrip())


@pytest.mark.parametrize("tab", ["1", "2"], ids=["servers", "tools"])
async def test_table_fits_80_columns(make_app: Any, tab: str) -> None:
    async with table_shown(make_app, tab, (80, 24)) as (app, _pilot, table):
        room = table.scrollable_content_region.width
        assert table.virtual_size.width <= room <= 80, (table.virtual_size, room)
        assert not table.show_horizontal_scrollbar
        assert table.region.right <= app.size.width
        line = table.render_line(1).text  # a row: clipped with an ellipsis, not cut
        assert len(line) == table.size.width
        header = table.render_line(0).text
        assert header.split()[:2] == (["Status", "Server"] if tab == "1" else
                                      ["Status", "Tool"])


async def test_tools_table_keeps_its_120_column_layout(make_app: Any) -> None:
    async with table_shown(make_app, "2", (120, 40)) as (_app, _pilot, table):
        assert table.widths == tuple(c.width for c in table.columns)


def test_fit_widths_narrows_the_others_then_the_growing_column_then_hides() -> None:
    from tui.widgets.bigtable import fit_widths

    columns = (Column("A", "a", 10, min_width=4), Column("Name", "n", 30, min_width=8,
                                                         grow=True),
               Column("B", "b", 10, min_width=6), Column("C", "c", 8, optional=True))
    assert fit_widths(columns, 200) == (10, 30, 10, 8)  # room to spare: as given
    assert fit_widths(columns, 60) == (8, 30, 6, 8)  # the others first, right to left
    assert fit_widths(columns, 50) == (4, 24, 6, 8)  # then the name takes the rest
    assert fit_widths(columns, 40) == (4, 14, 6, 8)
    assert fit_widths(columns, 30) == (4, 14, 6, 0)  # then C is left out, the name widens
    assert fit_widths(columns, 10) == (4, 8, 6, 0)  # past that: as narrow as it goes


async def test_tables_refit_when_the_terminal_is_resized(make_app: Any) -> None:
    async with table_shown(make_app, "2", (120, 40)) as (_app, pilot, table):
        wide = table.widths
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert table.virtual_size.width <= table.scrollable_content_region.width
        assert table.widths != wide
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert table.widths == wide


async def test_sort_key_skips_the_columns_left_out(make_app: Any) -> None:
    async with table_shown(make_app, "1", (80, 24)) as (_app, pilot, table):
        shown = [i for i, width in enumerate(table.widths) if width]
        assert len(shown) < len(table.columns)  # note, kind, exact are left out at 80
        seen = []
        for _ in shown:
            await pilot.press("S")
            seen.append(table.sort_column)
        assert seen == shown
        await pilot.press("S")
        assert table.sort_column is None  # back to the engine's order
