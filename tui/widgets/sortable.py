"""A ``DataTable`` whose columns sort the way the big tables' do (:mod:`.bigtable`).

``S`` sorts by the next column (after the last one: the order the rows came in), a click on
a header sorts by that column (again: the other way), the sorted column's title carries ▲ or
▼, and the cursor stays on its row. For the small tables (search hits, recall misses): the
rows are re-added in the new order, which costs nothing at their size.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.widgets import DataTable

from .render_style import StyleOncePerRender
from .scrollbars import SteadyScrollbars

Cells = tuple[object, ...]


def plain(cell: object) -> str:
    if isinstance(cell, Content | Text):
        return cell.plain.strip()
    return str(cell).strip()


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


class SortableTable(StyleOncePerRender, SteadyScrollbars, DataTable[object]):
    """Rows set as a whole (:meth:`set_rows`), shown in the chosen sort order."""

    BINDINGS = [Binding("S", "sort_next", "Sort", id="table.sort")]

    def __init__(self, *, id: str | None = None, cursor_type: str = "row",
                 zebra_stripes: bool = False) -> None:
        super().__init__(id=id, cursor_type=cursor_type,  # type: ignore[arg-type]
                         zebra_stripes=zebra_stripes)
        self._given: list[tuple[str, Cells]] = []
        self._titles: list[str] = []
        self._widths: list[int] = []
        self.sort_column: int | None = None
        self.sort_reverse = False

    # -- rows ------------------------------------------------------------------------

    def set_columns(self, columns: Sequence[tuple[str, str, int]]) -> None:
        """Replace the columns (title, key, width): the rows go and the sort is reset."""
        self.clear(columns=True)
        self._given, self._titles = [], [title for title, _, _ in columns]
        self._widths = [width for _, _, width in columns]
        self.sort_column, self.sort_reverse = None, False
        for title, key, width in columns:
            self.add_column(title, key=key, width=width)

    def set_rows(self, rows: Sequence[tuple[str, Cells]]) -> None:
        """Show *rows* (row key, cells) in the chosen order; the cursor keeps its row."""
        self._given = list(rows)
        self._show()

    @property
    def row_keys(self) -> list[str]:
        """Row keys top to bottom, as shown."""
        return [str(row.key.value) for row in self.ordered_rows]

    def _ordered(self) -> list[tuple[str, Cells]]:
        column = self.sort_column
        if column is None:
            return self._given
        texts = [plain(cells[column]) if column < len(cells) else ""
                 for _, cells in self._given]
        numbers = [_number(t) for t in texts]
        numeric = any(n is not None for n in numbers) and \
            all(n is not None for n, t in zip(numbers, texts, strict=True) if t)

        def key(index: int) -> tuple[int, float, str]:
            text, number = texts[index], numbers[index]
            if numeric:
                return (0, number, "") if number is not None else (1, 0.0, text)
            return (0, 0.0, text.lower())

        order = sorted(range(len(self._given)), key=key, reverse=self.sort_reverse)
        return [self._given[i] for i in order]

    def _show(self) -> None:
        keep = None
        if self.row_count and 0 <= self.cursor_row < self.row_count:
            keep = str(self.ordered_rows[self.cursor_row].key.value)
        row = self.cursor_row
        self.clear()
        for key, cells in self._ordered():
            self.add_row(*cells, key=key)
        keys = [key for key, _ in self._ordered()] if keep is not None else []
        if keep is not None and keep in keys:
            row = keys.index(keep)
        if self.row_count:
            self.move_cursor(row=min(row, self.row_count - 1), animate=False)

    # -- sorting ---------------------------------------------------------------------

    def sort_by(self, column: int | None, reverse: bool = False) -> None:
        """Sort by *column* (None: the order the rows came in), keeping the cursor's row."""
        self.sort_column, self.sort_reverse = column, reverse
        for index, col in enumerate(self.columns.values()):
            if index < len(self._titles):
                col.label = Text(self._title(index, column, reverse))
        self._show()
        self.refresh()

    def _title(self, index: int, column: int | None, reverse: bool) -> str:
        title = self._titles[index]
        if index != column:
            return title
        glyph = "\u25bc" if reverse else "\u25b2"
        width = self._widths[index] if index < len(self._widths) else 0
        if not width or len(title) + 2 <= width:
            return f"{title} {glyph}"
        # a narrow column keeps the glyph and cuts its title: the table cropped "# \u25b2"
        # and "Score \u25b2" to their titles, and the sort showed nowhere
        return title[:max(0, width - 1)] + glyph

    def action_sort_next(self) -> None:
        """S: sort by the next column (after the last one: the order the rows came in)."""
        column = self.sort_column
        count = len(self.columns)
        if not count:
            return
        self.sort_by(0 if column is None else column + 1 if column + 1 < count else None)

    async def _on_click(self, event: events.Click) -> None:
        """A click on the header line where no column is (beside the last one, or on a table
        with no columns yet, as Recall's before a run) sorts nothing. Textual's table reads
        the blank beside the columns as the first column (a row-cursor table then sorts by it)
        and, with no columns, fails with an IndexError."""
        meta = event.style.meta
        if meta.get("row") == -1 and (
                meta.get("out_of_bounds")
                or not 0 <= meta.get("column", -1) < len(self.ordered_columns)):
            event.prevent_default()  # the table's own click handling would read it

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        if event.data_table is not self:
            return
        event.stop()
        index = event.column_index
        self.sort_by(index, reverse=index == self.sort_column and not self.sort_reverse)
