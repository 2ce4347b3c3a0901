"""Tools: every tool with visible/deferred, the deciding rule and its tokens; a filter; and
the explanation of the highlighted tool (rule, reason, toolset, tokens, its listing line).

Big catalogs (5,000 rows): the rows are one immutable tuple shown by a :class:`BigTable`,
which renders only the lines on screen, so a change that flips every row costs one
assignment rather than thousands of ``DataTable.update_cell`` calls (STYLE §8).
"""

from __future__ import annotations

from collections import Counter
from operator import attrgetter

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Input, Static

from toolsearch.advice import closest_names
from toolsearch.session import Explanation, SessionState
from toolsearch.textsafe import shown

from ..key_order import focus_now
from ..view import TOOL_LABELS, ToolRow, fmt, tool_rows, tool_rows_key
from .bigtable import BigTable, Column
from .bounded_input import BoundedInput
from .visibility import CatchUpWhenShown

COLUMNS: tuple[Column, ...] = (
    Column("Status", "status", 15, min_width=10),
    Column("Tool", "name", 40, min_width=16, grow=True),
    Column("Rule", "rule", 14, min_width=11), Column("Toolset", "toolset", 18, min_width=12),
    Column("Tokens", "tokens", 7, align="right", min_width=6),
)
"""As wide as given from 106 columns; at 80 the others narrow ("\u25c7 deferred",
"mcp-toolset" and "12,345" still whole) and the tool's name takes the rest."""
FILTER_DELAY = 0.15
FILTER_MAX = 1024
"""Characters the filter field holds."""
ADVICE_DELAY = 0.12
"""Seconds a change or the cursor rests before a deferred tool's advice is worked out."""
PENDING = "\u2026"
"""The advice while it is worked out."""


def row_key(row: ToolRow) -> str:
    return f"{row.toolset}\x1f{row.name}"


def cells(row: ToolRow) -> tuple[object, ...]:
    label, style = TOOL_LABELS.get(row.status, (row.status, ""))
    return (Content.styled(label, style), Content(shown(row.name, one_line=True)), row.rule,
            Content(shown(row.toolset, one_line=True)), fmt(row.tokens))


def sort_value(row: ToolRow, column: int) -> str | float:
    """The value :func:`cells` shows in *column* (what a sort compares)."""
    if column == 0:
        return TOOL_LABELS.get(row.status, (row.status, ""))[0]
    return (row.name, row.rule, row.toolset, row.tokens)[column - 1] if column <= 4 else ""


def matches(row: ToolRow, words: list[str]) -> bool:
    hay = f"{row.name} {row.toolset} {row.status} {row.rule}".lower()
    return all(w in hay for w in words)


