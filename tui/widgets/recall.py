"""Recall: run a query file against seed, latest or both, and list the misses; or run the
reach linter and list the deferred tools that their own words cannot find.

The pane only asks (``RunRequested``, ``ReachRequested``); the app runs the engine in a
thread worker and hands back a :class:`RecallView` and progress steps (STYLE §3, §5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Button, DataTable, Input, ProgressBar, Select, Static

from toolsearch.textsafe import shown

from ..key_order import focus_now
from ..messages import PaneMessage
from ..recall_view import PROFILE_CHOICES, RecallStep, RecallView, profiles_for, recall_basis
from .bounded_input import PathInput
from .sortable import SortableTable

if TYPE_CHECKING:
    from toolsearch.recall import ReachReport, RecallReport
    from toolsearch.session import SessionState

RECALL_FIGURES: tuple[tuple[str, str], ...] = (
    ("recall_at_1", "recall@1"), ("recall_at_5", "recall@5"), ("mrr", "MRR@5"),
    ("gold_found_at_5", "gold found@5"), ("n", "queries (n)"), ("misses", "misses"),
    ("unresolved", "unknown gold names"), ("catalog_size", "deferred tools searched"),
    ("seconds", "seconds"),
)
REACH_FIGURES: tuple[tuple[str, str], ...] = (
    ("n", "deferred tools"), ("by_name", "found by own name"),
    ("by_description", "found by first sentence"), ("by_either", "found by either"),
    ("unreached", "unreached"), ("seconds", "seconds"),
)
MISS_COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("Profile", "profile", 7), ("Query", "query", 44), ("Gold", "gold", 30),
    ("Top 5 returned", "returned", 60),
)
UNREACHED_COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("Profile", "profile", 7), ("Tool", "name", 40), ("Why not reached", "reasons", 90),
)


def recall_cell(report: RecallReport, key: str) -> str:
    if key == "misses":
        return f"{len(report.misses):,}"
    if key == "unresolved":
        return f"{len(report.unresolved):,}" + (f" ({report.skipped} skipped)"
                                                if report.skipped else "")
    value = getattr(report, key)
    if key == "seconds":
        return f"{value:.2f}"
    return f"{value:,}" if isinstance(value, int) else f"{value:.3f}"


def reach_cell(report: ReachReport, key: str) -> str:
    if key == "unreached":
        return f"{len(report.unreached):,}"
    if key == "seconds":
        return f"{report.seconds:.2f}"
    value = getattr(report, key)
    share = f" ({value / report.n:.1%})" if key != "n" and report.n else ""
    return f"{value:,}{share}"


def _short(names: tuple[str, ...]) -> str:
    return ", ".join(names) if names else "(nothing)"


class RecallPane(Vertical):
    DEFAULT_CSS = """
    RecallPane { height: 1fr; }
    RecallPane #recall-bar { height: auto; }
    RecallPane #recall-path { width: 1fr; }
    RecallPane #recall-profile { width: 28; margin-left: 1; }
    RecallPane #recall-bar Button { margin-left: 1; }
    RecallPane #recall-status { height: auto; max-height: 3; padding: 0 1; }
    RecallPane #recall-progress { height: 1; padding: 0 1; }
    RecallPane #recall-figures { height: auto; max-height: 40%; }
    RecallPane #recall-misses-head { height: 1; padding: 0 1; }
    RecallPane #recall-misses { height: 1fr; }
    """
    BINDINGS = [
        Binding("ctrl+o", "focus_path", "Query file", id="recall.focus_path"),
        Binding("slash", "focus_path", "Query file", show=False, id="recall.focus_path_slash"),
        Binding("f5", "run", "Run queries", id="recall.run"),
        Binding("f6", "reach", "Reach", id="recall.reach"),
    ]

    view: reactive[RecallView | None] = reactive(None, init=False)
    step: reactive[RecallStep | None] = reactive(None, init=False)
    default_path: reactive[str] = reactive("", init=False)
    session: reactive[SessionState | None] = reactive(None, init=False)

    @dataclass
    class RunRequested(PaneMessage):
        path: str
        profiles: tuple[str, ...]

    @dataclass
    class ReachRequested(PaneMessage):
        profiles: tuple[str, ...]

    @dataclass
    class QueryPicked(PaneMessage):
        """A miss (or an unreached tool's own words) to try in the Search tab."""

        query: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._picks: dict[str, str] = {}
        self._shown: RecallView | None = None
        self._stale = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="recall-bar"):
            yield PathInput(placeholder="query file: JSON lines, one {\"query\", \"gold\"} "
                        "object per line", id="recall-path", compact=True)
            yield Select(PROFILE_CHOICES, allow_blank=False, value="both", id="recall-profile",
                         compact=True)
            yield Button("Run (F5)", id="recall-run", variant="primary", compact=True)
            yield Button("Reach (F6)", id="recall-reach", compact=True)
        yield Static("Run a query file to see recall@1, recall@5, MRR@5 and gold found@5 "
                     "per profile, and every query whose gold tool is not in the top 5. "
                     "Reach checks that each deferred tool is found by its own name or "
                     "first sentence.", id="recall-status")
        yield ProgressBar(total=1, show_eta=False, id="recall-progress")
        figures: DataTable[object] = DataTable(id="recall-figures", cursor_type="none",
                                               zebra_stripes=True)
        yield figures
        yield Static("", id="recall-misses-head")
        yield SortableTable(id="recall-misses", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one("#recall-progress").display = False
        self._fill_path()
        self._render_view()

    # -- from the app ----------------------------------------------------------------

    def watch_default_path(self) -> None:
        self._fill_path()

    def _fill_path(self) -> None:
        if not self.is_mounted:
            return
        field = self.query_one("#recall-path", PathInput)
        if not field.value and self.default_path:
            field.set_path(self.default_path)
            self.call_after_refresh(self._show_path_end)

    def _show_path_end(self) -> None:
        """Scroll the path field to its end: at 80 columns a bundled file's path showed only
        its folders (`/…/lib/python3.11/site-p`), never the file's name."""
        field = self.query_one("#recall-path", Input)
        end = len(field.value)
        field.cursor_position = 0
        field.cursor_position = end  # a change of cursor scrolls the field to it

    def watch_step(self, step: RecallStep | None) -> None:
        if not self.is_mounted:
            return
        bar = self.query_one("#recall-progress", ProgressBar)
        running = step is not None and step.done < step.total
        bar.display = running  # requests while running are ignored (see ``_busy``)
        if step is None:
            return
        bar.update(total=step.total, progress=step.done + step.part)
        if running:
            self._status(Content.assemble(("\u23f5 running ", "bold"), step.label,
                                          f" (profile {step.done + 1} of {step.total})\u2026"))

    def watch_view(self) -> None:
        self._render_view()

    def watch_session(self) -> None:
        if self.is_mounted and self._shown is not None and self._shown.basis and \
                self._stale != (recall_basis(self.session) != self._shown.basis):
            self._shown = None  # the status line says whether the figures still hold
            self._render_view()

    @property
    def _stale_note(self) -> str:
        view = self._shown
        self._stale = bool(view and view.basis and recall_basis(self.session) != view.basis)
        # first: the status holds three lines, a note at its end was cut at 80 columns
        return ("\u26a0 run before the last change of servers, scope or defer (F5/F6 runs "
                "it again) \u00b7 ") if self._stale else ""

    # -- fields to requests ----------------------------------------------------------

    @property
    def path(self) -> str:
        return self.query_one("#recall-path", PathInput).path

    @property
    def profiles(self) -> tuple[str, ...]:
        return profiles_for(str(self.query_one("#recall-profile", Select).value))

    def set_path(self, path: str) -> None:
        self.query_one("#recall-path", PathInput).set_path(path)

    def set_profiles(self, choice: str) -> None:
        self.query_one("#recall-profile", Select).value = choice

    def action_focus_path(self) -> None:
        focus_now(self.query_one("#recall-path", Input))

    def action_run(self) -> None:
        if not self._refused_while_busy("the query file " + (self.path.strip() or "(none)")):
            self.post_message(self.RunRequested(self, self.path, self.profiles))

    def action_reach(self) -> None:
        if not self._refused_while_busy("Reach"):
            self.post_message(self.ReachRequested(self, self.profiles))

    def _refused_while_busy(self, what: str) -> bool:
        """While a run is going, a new one is not started: say so (Enter on another file,
        F5 or F6 were dropped without a word, and the figures then shown were the old
        run's)."""
        if not self._busy:
            return False
        self.notify(f"A run is still going, so {what} was not started: press F5 (or F6) "
                    "again once its figures are shown.", title="Not started", timeout=6)
        return True

    @property
    def _busy(self) -> bool:
        return self.step is not None and self.step.done < self.step.total

    @on(Input.Submitted, "#recall-path")
    def _submitted(self, event: Input.Submitted) -> None:
        """Enter runs the file and puts the cursor on the misses, as Enter in the Tools
        filter does (a digit after it was typed into the path)."""
        event.stop()
        self.action_run()
        focus_now(self.query_one("#recall-misses", SortableTable))

    @on(Input.Changed, "#recall-path")
    def _path_changed(self, event: Input.Changed) -> None:
        event.stop()

    @on(Select.Changed, "#recall-profile")
    def _profile_changed(self, event: Select.Changed) -> None:
        event.stop()

    @on(Button.Pressed, "#recall-run")
    def _run_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_run()

    @on(Button.Pressed, "#recall-reach")
    def _reach_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_reach()

    @on(DataTable.RowSelected, "#recall-misses")
    def _picked(self, event: DataTable.RowSelected) -> None:
        event.stop()
        query = self._picks.get(str(event.row_key.value))
        if query:
            self.post_message(self.QueryPicked(self, query))

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()

    # -- rendering -------------------------------------------------------------------

    def _status(self, text: Content | str) -> None:
        self.query_one("#recall-status", Static).update(text)

    def _render_view(self) -> None:
        if not self.is_mounted:
            return
        view = self.view
        if view is None:
            return
        if self._shown is view:
            return
        self._shown = view
        if view.error:
            self._status(Content.assemble(("\u2716 error", "$outcome-error bold"), ": ",
                                          shown(view.error, one_line=True)))
        elif view.kind == "recall" and not any(r.n for r in view.recall):
            # nothing was measured: no ✔, no "every query found a gold tool"
            self._status(Content.assemble(
                self._stale_note, ("\u26a0 recall", "$outcome-warn bold"),
                f" \u00b7 {view.queries:,} queries from ", Content(shown(view.source, one_line=True)),
                " \u00b7 none could be scored: no gold name is a deferred tool of this "
                "session (check the names, or the sources loaded)"))
        elif view.kind == "recall":
            total = sum(len(r.misses) for r in view.recall)
            self._status(Content.assemble(
                self._stale_note, ("\u2714 recall", "$outcome-ok bold"),
                f" \u00b7 {view.queries:,} queries from ", Content(shown(view.source, one_line=True)),
                f" \u00b7 top 5 \u00b7 {total:,} miss(es) across "
                f"{', '.join(view.profiles)} \u00b7 enter on a miss tries it in Search"))
        else:
            total = sum(len(r.unreached) for r in view.reach)
            self._status(Content.assemble(
                self._stale_note, ("\u2714 reach", "$outcome-ok bold"),
                " \u00b7 each deferred tool searched by its own name words and by its "
                f"description's first sentence \u00b7 {total:,} unreached across "
                f"{', '.join(view.profiles) or 'no profile'}"))
        self._fill_figures(view)
        if view.error and not view.profiles:
            self.query_one("#recall-misses", SortableTable).set_columns(())
            self.query_one("#recall-misses-head", Static).update("")
            self._picks = {}
            return
        self._fill_misses(view)

    def _fill_figures(self, view: RecallView) -> None:
        table = self.query_one("#recall-figures", DataTable)
        table.clear(columns=True)
        profiles = view.profiles
        if not profiles:
            return
        table.add_column("Figure", key="figure", width=24)
        for profile in profiles:
            table.add_column(profile, key=profile, width=16)
        if view.kind == "recall":
            for key, label in RECALL_FIGURES:
                table.add_row(label, *(recall_cell(r, key) for r in view.recall), key=key)
        else:
            for key, label in REACH_FIGURES:
                table.add_row(label, *(reach_cell(r, key) for r in view.reach), key=key)

    def _fill_misses(self, view: RecallView) -> None:
        table = self.query_one("#recall-misses", SortableTable)
        head = self.query_one("#recall-misses-head", Static)
        self._picks = {}
        if view.kind == "recall":
            table.set_columns(MISS_COLUMNS)
            rows = [(f"{r.profile}:{i}", r.profile, m.query, ", ".join(m.gold),
                     _short(m.returned))
                    for r in view.recall for i, m in enumerate(r.misses)]
            # a query file's text is shown with its escapes as text (ESC[2J in a query reached
            # the terminal raw); the pick keeps the query as written, for Search
            table.set_rows([(key, (profile, Content(shown(query, one_line=True)),
                                   Content(shown(gold, one_line=True)),
                                   Content(shown(returned, one_line=True))))
                            for key, profile, query, gold, returned in rows])
            self._picks = {key: query for key, _, query, _, _ in rows}
            head.update(Content.assemble(("Misses", "bold"), _misses_note(view, len(rows))))
        else:
            table.set_columns(UNREACHED_COLUMNS)
            lines: list[tuple[str, tuple[object, ...]]] = []
            for r in view.reach:
                for i, u in enumerate(r.unreached):
                    key = f"{r.profile}:{i}"
                    lines.append((key, (r.profile, Content(shown(u.name, one_line=True)),
                                        Content("; ".join(u.reasons)))))
                    self._picks[key] = u.description_query or u.name_query
            table.set_rows(lines)
            count = len(lines)
            head.update(Content.assemble(("Unreached", "bold"), f" ({count:,}): neither "
                                         "query finds the tool in the top 5" if count else
                                         ": none, every deferred tool is found by its own "
                                         "words"))


def _misses_note(view: RecallView, count: int) -> str:
    """The line over the misses: how many, or why there are none (every scored query found a
    gold tool, or no query could be scored at all)."""
    if count:
        return f" ({count:,}): no gold tool in the top 5"
    scored = max((r.n for r in view.recall), default=0)
    skipped = max((r.skipped for r in view.recall), default=0)
    if not scored:
        return (f": none, and no query was scored ({skipped:,} skipped: their gold names are "
                "not deferred tools here)")
    if skipped:
        return (f": none, every scored query found a gold tool in the top 5 ({skipped:,} "
                "skipped: gold names not deferred tools here)")
    return ": none, every query found a gold tool in the top 5"
