"""A read-only table over an immutable tuple of rows that renders only the visible lines.

For tables of thousands of rows that change as a whole (every tool's status flips when tool
search is turned off): replacing the rows is one assignment, and a frame renders the ~40
lines on screen, cached by row value (STYLE §8, the Line API as Toolong uses it). A
``DataTable`` pays per changed cell instead (``update_cell`` refreshes and re-measures).

The header is drawn on the first line and stays put while the body scrolls. Cells are
:class:`~textual.content.Content` (never parsed as markup), cropped to fixed column widths;
when the columns do not fit the view, they narrow as :func:`fit_widths` says (no horizontal
scroll at 80 columns).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .scrollbars import SteadyScrollbars

Row = TypeVar("Row", bound=Hashable)
CELL_PADDING = 1


def as_content(cell: object) -> Content:
    """A cell as Content: plain text is never parsed as markup (STYLE §11.13)."""
    return cell if isinstance(cell, Content) else Content(str(cell))


@dataclass(frozen=True)
class Column:
    """A column *width* cells wide while the table has the room.

    *min_width*: the narrowest it goes when the table is short of room (None: never
    narrower), never narrower than its title and the sort glyph; *grow*: it takes the room the others leave it (the name or description);
    *optional*: left out when the table does not fit even at the narrowest widths."""

    title: str
    key: str
    width: int
    align: str = "left"
    min_width: int | None = None
    grow: bool = False
    optional: bool = False


def _squeezed(columns: Sequence[Column], room: int, hidden: set[int]
              ) -> tuple[tuple[int, ...], int]:
    """The widths with *hidden* left out (0), narrowed as far as needed to fit *room*: the
    other columns first, right to left (the first ones matter most), then the growing one;
    and how many cells the table is still too wide by."""
    widths = [0 if i in hidden else c.width for i, c in enumerate(columns)]
    over = sum(w + 2 * CELL_PADDING for w in widths if w) - room
    order = [i for i in range(len(columns) - 1, -1, -1) if not columns[i].grow]
    order += [i for i, c in enumerate(columns) if c.grow]
    for i in order:
        if over <= 0:
            break
        low = columns[i].min_width
        if widths[i] and low is not None:
            low = max(low, len(columns[i].title) + 1)  # a sorted column keeps "Tokens▲" whole
            cut = min(over, widths[i] - max(1, min(low, widths[i])))
            widths[i] -= cut
            over -= cut
    return tuple(widths), over


def fit_widths(columns: Sequence[Column], room: int) -> tuple[int, ...]:
    """Each column's width in a view *room* cells wide (0: left out). As given when they
    fit; else the other columns narrow to their ``min_width`` (right to left) and the
    growing column takes what they leave, down to its own; when that is not enough, the
    optional columns are left out, right to left, the rest widening again as far as they
    fit. Past that the table stays wider than *room* (and scrolls)."""
    hidden: set[int] = set()
    widths, over = _squeezed(columns, room, hidden)
    for i in range(len(columns) - 1, -1, -1):
        if over <= 0:
            break
        if columns[i].optional:
            hidden.add(i)
            widths, over = _squeezed(columns, room, hidden)
    return widths


class BigTable(SteadyScrollbars, ScrollView, Generic[Row], can_focus=True):
    """Rows in, visible lines out; a row cursor that posts highlight and select messages."""

    COMPONENT_CLASSES = {"big-table--header", "big-table--cursor", "big-table--even-row"}
    DEFAULT_CSS = """
    BigTable { height: 1fr; }
    """
    BINDINGS = [
        Binding("up", "cursor_up", "Up", show=False, id="table.up"),
        Binding("down", "cursor_down", "Down", show=False, id="table.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="table.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="table.page_down"),
        Binding("home", "first", "First row", show=False, id="table.first"),
        Binding("end", "last", "Last row", show=False, id="table.last"),
        Binding("enter", "select", "Select", show=False, id="table.select"),
        Binding("S", "sort_next", "Sort", id="table.sort"),
    ]

    cursor_row: reactive[int] = reactive(0, init=False, always_update=False, repaint=False)

    @dataclass
    class RowHighlighted(Message):
        table: BigTable[Any]
        index: int

        @property
        def control(self) -> BigTable[Any]:
            return self.table

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, BigTable.RowHighlighted) and \
                message.table is self.table

    @dataclass
    class Fitted(Message):
        """The columns were fitted to a new width: one may have been left out, or shown
        again (the pane may name what a left-out column held elsewhere)."""

        table: BigTable[Any]

        @property
        def control(self) -> BigTable[Any]:
            return self.table

    @dataclass
    class RowSelected(Message):
        table: BigTable[Any]
        index: int

        @property
        def control(self) -> BigTable[Any]:
            return self.table

    def __init__(self, columns: Sequence[Column], cells: Callable[[Row], Sequence[object]],
                 key: Callable[[Row], str], *, id: str | None = None,
                 sort_value: Callable[[Row, int], str | float] | None = None) -> None:
        """*sort_value*: a row's value in column *i*, as its cell shows it (cheaper than
        building every cell of 5,000 rows for one sort); None: the cells' text."""
        super().__init__(id=id)
        self.columns = tuple(columns)
        self._cells = cells
        self._sort_value = sort_value
        self._key = key
        self._rows: tuple[Row, ...] = ()
        self._unsorted: tuple[Row, ...] = ()
        self.sort_column: int | None = None
        self.sort_reverse = False
        self._index: dict[str, int] | None = None
        self._lines: LRUCache[tuple[object, ...], Strip] = LRUCache(256)
        self.widths = tuple(c.width for c in self.columns)
        """Each column's width as drawn (0: left out): :func:`fit_widths` of the view."""
        self._room: int | None = None
        self._width = self._span()

    def _span(self) -> int:
        return sum(w + 2 * CELL_PADDING for w in self.widths if w)

    def _fit(self, width: int, height: int) -> None:
        """Fit the columns to a view *width* x *height* (the scrollbar a body taller than
        the view shows takes its share); a change redraws every line."""
        bar = self.scrollbar_size_vertical if len(self._rows) + 1 > height else 0
        room = max(0, width - bar)
        if room == self._room:
            return
        self._room = room
        widths = fit_widths(self.columns, room)
        if widths == self.widths:
            return
        self.widths = widths
        self._width = self._span()
        self._lines.clear()
        self.virtual_size = Size(self._width, len(self._rows) + 1)
        self.refresh()
        self.post_message(self.Fitted(self))

    def on_resize(self, event: events.Resize) -> None:
        self._fit(self.container_size.width, self.container_size.height)

    # -- rows ------------------------------------------------------------------------

    @property
    def rows(self) -> tuple[Row, ...]:
        return self._rows

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def set_rows(self, rows: tuple[Row, ...]) -> None:
        """Show *rows* (in the chosen sort order); the cursor stays on the same row key when
        that row is still shown."""
        old_key = self.cursor_key
        old_index = self.cursor_row
        old_rows, old_top = self._rows, round(self.scroll_offset.y)
        self._unsorted = rows
        rows = self._sorted(rows)
        self._rows = rows
        self._index = None
        if old_key is not None and old_index < len(rows) and self._key(rows[old_index]) == \
                old_key:
            index = old_index
        elif old_key is not None:
            index = self.index_of(old_key)
            index = min(old_index, max(len(rows) - 1, 0)) if index is None else index
        else:
            index = 0
        if self.container_size:  # the body's scrollbar comes and goes with the rows
            self._fit(self.container_size.width, self.container_size.height)
        else:  # never laid out: fitted to the screen, the widest it can be (the first layout
            self._fit(self.app.size.width, self.app.size.height)  # fits it to the view)
        self.virtual_size = Size(self._width, len(rows) + 1)
        if not self.container_size:  # never laid out (a hidden tab): bars it surely shows are
            # in place for the first layout, not a second layout to make room for them
            app = self.app.size
            if len(rows) + 1 > app.height:
                self.set_reactive(BigTable.show_vertical_scrollbar, True)
            if self._width > app.width:
                self.set_reactive(BigTable.show_horizontal_scrollbar, True)
        self.set_reactive(BigTable.cursor_row, index)
        self._scroll_to_cursor()
        if len(rows) == len(old_rows) and round(self.scroll_offset.y) == old_top and \
                self.container_size:
            self._refresh_changed(old_rows, old_index)
        else:
            self.refresh()

    def _refresh_changed(self, old_rows: tuple[Row, ...], old_cursor: int) -> None:
        """Repaint only the lines on screen whose row changed (and the cursor's old and new
        line): the other lines keep what the screen drew last. A row equal to the one drawn
        there before is drawn the same (lines are cached by row value): `a` on Servers
        changes one or two of 125 rows, and repainting every line cost 4-9 ms a frame."""
        rows, cursor = self._rows, self.cursor_row
        top = round(self.scroll_offset.y)
        for index in range(top, min(top + self._body_height, len(rows))):
            new = rows[index]
            old = old_rows[index]
            if index in (old_cursor, cursor) or (new is not old and new != old):
                self.refresh_line(index + 1)  # rows start below the header line

    def index_of(self, key: str) -> int | None:
        if self._index is None:
            self._index = {self._key(row): i for i, row in enumerate(self._rows)}
        return self._index.get(key)

    def get_row(self, key: str) -> Row:
        index = self.index_of(key)
        if index is None:
            raise KeyError(key)
        return self._rows[index]

    def get_cell(self, key: str, column: str) -> Content:
        """The cell of row *key* in column *column*, as it is drawn (before cropping)."""
        position = next(i for i, c in enumerate(self.columns) if c.key == column)
        return as_content(self._cells(self.get_row(key))[position])

    @property
    def cursor_value(self) -> Row | None:
        return self._rows[self.cursor_row] if 0 <= self.cursor_row < len(self._rows) else None

    @property
    def cursor_key(self) -> str | None:
        row = self.cursor_value
        return None if row is None else self._key(row)

    # -- sorting ---------------------------------------------------------------------

    def _sort_key(self, index: int) -> Callable[[Row], tuple[int, float, str]]:
        numeric = self.columns[index].align == "right"
        value = self._sort_value

        def key(row: Row) -> tuple[int, float, str]:
            if value is not None:
                found = value(row, index)
                if isinstance(found, int | float):
                    return (0, float(found), "")
                text = found.strip()
            else:
                text = as_content(self._cells(row)[index]).plain.strip()
            if numeric:
                try:
                    return (0, float(text.replace(",", "")), "")
                except ValueError:
                    return (1, 0.0, text)  # "…" or "-" after every number
            return (0, 0.0, text.lower())

        return key

    def _sorted(self, rows: tuple[Row, ...]) -> tuple[Row, ...]:
        if self.sort_column is None:
            return rows
        return tuple(sorted(rows, key=self._sort_key(self.sort_column),
                            reverse=self.sort_reverse))

    def sort_by(self, column: int | None, reverse: bool = False) -> None:
        """Sort by *column* (None: the engine's order), keeping the cursor on its row."""
        self.sort_column, self.sort_reverse = column, reverse
        self._lines.clear()  # the header shows the sort glyph
        self.set_rows(self._unsorted)
        self.refresh()  # the header line too

    def action_sort_next(self) -> None:
        """S: sort by the next column shown (after the last one: the engine's order again)."""
        column = -1 if self.sort_column is None else self.sort_column
        shown = [i for i, width in enumerate(self.widths) if width and i > column]
        self.sort_by(shown[0] if shown else None)

    def _sort_shown_at(self) -> int | None:
        """The column whose header shows the sort: the sorted column, or when the view is
        too narrow for it (an optional column left out), the growing one (else the first
        shown), which then names it. The sort stays: a resize reorders no row."""
        column = self.sort_column
        if column is None or column >= len(self.widths) or self.widths[column]:
            return column
        shown = [i for i, width in enumerate(self.widths) if width]
        growing = [i for i in shown if self.columns[i].grow]
        return (growing or shown or [None])[0]

    def _header_title(self, index: int, column: Column) -> str:
        width = self.widths[index]
        if index != self._sort_shown_at():
            return column.title
        glyph = "\u25bc" if self.sort_reverse else "\u25b2"
        if index != self.sort_column and self.sort_column is not None:
            # the sorted column is left out: "Server \u00b7 Kind \u25b2" (cut, the glyph kept)
            title = f"{column.title} \u00b7 {self.columns[self.sort_column].title}"
        else:
            title = column.title
        if len(title) + 2 <= width:
            return f"{title} {glyph}"
        # a narrow column keeps the glyph and cuts its title: cropped with an ellipsis, the
        # glyph vanished ("Tool\u2026" for Tools \u25b2) and the sorted column looked cut short
        return title[:max(0, width - 1)] + glyph

    # -- cursor ----------------------------------------------------------------------

    def move_cursor(self, *, row: int) -> None:
        self.cursor_row = max(0, min(row, len(self._rows) - 1))

    def watch_cursor_row(self, old: int, new: int) -> None:
        top = round(self.scroll_offset.y)
        self._scroll_to_cursor()
        if round(self.scroll_offset.y) == top:  # only the two rows change (a scroll redraws all)
            self.refresh_line(old + 1)  # rows start below the header line
            self.refresh_line(new + 1)
        else:
            self.refresh()
        self.post_message(self.RowHighlighted(self, new))

    @property
    def _body_height(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_to_cursor(self) -> None:
        index, top, body = self.cursor_row, round(self.scroll_offset.y), self._body_height
        if index < top:
            self.scroll_to(y=index, animate=False, immediate=True)
        elif index >= top + body:
            self.scroll_to(y=index - body + 1, animate=False, immediate=True)

    def action_cursor_up(self) -> None:
        self.move_cursor(row=self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(row=self.cursor_row + 1)

    def action_page_up(self) -> None:
        self.move_cursor(row=self.cursor_row - self._body_height)

    def action_page_down(self) -> None:
        self.move_cursor(row=self.cursor_row + self._body_height)

    def action_first(self) -> None:
        self.move_cursor(row=0)

    def action_last(self) -> None:
        self.move_cursor(row=len(self._rows) - 1)

    def action_select(self) -> None:
        if self._rows:
            self.post_message(self.RowSelected(self, self.cursor_row))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:  # a header click sorts by that column (again: the other way)
            x = round(self.scroll_offset.x) + offset.x
            for index, width in enumerate(self.widths):
                if not width:
                    continue  # left out
                x -= width + 2 * CELL_PADDING
                if x < 0:
                    same = index == self.sort_column
                    self.sort_by(index, reverse=same and not self.sort_reverse)
                    break
            return
        index = round(self.scroll_offset.y) + offset.y - 1
        if 0 <= index < len(self._rows):
            self.cursor_row = index
            if event.chain >= 2:
                self.action_select()

    # -- rendering -------------------------------------------------------------------

    _look: int | None = None

    _base_style: Style | None = None

    def notify_style_update(self) -> None:
        self._look = None  # a theme or focus change may restyle every line
        self._base_style = None
        super().notify_style_update()

    def _styles_key(self) -> int:
        """A number for the styles lines are drawn with: lines drawn under equal styles are
        reused (a focus move to the table and back redraws no line twice)."""
        if self._look is None:
            looks: dict[tuple[object, ...], int] = self.__dict__.setdefault("_looks", {})
            self._base_style = base = self.rich_style
            look = (base, self.get_visual_style(),
                    *(self.get_visual_style(part) for part in
                      ("big-table--header", "big-table--cursor", "big-table--even-row")))
            if len(looks) > 64:
                looks.clear()
                self._lines.clear()
            self._look = looks.setdefault(look, len(looks))
        return self._look

    def _line(self, contents: Sequence[Content], part: str) -> Strip:
        pad = " " * CELL_PADDING
        pieces: list[Content | str] = []
        for column, width, cell in zip(self.columns, self.widths, contents, strict=False):
            if not width:
                continue  # left out: the view is too narrow for it
            cell = cell.right(width, ellipsis=True) if column.align == "right" \
                else cell.truncate(width, ellipsis=True, pad=True)
            pieces += [pad, cell, pad]
        line = Content.assemble(*pieces)
        if part == "big-table--cursor":  # the cursor's colours win over the cells' own
            cursor = self.get_visual_style(part)
            return Strip(Segment.apply_style(line.render_segments(cursor),
                                             post_style=cursor.rich_style))
        base = self.get_visual_style(part) if part else self.get_visual_style()
        return Strip(line.render_segments(base))

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = round(self.scroll_offset.x), round(self.scroll_offset.y)
        width = self.size.width
        look = self._styles_key()
        # worked out with the look (Textual walks every ancestor's styles for it: 60% of a
        # frame's lines when computed per line)
        style = self._base_style or self.rich_style
        if y == 0:
            key: tuple[object, ...] = ("header", look)
            strip = self._lines.get(key)
            if strip is None:
                strip = self._line([Content(self._header_title(i, c))
                                    for i, c in enumerate(self.columns)], "big-table--header")
                self._lines[key] = strip
        else:
            index = scroll_y + y - 1
            if index >= len(self._rows):
                return Strip.blank(width, style)
            row = self._rows[index]
            part = "big-table--cursor" if index == self.cursor_row else \
                "big-table--even-row" if index % 2 == 0 else ""  # as DataTable: row 0 striped
            key = (row, part, look)
            strip = self._lines.get(key)
            if strip is None:
                strip = self._line([as_content(c) for c in self._cells(row)], part)
                self._lines[key] = strip
        return strip.crop_extend(scroll_x, scroll_x + width, style)
