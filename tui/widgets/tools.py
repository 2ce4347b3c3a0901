"""Tools: every tool with visible/deferred, the deciding rule and its tokens; a filter; and
the explanation of the highlighted tool (rule, reason, toolset, tokens, its listing line).

Big catalogs (5,000 rows): fixed column widths, row keys, ``update_cell`` for the cells a
change touched, ``clear()`` + ``add_rows()`` only when the set of rows changes (STYLE §8).
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import DataTable, Input, Static

from toolsearch.session import SessionState

from ..view import TOOL_LABELS, ToolRow, fmt, tool_rows, tool_rows_key

COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("Status", "status", 15), ("Tool", "name", 40), ("Rule", "rule", 14),
    ("Toolset", "toolset", 18), ("Tokens", "tokens", 7),
)
FILTER_DELAY = 0.15


def is_shown(widget: Widget) -> bool:
    """True when neither the widget nor any ancestor is ``display: none``."""
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))


def row_key(row: ToolRow) -> str:
    return f"{row.toolset}\x1f{row.name}"


def cells(row: ToolRow) -> tuple[object, ...]:
    label, style = TOOL_LABELS.get(row.status, (row.status, ""))
    return (Content.styled(label, style), Content(row.name), row.rule, Content(row.toolset),
            fmt(row.tokens))


def matches(row: ToolRow, words: list[str]) -> bool:
    hay = f"{row.name} {row.toolset} {row.status} {row.rule}".lower()
    return all(w in hay for w in words)


class ToolsPane(Vertical):
    DEFAULT_CSS = """
    ToolsPane { height: 1fr; }
    ToolsPane #tools-table { height: 1fr; }
    ToolsPane #tool-explain { height: 4; padding: 0 1; }
    ToolsPane #tools-count { height: 1; padding: 0 1; }
    """
    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="tools.filter"),
        Binding("escape", "clear_filter", "Clear filter", id="tools.clear_filter"),
    ]

    session: reactive[SessionState | None] = reactive(None, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: tuple[ToolRow, ...] = ()
        self._shown: dict[str, ToolRow] = {}
        self._words: list[str] = []
        self._timer: Timer | None = None
        self._key: tuple[object, ...] | None = None
        self._filtered_for: list[str] | None = None
        self._dirty = False

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Filter tools: words match name, toolset, status, rule "
                    "(e.g. 'deferred firecrawl')", id="tools-filter", compact=True)
        yield Static("", id="tools-count", markup=False)
        table: DataTable[object] = DataTable(id="tools-table", cursor_type="row",
                                             zebra_stripes=True)
        for title, key, width in COLUMNS:
            table.add_column(title, key=key, width=width)
        yield table
        yield Static("", id="tool-explain")

    @property
    def table(self) -> DataTable[object]:
        return self.query_one("#tools-table", DataTable)

    def on_mount(self) -> None:
        self._refresh_rows()

    def watch_session(self) -> None:
        if not self.is_mounted:
            return
        if not is_shown(self):
            self._dirty = True  # hidden: catch up when shown
            return
        self._refresh_rows()

    def on_show(self) -> None:
        if self._dirty:
            self._refresh_rows()

    # -- filter ----------------------------------------------------------------------

    @on(Input.Changed, "#tools-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(FILTER_DELAY, lambda: self.apply_filter(event.value))

    @on(Input.Submitted, "#tools-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self.apply_filter(event.value)
        self.table.focus()

    def apply_filter(self, text: str) -> None:
        self._words = text.lower().split()
        self._refresh_rows()

    def set_filter(self, text: str) -> None:
        """Show *text* in the filter box and apply it at once."""
        field = self.query_one("#tools-filter", Input)
        with field.prevent(Input.Changed):
            field.value = text
        self.apply_filter(text)

    def action_focus_filter(self) -> None:
        self.query_one("#tools-filter", Input).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#tools-filter", Input).value = ""
        self.apply_filter("")

    # -- rows ------------------------------------------------------------------------

    def _refresh_rows(self) -> None:
        if not self.is_mounted or self.session is None:
            return
        self._dirty = False
        key = tool_rows_key(self.session)
        if key == self._key and self._filtered_for == self._words:
            self._explain()
            return
        self._key, self._filtered_for = key, list(self._words)
        self._rows = tool_rows(self.session)
        wanted = [r for r in self._rows if matches(r, self._words)] if self._words else \
            list(self._rows)
        keys = [row_key(r) for r in wanted]
        table = self.table
        if keys != list(self._shown):
            table.clear()
            for key, row in zip(keys, wanted, strict=True):
                table.add_row(*cells(row), key=key)
        else:
            with self.app.batch_update():
                for key, row in zip(keys, wanted, strict=True):
                    old = self._shown[key]
                    if old == row:
                        continue
                    new_cells, old_cells = cells(row), cells(old)
                    for (_, col, _), before, after in zip(COLUMNS, old_cells, new_cells,
                                                          strict=True):
                        if before != after:
                            table.update_cell(key, col, after)
        self._shown = dict(zip(keys, wanted, strict=True))
        self._count_line(len(wanted))
        self._explain()

    def _count_line(self, shown: int) -> None:
        rows = self._rows
        deferred = sum(1 for r in rows if r.status == "deferred")
        visible = sum(1 for r in rows if r.status == "visible")
        text = f"{shown:,} of {len(rows):,} tools \u00b7 {visible:,} visible \u00b7 " \
               f"{deferred:,} deferred"
        self.query_one("#tools-count", Static).update(text)

    def highlighted_name(self) -> str | None:
        table = self.table
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:
            return None
        row = self._shown.get(str(key.value))
        return row.name if row else None

    @on(DataTable.RowHighlighted, "#tools-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._explain()

    @on(DataTable.RowSelected, "#tools-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._explain()

    def _explain(self) -> None:
        box = self.query_one("#tool-explain", Static)
        name = self.highlighted_name()
        if name is None or self.session is None:
            box.update("No tool matches the filter." if self._words else "")
            return
        ex = self.session.explain(name)
        label, style = TOOL_LABELS.get(ex.status, (ex.status, ""))
        exact = f"{fmt(ex.schema_tokens_exact)} exact" if ex.schema_tokens_exact is not None \
            else "exact n/a"
        tokens = f"{fmt(ex.schema_tokens)} tokens ({exact})" if ex.schema_tokens is not None \
            else "no schema"
        box.update(Content.assemble(
            (ex.name, "bold"), "  ", (label, style), f" \u00b7 rule {ex.rule} \u00b7 "
            f"toolset {ex.toolset or '-'} \u00b7 {tokens}\n",
            ex.reason, "\n",
            ("Listing line: ", "bold"), ex.listing_line or "(not in the listing)",
        ))

    def select_tool(self, name: str) -> bool:
        """Move the cursor to *name* (clearing the filter if it hides it)."""
        for index, row in enumerate(self._shown.values()):
            if row.name == name:
                self.table.move_cursor(row=index)
                return True
        if self._words:
            self.action_clear_filter()
            return self.select_tool(name)
        return False
