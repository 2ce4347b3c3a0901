"""Search: a query box, hits with BM25 score and per-token contributions, the fallback marked,
an empty result explained; optionally the seed and latest profiles side by side."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Checkbox, DataTable, Input, Static

from toolsearch.bm25 import Hit
from toolsearch.profiles import PROFILE_NAMES
from toolsearch.textsafe import shown

from ..key_order import focus_now
from ..messages import PaneMessage
from ..search_view import ProfileHits, SearchView
from .bounded_input import BoundedInput
from .sortable import SortableTable
from .visibility import CatchUpWhenShown, is_shown

COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("#", "rank", 2), ("Score", "score", 6), ("Tool", "name", 32), ("Terms", "terms", 48),
    ("Note", "note", 10),
)
QUERY_DELAY = 0.25
QUERY_MAX = 4096
"""Characters the query field holds (a model's tool_search query is a phrase: tens)."""
SIDE_BY_SIDE = 150
"""Narrower than this, the two profiles' hits are stacked instead of side by side."""
SHORT = 24
"""Lower than this (the pane, in lines), the profiles compared one above the other keep each
head to one line and drop the tables' horizontal scrollbar."""
PROFILES = PROFILE_NAMES


def _by_field(hit: Hit, term: str) -> str:
    """`` (name 2.36 description 1.04)``: a fielded hit's parts of one term's contribution."""
    parts = [f"{field} {value:.2f}" for field, tok, value in hit.fields if tok == term]
    return f" ({' '.join(parts)})" if parts else ""


def compare_label(on: bool) -> str:
    """The compare box says its state in words, not only by shade (STYLE §9)."""
    return f"compare {' | '.join(PROFILES)}: {'on' if on else 'off'}"


def hit_cells(rank: int, hit: Hit) -> tuple[object, ...]:
    terms = " \u00b7 ".join(f"{tok} {score:.2f}{_by_field(hit, tok)}" for tok, score in hit.terms)
    if hit.fallback:
        note = Content.styled("\u2691 fallback", "$outcome-warn")
    elif hit.exact:
        note = Content.styled("\u2605 exact", "$outcome-ok")
    else:
        note = ""
    return (str(rank), f"{hit.score:.2f}", Content(shown(hit.name, one_line=True)),
            Content(shown(terms, one_line=True)), note)


def result_head(result: ProfileHits) -> Content:
    toks = ", ".join(f"{t} (in {df:,})" for t, df in result.tokens) or "none"
    head = Content.assemble(
        (f"{result.profile}", "bold"),
        f" \u00b7 {len(result.hits)} of {result.total:,} deferred tools \u00b7 limit "
        f"{result.limit} \u00b7 tokens: {toks}",
    )
    if result.fallback:
        head = Content.assemble(head, "\n", ("\u2691 substring fallback", "$outcome-warn bold"),
                                ": no word of the query scored, so names containing it are shown (score 0.10)")
    if not result.hits:
        head = Content.assemble(head, "\n", ("\u2205 zero hits", "$outcome-warn bold"), ": ",
                                result.why_empty)
    return head


class SearchPane(CatchUpWhenShown, Vertical):
    DEFAULT_CSS = """
    SearchPane { height: 1fr; }
    SearchPane #search-bar { height: auto; }
    SearchPane #search-query { width: 1fr; }
    SearchPane #search-hits { height: 1fr; }
    SearchPane #search-hits.-stacked { layout: vertical; }
    SearchPane .hits-column { width: 1fr; height: 1fr; }
    SearchPane .hits-head { height: auto; max-height: 5; padding: 0 1; }
    SearchPane DataTable { height: 1fr; }
    SearchPane #search-hits.-short .hits-head {
        max-height: 1; text-wrap: nowrap; text-overflow: ellipsis;
    }
    SearchPane #search-hits.-short DataTable { scrollbar-size-horizontal: 0; }
    SearchPane #search-hits.-short .hits-head.-empty { max-height: 5; text-wrap: wrap; }
    """
    BINDINGS = [
        Binding("slash", "focus_query", "Query", id="search.focus_query"),
        Binding("c", "toggle_compare", "Compare profiles", id="search.compare"),
        Binding("y", "copy_hit", "Copy hit", id="search.copy"),
    ]

    result: reactive[SearchView | None] = reactive(None, init=False)

    @dataclass
    class QuerySubmitted(PaneMessage):
        query: str
        compare: bool

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="search-bar"):
            yield BoundedInput(placeholder="tool_search query, e.g. 'scrape a web page'",
                               id="search-query", compact=True, limit=QUERY_MAX)
            yield Checkbox(compare_label(False), id="search-compare", compact=True)
        with Horizontal(id="search-hits"):
            for profile in PROFILES:
                with Vertical(classes="hits-column", id=f"hits-{profile}"):
                    yield Static("Type a query: hits appear with their BM25 score and each "
                                 "query token's contribution.", classes="hits-head",
                                 id=f"hits-head-{profile}")
                    table = SortableTable(id=f"hits-table-{profile}")
                    table.set_columns(COLUMNS)
                    yield table

    def on_mount(self) -> None:
        self._layout_columns()

    def catch_up(self) -> None:
        self.watch_result(self.result)

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        """Stack the hits as soon as the pane is given a narrow size: when its tab is laid
        out ahead of its first show (tui/prepare.py), not on the Resize event after that
        show, which restyled the hits and laid the screen out a second time (20-35 ms of
        Search's first show at 4,900 tools). Textual 8.2.8's ``Widget._size_updated``."""
        changed = super()._size_updated(size, virtual_size, container_size, layout)
        if changed and size.width:
            self.query_one("#search-hits").set_class(size.width < SIDE_BY_SIDE, "-stacked")
            self._fit_short(size.height)
        return changed

    def _fit_short(self, height: int | None = None) -> None:
        """Three tables stacked in a short pane (80x24): one line per head and no
        horizontal scrollbar (Left/Right still scroll), or the seed table showed its header
        and its scrollbar but no hit. ``height``: the pane's, as just given (its ``size`` is
        0 while hidden: then nothing is decided)."""
        height = self.size.height if height is None else height
        if not height:
            return
        hits = self.query_one("#search-hits")
        hits.set_class(self.compare and hits.has_class("-stacked") and height < SHORT,
                       "-short")

    @property
    def query_text(self) -> str:
        return self.query_one("#search-query", Input).value

    @property
    def compare(self) -> bool:
        return self.query_one("#search-compare", Checkbox).value

    def set_query(self, query: str, *, submit: bool = True) -> None:
        self.query_one("#search-query", Input).value = query
        if submit:
            self._submit()

    @on(Input.Changed, "#search-query")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(QUERY_DELAY, self._submit)

    @on(Input.Submitted, "#search-query")
    def _submitted(self, event: Input.Submitted) -> None:
        """Enter runs the query and puts the cursor on the hits, as Enter in the Tools filter
        does: the keys after it (`2`, `c`, `S`) were typed into the query."""
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self._submit()
        hits = next((t for t in self.query(DataTable) if is_shown(t)), None)
        if hits is not None:
            focus_now(hits)

    @on(Checkbox.Changed, "#search-compare")
    def _compare_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        event.checkbox.label = compare_label(event.value)
        self._layout_columns()
        self._submit()

    def action_focus_query(self) -> None:
        focus_now(self.query_one("#search-query", Input))

    def action_toggle_compare(self) -> None:
        box = self.query_one("#search-compare", Checkbox)
        box.value = not box.value

    def action_copy_hit(self) -> None:
        """Copy the highlighted hit (name, score, terms) to the clipboard."""
        table = self.app.focused
        if not isinstance(table, DataTable) or self not in table.ancestors or \
                not table.row_count:
            tables = [t for t in self.query(DataTable) if is_shown(t) and t.row_count]
            if not tables:
                self.notify("No hit to copy: type a query first (/).", timeout=3)
                return
            table = tables[0]
        row = table.get_row_at(table.cursor_row)
        text = "\t".join(str(cell) for cell in row)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied: {text[:60]}", timeout=3)

    def _submit(self) -> None:
        self.post_message(self.QuerySubmitted(self, self.query_text, self.compare))

    def _layout_columns(self) -> None:
        result = self.result
        own = result.results[0].profile if result and result.results else None
        boxes = self.query("#search-compare")
        if not boxes:  # the app quit while this pane was mounting
            return
        compare = boxes.first(Checkbox).value
        self._fit_short()
        for profile in PROFILES:
            for column in self.query(f"#hits-{profile}"):
                column.display = compare or own is None and profile == "seed" or own == profile

    def watch_result(self, result: SearchView | None) -> None:
        # hidden (a tuning change re-runs the last query): filled when shown again
        if not self.is_mounted or result is None or self.hidden_now():
            return
        for profile in PROFILES:
            answer = result.profile(profile)
            table = self.query_one(f"#hits-table-{profile}", SortableTable)
            head = self.query_one(f"#hits-head-{profile}", Static)
            if answer is None:
                table.set_rows([])
                continue
            if not result.query.strip():
                table.set_rows([])
                head.remove_class("-empty")
                head.update("Type a query: hits appear with their BM25 score and each query "
                            "token's contribution.")
                continue
            head.update(result_head(answer))
            # a profile with no hits keeps its reason even where heads are cut to one line
            # (compare at 80x24): its table has no rows to give the lines to
            head.set_class(not answer.hits, "-empty")
            table.set_rows([(f"{rank}", hit_cells(rank, hit))
                            for rank, hit in enumerate(answer.hits, start=1)])
        self._layout_columns()
