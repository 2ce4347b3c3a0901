"""Servers: every toolset with kind, status, counts, tokens and the listing form it got.

Keys toggle a server's attachment and its membership of the session scope; the pane only
posts messages, the app makes the new session state and everything recomputes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from operator import itemgetter

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from toolsearch.advice import server_advice
from toolsearch.session import SessionState, ToolsetRow
from toolsearch.textsafe import shown
from toolsearch.toolsets import Toolset, ToolsetStatus

from ..messages import PaneMessage
from ..view import STATUS_LABELS, ExactCounts, fmt
from .bigtable import BigTable, Column
from .visibility import CatchUpWhenShown

COLUMNS: tuple[Column, ...] = (
    Column("Status", "status", 11), Column("Server", "name", 20, min_width=14, grow=True),
    Column("Listing", "form", 12, min_width=10),
    Column("Tools", "tools", 5, align="right"),
    Column("Tokens", "tokens", 7, align="right", min_width=6),
    Column("Attached", "attached", 10), Column("Scope", "scope", 6, min_width=5),
    # Exact and Kind are whole or left out: 266,603 and "unregistered" are 7 and 12 wide
    Column("Exact", "exact", 7, align="right", optional=True),
    Column("Kind", "kind", 12, optional=True),
    Column("Note", "note", 60, min_width=10, optional=True),
)
"""Listing first after the name: the operator's question. The table fits the view: the note
(the error, also in the detail line under the table) narrows first; at 80 columns the note,
kind and exact count are left out (the detail line names the kind, the error and, while its
column is left out, the exact count)."""
EXACT_COLUMN = next(i for i, column in enumerate(COLUMNS) if column.key == "exact")
FORM_WORDS = {"summary": "summary", "none": "not listed", "-": "\u2013"}
"""The listing form a server got, in words (``none``: its tools are not listed at all)."""
ADVICE_DELAY = 0.12
"""Seconds the cursor rests on a row before its advice is worked out."""
PENDING = "\u2026"
"""The advice while it is worked out."""
DETAIL_LINES = 6
"""The detail's max-height (CSS below): its height is min(wrapped lines, this)."""
ServerLine = tuple[str, tuple[object, ...]]
"""One table row: the toolset's name (the row key) and its cells."""
STARTING_LABEL = ("\u25cc starting", "$warning")
"""The status of a server the gateway is still starting (``tui --follow`` / ``--serve``):
neither up nor failed yet, so neither the error row nor a missing one."""


@dataclass(frozen=True)
class Reported:
    """A server's status as the gateway the app follows reports it (``tui --follow``): the
    rows come from the gateway's catalog snapshot, whose servers all read "snapshot"."""

    status: str
    error: str = ""


def status_of(toolset: Toolset, reported: Reported | None = None) -> tuple[str, str]:
    """(status, error) the row shows: the gateway's report when there is one (a server it
    has up has no error, whatever the snapshot held), else the toolset's own."""
    if reported is None:
        return toolset.status.value, toolset.error
    if reported.status == ToolsetStatus.ERROR.value:
        return reported.status, reported.error or toolset.error
    return reported.status, ""


def row_cells(row: ToolsetRow, exact: int | None, starting: bool = False,
              reported: Reported | None = None) -> tuple[object, ...]:
    """*starting*: the gateway says the server is still starting (its row holds no tools
    yet, and the gateway's placeholder sentence rather than an error). *reported*: the
    followed gateway's own word on the server."""
    status, error = status_of(row.toolset, reported)
    label, style = STARTING_LABEL if starting else STATUS_LABELS.get(status, (status, ""))
    return (
        Content.styled(label, style),
        Content(shown(row.name, one_line=True)),  # a source's own words: no escape drives
        FORM_WORDS.get(row.listing_form, row.listing_form),
        fmt(row.tool_count),
        fmt(row.tokens),
        Content("\u2714 attached") if row.attached else Content.styled("\u2013 detached",
                                                                       "$muted"),
        "in" if row.in_scope else Content.styled("\u2298 out", "$muted"),
        fmt(exact),
        shown(row.toolset.kind, one_line=True),  # the terminal (ESC[5m made the table blink)
        "" if not error else Content.styled(shown(error, one_line=True),
                                            "$warning" if starting else "$status-error"),
    )


