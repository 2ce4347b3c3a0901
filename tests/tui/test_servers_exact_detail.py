"""Servers at 80 columns: the table leaves the Exact column out, and the detail line under
it names the highlighted server's exact count instead (it was nowhere on the screen)."""

from __future__ import annotations

from rich.cells import cell_len
from textual.widgets import Static
from tui_helpers import settle

from tui.view import fmt
from tui.widgets.bigtable import BigTable
from tui.widgets.servers import EXACT_COLUMN


def _detail_lines(app: object) -> list[str]:
    """The detail line(s) under the table, as drawn."""
    detail = app.query_one("#server-detail", Static)  # type: ignore[attr-defined]
    return ["".join(s.text for s in detail.render_line(y)).rstrip()
            for y in range(detail.size.height)]


async def _on_firecrawl(pilot: object, app: object) -> int:
    await settle(pilot)
    await pilot.press("down")  # type: ignore[attr-defined]
    await settle(pilot)
    table = app.query_one("#servers-table", BigTable)  # type: ignore[attr-defined]
    assert table.cursor_key == "firecrawl"
    assert app.exact is not None  # type: ignore[attr-defined]
    return app.exact.per_toolset["firecrawl"]  # type: ignore[attr-defined]


async def test_detail_names_the_exact_count_at_80_columns(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        exact = await _on_firecrawl(pilot, app)
        assert app.query_one("#servers-table", BigTable).widths[EXACT_COLUMN] == 0
        lines = _detail_lines(app)
        assert f"exact {fmt(exact)} tokens" in " ".join(lines)
        assert all(cell_len(line) <= 80 for line in lines)


async def test_detail_leaves_it_to_the_column_when_shown_and_follows_a_resize(make_app
                                                                              ) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        exact = await _on_firecrawl(pilot, app)
        table = app.query_one("#servers-table", BigTable)
        assert table.widths[EXACT_COLUMN] > 0
        assert table.get_cell("firecrawl", "exact").plain == fmt(exact)
        assert "exact" not in " ".join(_detail_lines(app))
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert f"exact {fmt(exact)} tokens" in " ".join(_detail_lines(app))
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert "exact" not in " ".join(_detail_lines(app))
