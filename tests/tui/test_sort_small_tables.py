"""Sort on the Search hits and the Recall misses, by keys alone from launch: ``S`` cycles the
columns, a header click sorts by that column (again: the other way), the cursor keeps its row.
"""

from __future__ import annotations

import json

from tui_helpers import settle

from tui.widgets.sortable import SortableTable, plain


def _column(table: SortableTable, key: str) -> list[str]:
    return [plain(table.get_cell(row, key)) for row in table.row_keys]


def _cursor_key(table: SortableTable) -> str:
    return table.row_keys[table.cursor_row]


async def test_search_hits_sort_by_keys_and_header_click(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("4", "slash", *"scrape web search", "enter")
        await settle(pilot)
        await pilot.press("escape")  # back to the hits
        await settle(pilot)
        table = app.focused
        assert isinstance(table, SortableTable) and table.id == "hits-table-seed"
        assert table.row_count >= 3
        ranks = _column(table, "rank")
        assert ranks == [str(n) for n in range(1, len(ranks) + 1)]
        await pilot.press("down", "down")
        chosen = _cursor_key(table)
        await pilot.press("S", "S")  # #, then Score (ascending: the lowest first)
        await settle(pilot)
        scores = [float(s) for s in _column(table, "score")]
        assert table.sort_column == 1 and scores == sorted(scores)
        assert _cursor_key(table) == chosen
        # "Score ▲" is wider than its six cells: the title gives way to the glyph
        assert str(table.columns[table.ordered_columns[1].key].label) == "Score\u25b2"
        await pilot.click("#hits-table-seed", offset=(14, 0))  # the Tool column's header
        await settle(pilot)
        names = _column(table, "name")
        assert table.sort_column == 2 and names == sorted(names, key=str.lower)
        assert _cursor_key(table) == chosen
        await pilot.click("#hits-table-seed", offset=(14, 0))  # again: the other way
        await settle(pilot)
        assert table.sort_reverse and _column(table, "name") == sorted(names, key=str.lower,
                                                                        reverse=True)
        assert _cursor_key(table) == chosen
        await pilot.press("S", "S", "S")  # Terms, Note, then the engine's order again
        await settle(pilot)
        assert table.sort_column is None and _column(table, "rank") == ranks
        assert _cursor_key(table) == chosen
        # a new query keeps the chosen sort
        await pilot.press("S", "S", "slash", *" crawl", "enter")
        await settle(pilot)
        scores = [float(s) for s in _column(table, "score")]
        assert table.sort_column == 1 and scores == sorted(scores)


async def test_recall_misses_sort_by_keys(make_app, tmp_path):
    queries = [
        {"query": "zzqx nothing matches this", "gold": ["mcp__firecrawl__map"]},
        {"query": "aaaa unknown words", "gold": ["mcp__xactions__send_dm"]},
        {"query": "mmmm other words", "gold": ["mcp__firecrawl__crawl"]},
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in queries) + "\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("7", "ctrl+o", "ctrl+u", *str(path), "enter")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        table = app.focused
        assert isinstance(table, SortableTable) and table.id == "recall-misses"
        assert table.row_count >= 3
        order = table.row_keys
        await pilot.press("down")
        chosen = _cursor_key(table)
        await pilot.press("S", "S")  # Profile, then Query
        await settle(pilot)
        texts = _column(table, "query")
        assert table.sort_column == 1 and texts == sorted(texts, key=str.lower)
        assert table.row_keys != order  # the sort moved rows
        assert _cursor_key(table) == chosen
        await pilot.press("S", "S", "S")  # Gold, Top 5, then the order they came in
        await settle(pilot)
        assert table.sort_column is None and table.row_keys == order
        assert _cursor_key(table) == chosen


def test_tools_sort_values_are_what_the_cells_show(workspace):
    from toolsearch.session import SessionState
    from tui.view import tool_rows
    from tui.widgets.tools import COLUMNS, cells, sort_value

    rows = tool_rows(SessionState.from_workspace(workspace))
    assert rows
    for row in rows:
        shown = [plain(c) for c in cells(row)]
        for column in range(len(COLUMNS)):
            value = sort_value(row, column)
            if isinstance(value, int | float):
                assert float(shown[column].replace(",", "")) == value
            else:
                assert value == shown[column]


async def test_a_header_click_beside_the_columns_sorts_nothing(make_app):
    """Textual's table reads the blank beside its last header as the first column: clicked
    there, the hits must keep their order."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("4", "slash", *"scrape web search", "enter", "escape")
        await settle(pilot)
        table = app.focused
        assert isinstance(table, SortableTable) and table.row_count >= 3
        ranks = _column(table, "rank")
        used = sum(column.get_render_width(table) for column in table.ordered_columns)
        assert used + 2 < table.size.width  # there is a blank beside the last header
        await pilot.click("#hits-table-seed", offset=(used + 1, 0))
        await settle(pilot)
        assert table.sort_column is None and _column(table, "rank") == ranks
        await pilot.click("#hits-table-seed", offset=(1, 0))  # the # column's header still sorts
        await settle(pilot)
        assert table.sort_column == 0


async def test_a_header_click_on_recall_before_any_run_is_harmless(make_app):
    """Before a run the misses table has no columns: a click on its header line used to
    raise IndexError inside Textual and end the app."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        table = app.query_one("#recall-misses", SortableTable)
        assert not table.ordered_columns
        await pilot.click("#recall-misses", offset=(5, 0))
        await pilot.click("#recall-misses", offset=(40, 0), times=2)
        await settle(pilot)
        await pilot.press("4")  # the app is alive and the keys still work
        await settle(pilot)
        assert app.query_one("#main-tabs").active == "tab-search"