class ServersPane(CatchUpWhenShown, Vertical):
    """A table of toolsets plus a detail line for the highlighted one."""

    DEFAULT_CSS = """
    ServersPane { height: 1fr; }
    ServersPane #servers-table { height: 1fr; }
    ServersPane #server-detail { height: auto; max-height: 6; padding: 0 1; }
    """
    BINDINGS = [
        Binding("a", "toggle_attached", "Attach/detach", id="servers.toggle_attached"),
        Binding("s", "toggle_scope", "Scope in/out", id="servers.toggle_scope"),
    ]

    # repaint=False: a container draws nothing itself, its children repaint what changed
    # (repainting the whole pane on every change cost 2-4 ms of the frame at 4,900 tools)
    session: reactive[SessionState | None] = reactive(None, init=False, repaint=False)
    exact: reactive[ExactCounts | None] = reactive(None, init=False, repaint=False)
    starting: reactive[frozenset[str]] = reactive(frozenset, init=False, repaint=False)
    """The servers a followed or hosted gateway is still starting (its assembly's
    ``starting`` list): shown as starting, not as errors."""
    reported: reactive[Mapping[str, Reported]] = reactive(dict, init=False, repaint=False)
    """What a followed gateway reports of its servers, by name (its last assembly's
    ``toolsets``; empty when the app shows no gateway, or the gateway stopped)."""

    @dataclass
    class AttachToggled(PaneMessage):
        toolset: str

    @dataclass
    class ScopeToggled(PaneMessage):
        toolset: str

    @dataclass
    class ToolsWanted(PaneMessage):
        """Enter on a row: the operator wants that server's tools (*toolset_id*)."""

        toolset_id: str

    @dataclass
    class ServerHighlighted(PaneMessage):
        """The cursor is on *toolset* (posted again after each change while shown)."""

        toolset: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._by_name: dict[str, ToolsetRow] = {}
        self._advice_cache: dict[tuple[int, str], str] = {}
        self._advice_timer: Timer | None = None
        self._detail_of: str | None = None
        self._lines: dict[tuple[object, ...], tuple[Toolset, ServerLine]] = {}

    def compose(self) -> ComposeResult:
        yield BigTable(COLUMNS, itemgetter(1), itemgetter(0), id="servers-table")
        yield Static("", id="server-detail", markup=False)

    @property
    def table(self) -> BigTable[ServerLine]:
        return self.query_one("#servers-table", BigTable)

    def on_mount(self) -> None:
        self._refresh_rows()

    def watch_session(self) -> None:
        self._refresh_rows()

    def watch_exact(self) -> None:
        self._refresh_rows()

    def watch_starting(self) -> None:
        self._refresh_rows()

    def watch_reported(self) -> None:
        self._refresh_rows()

    def catch_up(self) -> None:
        self._refresh_rows()

    def _refresh_rows(self) -> None:
        if not self.is_mounted or self.session is None or self.hidden_now():
            return
        exact = self.exact if self.exact is not None else None
        rows = self.session.rows()
        self._by_name = {r.name: r for r in rows}
        self.table.set_rows(tuple(
            self._line(r, exact.per_toolset.get(r.name) if exact else None) for r in rows))
        self._show_detail()

    def _line(self, row: ToolsetRow, exact: int | None) -> ServerLine:
        """The table line of *row*: the same line object while the row shows the same
        values (a change alters a few of 125 rows; building every row's cells cost ~2 ms, and
        an unchanged line object is not drawn again)."""
        ts = row.toolset
        starting = row.name in self.starting
        reported = self.reported.get(row.name)
        key = (id(ts), row.attached, row.in_scope, row.tool_count, row.tokens,
               row.listing_form, exact, starting, reported)
        held = self._lines.get(key)
        if held is not None and held[0] is ts:
            return held[1]
        if len(self._lines) > 4096:
            self._lines.clear()
        line = (row.name, row_cells(row, exact, starting, reported))
        self._lines[key] = (ts, line)
        return line

    def highlighted(self) -> str | None:
        return self.table.cursor_key

    @on(BigTable.RowHighlighted, "#servers-table")
    def _highlighted(self, event: BigTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail()

    @on(BigTable.Fitted, "#servers-table")
    def _fitted(self, event: BigTable.Fitted) -> None:
        event.stop()
        self._show_detail()  # the Exact column left out, or shown again

    @on(BigTable.RowSelected, "#servers-table")
    def _selected(self, event: BigTable.RowSelected) -> None:
        """Enter (or a click on the highlighted row): the server's tools, in Tools. It
        detached the server, a setting changed by the key a new operator presses to see
        more; `a` detaches."""
        event.stop()
        row = self._by_name.get(self.highlighted() or "")
        if row is not None:
            self.post_message(self.ToolsWanted(self, row.toolset.toolset_id))

    def _show_detail(self) -> None:
        name = self.highlighted()
        row = self._by_name.get(name or "")
        if name is not None:
            self.post_message(self.ServerHighlighted(self, name))  # `a`/`s` worked out ahead
        detail = self.query_one("#server-detail", Static)
        if row is None:
            if detail.content:
                detail.update("")
            return
        ts = row.toolset
        parts = [f"{ts.name} ({ts.kind}, toolset {ts.toolset_id})"]
        exact = self.exact.per_toolset.get(row.name) if self.exact is not None else None
        if exact is not None and not self.table.widths[EXACT_COLUMN]:
            parts.append(f"exact {fmt(exact)} tokens")  # its column is left out (80 columns)
        error = status_of(ts, self.reported.get(row.name))[1]
        if error:
            parts.append(error if name in self.starting else f"error: {error}")
        if ts.origin:
            parts.append(f"from {ts.origin}")
        if ts.server_version:
            parts.append(f"version {ts.server_version}")
        text = Content(shown(" \u00b7 ".join(parts), one_line=True))  # a source's own words
        advice = self._advice(row, wait=True)
        if advice:
            text = Content.assemble(text, "\n", ("What would change it: ", "bold"), advice)
        old = detail.content
        same_row, self._detail_of = self._detail_of == name, name
        if old != text:  # the same wrapped height costs no screen-wide layout pass
            width, height = detail.content_region.width, detail.content_region.height
            lines = len(text.wrap(width)) if width > 0 else 0
            if (advice == PENDING or same_row) and lines < height:
                # hold the height until the advice, and while the cursor stays on the row
                # (`a` detaching a server drops its advice line: the table would be laid
                # out and drawn again, taller, then shorter again on `a`)
                text = Content.assemble(text, "\n" * (height - lines))
                lines = height
            detail.update(text, layout=not old or width <= 0 or
                          min(lines, DETAIL_LINES) != height)

    def _advice(self, row: ToolsetRow, *, wait: bool = False) -> str:
        """The engine's advice for this server's listing form (memoised per session).

        *wait*: not worked out yet, it is worked out once the cursor rests on the row
        (``ADVICE_DELAY``): working it out takes up to ~20 ms at 4,900 tools, too long for
        every row the cursor passes."""
        session = self.session
        if session is None or row.listing_form in ("eager", "-", "detached", "out of scope",
                                                   "full"):
            return ""
        key = (id(session), row.name)
        if key not in self._advice_cache and wait:
            if self._advice_timer is not None:
                self._advice_timer.stop()
            self._advice_timer = self.set_timer(ADVICE_DELAY, self._advice_ready)
            return PENDING  # the advice line stays while it is worked out: no layout pass
        if key not in self._advice_cache:
            if len(self._advice_cache) > 64:
                self._advice_cache.clear()
            found = server_advice(session, row.name)
            self._advice_cache[key] = " \u00b7 ".join(found.sentences()) if found else ""
        return self._advice_cache[key]

    def _advice_ready(self) -> None:
        self._advice_timer = None
        row = self._by_name.get(self.highlighted() or "")
        if row is not None and self.is_mounted:
            self._advice(row)
            self._show_detail()

    def action_toggle_attached(self) -> None:
        name = self.highlighted()
        if name:
            self.post_message(self.AttachToggled(self, name))

    def action_toggle_scope(self) -> None:
        name = self.highlighted()
        if name:
            self.post_message(self.ScopeToggled(self, name))