class ToolsPane(CatchUpWhenShown, Vertical):
    DEFAULT_CSS = """
    ToolsPane { height: 1fr; }
    ToolsPane #tools-table { height: 1fr; }
    ToolsPane #tool-explain { height: 9; padding: 0 1; }
    ToolsPane #tools-count { height: 1; padding: 0 1; }
    """
    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="tools.filter"),
        Binding("escape", "clear_filter", "Clear filter", id="tools.clear_filter"),
    ]

    # repaint=False: a container draws nothing itself, its children repaint what changed
    # (repainting the whole pane on every change cost 2-4 ms of the frame at 4,900 tools)
    session: reactive[SessionState | None] = reactive(None, init=False, repaint=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: tuple[ToolRow, ...] = ()
        self._words: list[str] = []
        self._timer: Timer | None = None
        self._key: tuple[object, ...] | None = None
        self._filtered_for: list[str] | None = None
        self._explained_for: SessionState | None = None
        self._explained: dict[str, Explanation] = {}
        self._advised: set[str] = set()  # servers whose advice the engine holds
        self._advice_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield BoundedInput(placeholder="Filter tools: words match name, toolset, status, rule "
                           "(e.g. 'deferred firecrawl')", id="tools-filter", compact=True,
                           limit=FILTER_MAX)
        yield Static("", id="tools-count", markup=False)
        yield BigTable(COLUMNS, cells, row_key, id="tools-table", sort_value=sort_value)
        yield Static("", id="tool-explain")

    @property
    def table(self) -> BigTable[ToolRow]:
        return self.query_one("#tools-table", BigTable)

    def on_mount(self) -> None:
        self._refresh_rows()

    def watch_session(self) -> None:
        # the first rows are filled even while hidden (a pane mounted after the first frame)
        if self.is_mounted and (self._key is None or not self.hidden_now()):
            self._refresh_rows()

    def catch_up(self) -> None:
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
        focus_now(self.table)

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
        focus_now(self.query_one("#tools-filter", Input))

    def action_clear_filter(self) -> None:
        """Escape: clear the filter and give the cursor back to the table."""
        field = self.query_one("#tools-filter", Input)
        if field.value:
            with field.prevent(Input.Changed):
                field.value = ""
            if self._timer is not None:
                self._timer.stop()
            self.apply_filter("")
        focus_now(self.table)

    # -- rows ------------------------------------------------------------------------

    def _refresh_rows(self) -> None:
        if not self.is_mounted or self.session is None:
            return
        self._dirty = False
        key = tool_rows_key(self.session)
        if key == self._key and self._filtered_for == self._words:
            self._explain()
            return
        if key != self._key:
            self._rows = tool_rows(self.session)
        self._key, self._filtered_for = key, list(self._words)
        words = self._words
        wanted = tuple(r for r in self._rows if matches(r, words)) if words else self._rows
        self.table.set_rows(wanted)
        self._count_line(len(wanted))
        self._explain()

    def _count_line(self, shown: int) -> None:
        rows = self._rows
        counts = Counter(map(attrgetter("status"), rows))  # counted in C: 2 x 4,900 rows
        deferred, visible = counts["deferred"], counts["visible"]
        text = f"{shown:,} of {len(rows):,} tools \u00b7 {visible:,} visible \u00b7 " \
               f"{deferred:,} deferred"
        self.query_one("#tools-count", Static).update(text, layout=False)  # fixed height

    def highlighted_name(self) -> str | None:
        row = self.table.cursor_value
        return row.name if row else None

    @on(BigTable.RowHighlighted, "#tools-table")
    def _highlighted(self, event: BigTable.RowHighlighted) -> None:
        event.stop()
        self._explain()

    @on(BigTable.RowSelected, "#tools-table")
    def _selected(self, event: BigTable.RowSelected) -> None:
        event.stop()
        self._explain()

    def _explain(self) -> None:
        box = self.query_one("#tool-explain", Static)
        name = self.highlighted_name()
        if name is None or self.session is None:
            text = ""
            if self._words and self.session is not None:
                near = closest_names("_".join(self._words), self.session.def_by_name)
                text = "No tool matches the filter." + (
                    f" Did you mean: {', '.join(near)}?" if near else "")
            # tool names as written (a core tool named "[b]x" is no markup), escapes shown
            box.update(Content(shown(text, one_line=True)), layout=False)
            return
        ex = self._explanation(self.session, name)
        advice = ex.advice.sentences() if ex.advice else [PENDING] if ex.status == "deferred" \
            else []
        label, style = TOOL_LABELS.get(ex.status, (ex.status, ""))
        exact = f"{fmt(ex.schema_tokens_exact)} exact" if ex.schema_tokens_exact is not None \
            else "exact n/a"
        tokens = f"{fmt(ex.schema_tokens)} tokens ({exact})" if ex.schema_tokens is not None \
            else "no schema"
        box.update(Content.assemble(  # source text with its escapes shown (a description's
            # \x1b[2J cleared the terminal, \x1b]0;…\x07 retitled it)
            (shown(ex.name, one_line=True), "bold"), "  ", (label, style),
            shown(f" \u00b7 rule {ex.rule} \u00b7 toolset {ex.toolset or '-'} \u00b7 {tokens}",
                  one_line=True), "\n",
            ("Why: ", "bold"), shown(ex.reason, one_line=True), "\n",
            ("Listing line: ", "bold"),
            shown(ex.listing_line, one_line=True) if ex.listing_line else "(not in the listing)",
            *(("\n", ("What would change it: ", "bold"),
               shown(" \u00b7 ".join(advice), one_line=True)) if advice else ()),
        ), layout=False)  # fixed height: no screen-wide layout pass for a new explanation

    def _explanation(self, session: SessionState, name: str) -> Explanation:
        """The engine's explanation of *name*; for a deferred tool whose server's advice this
        pane has not asked for in this session yet, without advice (``advice`` None): working
        it out takes 10-20 ms at 4,900 tools, so it comes ``ADVICE_DELAY`` later, once the
        change or the cursor rests (as on Servers). Asked once, the engine remembers it for
        the session, and the pane shows it at once."""
        if self._explained_for is not session:
            self._explained_for, self._explained, self._advised = session, {}, set()
        found = self._explained.get(name)
        if found is not None:
            return found
        owner = session.toolset_of.get(name)
        if owner is None or owner in self._advised:
            found = session.explain(name)
            self._explained[name] = found
            return found
        bare = session.explain(name, advice=False)
        if bare.status != "deferred":  # no server advice for it: cheap
            found = session.advised(bare)
            self._explained[name] = found
            return found
        if self._advice_timer is not None:
            self._advice_timer.stop()
        self._advice_timer = self.set_timer(ADVICE_DELAY, self._advice_ready)
        return bare

    def _advice_ready(self) -> None:
        self._advice_timer = None
        session, name = self.session, self.highlighted_name()
        if session is None or name is None or not self.is_mounted or \
                self._explained_for is not session:
            return
        owner = session.toolset_of.get(name)
        if owner is not None:
            self._advised.add(owner)
        self._explain()

    def select_tool(self, name: str) -> bool:
        """Move the cursor to *name* (clearing the filter if it hides it)."""
        for index, row in enumerate(self.table.rows):
            if row.name == name:
                self.table.move_cursor(row=index)
                return True
        if self._words:
            self.action_clear_filter()
            return self.select_tool(name)
        return False
