"""The toolsearch app: state and routing only.

State lives here as reactives holding immutable values (the :class:`SessionState`, exact
counts, search results, activity); panes are bound one way with ``data_bind`` and talk back
only through messages. Heavy work runs in workers (STYLE §3, §5).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.reactive import Reactive, reactive
from textual.screen import Screen
from textual.worker import get_current_worker

from toolsearch.bridge import Bridge, BridgeReply, DryRunExecutor, Executor
from toolsearch.session import SessionState
from toolsearch.textsafe import shown
from toolsearch.toolsets import Workspace

from . import services
from .actions import AppActions
from .activity import ActivityEntry, clip
from .ahead import StatesAhead
from .commands import TABS, ToolSearchCommands
from .demo_actions import DemoActions
from .key_order import KeyOrder
from .keys import KEYS_BINDINGS, ClickedTabs, FocusEdge, QuietTabPane
from .messages import (
    ActivityLogged,
    ExactCountsReady,
    RecallCompleted,
    RecallProgressed,
    SaveRequested,
    SearchCompleted,
    WorkspaceFailed,
    WorkspaceLoaded,
)
from .prepare import last_input_of
from .recall_view import RecallStep, RecallView, default_query_file
from .save_actions import SaveActions
from .search_view import SearchView, search_view
from .speed import AppSpeedups
from .themes import DEFAULT_THEME, load_themes, slot_defaults
from .view import ExactCounts, exact_counts
from .widgets.feed import ActivityFeed
from .widgets.footer import KeyFooter
from .widgets.gauges import GaugesPane
from .widgets.header import QuietHeader
from .widgets.lazy_pane import LazyPane, QuitAfterMounts
from .widgets.listing import ListingPane
from .widgets.recall import RecallPane
from .widgets.search import SearchPane
from .widgets.servers import ServersPane
from .widgets.tools import ToolsPane
from .widgets.tuning import TuningPane

MAX_ACTIVITY = 500
EXACT_DELAY = 0.3
SEARCH_DELAY = 0.1
"""Seconds after a change before the shown query is searched again."""
NARROW = 100
SHORT = 32
"""Below this many lines the Tools explanation keeps one line per part (see app.tcss)."""


class ToolSearchApp(QuitAfterMounts, AppSpeedups, AppActions, SaveActions, DemoActions,
                    App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "toolsearch"
    COMMANDS = App.COMMANDS | {ToolSearchCommands}
    BINDINGS = [
        *(Binding(str(i), f"show_tab('{key}')", title, show=False, id=f"view.{key}")
          for i, (key, title) in enumerate(TABS, start=1)),
        *KEYS_BINDINGS,
        Binding("ctrl+t", "call", "Call", id="feed.call"),
        Binding("ctrl+g", "demo", "Demo", id="demo.play"),
        Binding("ctrl+s", "save", "Save", id="tuning.save"),
        Binding("ctrl+r", "reset_tuning", "Reset tuning", id="tuning.reset"),
    ]
    AUTO_FOCUS = "*"

    # State for the panes (each bound one way repaints itself): no repaint of the whole screen
    # on a change, a frame of its own after the panes' (8-10 ms per tuning change)
    session: reactive[SessionState | None] = reactive(None, init=False, repaint=False)
    exact: reactive[ExactCounts | None] = reactive(None, init=False, repaint=False)
    search: reactive[SearchView | None] = reactive(None, init=False, repaint=False)
    activity: reactive[tuple[ActivityEntry, ...]] = reactive((), init=False, repaint=False)
    save_target: reactive[str] = reactive("", init=False, repaint=False)
    demo_running: reactive[bool] = reactive(False, bindings=True)
    recall: reactive[RecallView | None] = reactive(None, init=False, repaint=False)
    recall_step: reactive[RecallStep | None] = reactive(None, init=False, repaint=False)
    query_file: reactive[str] = reactive("", init=False, repaint=False)
    # the subtitle names the tier: its header repaints itself (Textual's own repaints the
    # whole screen, 5-12 ms of a tuning change that moves the tier)
    sub_title: Reactive[str] = Reactive("", compute=False, repaint=False)
    title_parts: tuple[str, str] = ("", "")
    """The subtitle's workspace name and its tier and profile (a gateway's state goes
    between them)."""

    def __init__(self, sources: Sequence[str] = (), *, workspace: Workspace | None = None,
                 context: int | None = None, profile: str = "seed", theme: str | None = None,
                 clock: Callable[[], float] = time.perf_counter, demo: bool = False,
                 wall_clock: Callable[[], float] = time.monotonic,
                 demo_delay: float = 0.9, executor: Executor | None = None,
                 themes_folder: Path | None = None, exact: bool = True,
                 exact_delay: float = EXACT_DELAY, timeout: float | None = None) -> None:
        super().__init__()
        self.sources = tuple(sources)
        self.server_timeout = timeout  # --timeout: listing and calls of live servers
        self.clock = clock
        self.wall_clock = wall_clock  # activity times (fake in tests and snapshots)
        self._started = wall_clock()
        self.demo_delay = demo_delay
        self._start_demo = demo
        self._context_length = context
        self._profile = profile
        self._executor = executor
        self._exact_enabled = exact
        self._exact_delay = exact_delay
        self._exact_timer: Any = None
        self._search_timer: Any = None
        self._seq = 0
        self.key_order = KeyOrder(self)  # keys in the order typed, also in a burst
        self.states_ahead = StatesAhead(self, last_input_of(self))  # `a`/`s` worked out ahead
        self._initial: SessionState | None = None
        self._query: tuple[str, bool] = ("", False)
        self.overrides: dict[str, Any] = {}  # tools.tool_search keys the operator changed
        self.saved_values: dict[str, Any] = {}  # keys saved since launch: Ctrl+R keeps them
        self.startup_notes: list[str] = []
        loaded = load_themes(themes_folder)
        for t in loaded.themes:
            self.register_theme(t)
        self.startup_notes.extend(loaded.errors)
        wanted = theme or DEFAULT_THEME
        if self.get_theme(wanted) is None:
            self.startup_notes.append(f"unknown theme {wanted!r}; using {DEFAULT_THEME}")
            wanted = DEFAULT_THEME if self.get_theme(DEFAULT_THEME) else "textual-dark"
        self.theme = wanted
        queries = default_query_file(self.sources)
        self.set_reactive(ToolSearchApp.query_file, str(queries) if queries else "")
        if workspace is not None:
            self._install(workspace, quiet=True)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Every notification as plain, escaped text (*markup* is ignored): messages hold
        names, paths and source warnings, and a ``[/]`` in a tool name raised MarkupError and
        closed the app; an escape sequence in one would drive the terminal."""
        super().notify(shown(message), title=shown(title, one_line=True), severity=severity,
                       timeout=timeout, markup=False)

    # -- layout ----------------------------------------------------------------------

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return slot_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield QuietHeader()
        yield GaugesPane(id="gauges").data_bind(session=ToolSearchApp.session,
                                                exact=ToolSearchApp.exact)
        with ClickedTabs(id="main-tabs"):
            for i, (key, title) in enumerate(TABS, start=1):
                with QuietTabPane(f"{i} {title}", id=f"tab-{key}"):
                    # only the first tab shows at start: the others mount after the first frame
                    yield from (self._pane(key) if i == 1 else map(LazyPane, self._pane(key)))
        yield KeyFooter(id="footer")

    def _pane(self, key: str) -> ComposeResult:
        app = ToolSearchApp
        if key == "servers":
            yield ServersPane(id="servers").data_bind(session=app.session, exact=app.exact)
        elif key == "tools":
            yield ToolsPane(id="tools").data_bind(session=app.session)
        elif key == "listing":
            yield ListingPane(id="listing").data_bind(session=app.session)
        elif key == "search":
            yield SearchPane(id="search").data_bind(result=app.search)
        elif key == "activity":
            yield ActivityFeed(id="feed").data_bind(activity=app.activity)
        elif key == "recall":
            yield RecallPane(id="recall").data_bind(view=app.recall, step=app.recall_step,
                                                    default_path=app.query_file,
                                                    session=app.session)
        else:
            yield TuningPane(id="tuning").data_bind(session=app.session,
                                                    save_target=app.save_target)

    def on_mount(self) -> None:
        self._focus_edge = FocusEdge(self)
        self.watch(self.screen, "focused", self._focus_edge.moved)
        self.watch(self.screen, "focused", lambda _f: self.key_order.focus_moved(), init=False)
        self.theme_changed_signal.subscribe(self, lambda _theme: self._focus_edge.paint())
        for note in self.startup_notes:
            self.notify(note, title="Themes", severity="warning", timeout=8)
        if self.session is None:
            self.sub_title = "loading sources\u2026"
            self.run_worker(self._load, group="load", exclusive=True, exit_on_error=False,
                            description="load sources")
        else:
            self.watch_session(self.session)
            self._after_install()

    def fit_width(self, width: int, screen: Screen[Any], height: int = 0) -> None:
        """The narrow layout (``-narrow`` on the app's screen) below NARROW columns, the
        short one (``-short-terminal``) below SHORT lines."""
        screen.set_class(0 < width < NARROW, "-narrow")
        screen.set_class(0 < height < SHORT, "-short-terminal")

    # -- loading ---------------------------------------------------------------------

    async def _load(self) -> None:
        try:
            workspace = await services.load_workspace(self.sources, timeout=self.server_timeout)
        except Exception as exc:  # a source that cannot be read: one clear line
            self.post_message(WorkspaceFailed(str(exc) or type(exc).__name__))
            return
        self.post_message(WorkspaceLoaded(workspace))

    @on(WorkspaceLoaded)
    def _loaded(self, message: WorkspaceLoaded) -> None:
        if self._executor is None:
            self._executor = services.make_executor(self.sources, message.workspace,
                                                    timeout=self.server_timeout)
        self._install(message.workspace)
        self._after_install()

    @on(WorkspaceFailed)
    def _failed(self, message: WorkspaceFailed) -> None:
        self.sub_title = "no sources loaded"
        self.notify(message.error, title="Could not load sources", severity="error", timeout=30)
        self._install(Workspace(name="(nothing loaded)"))

    def _install(self, workspace: Workspace, *, quiet: bool = False) -> None:
        state = SessionState.from_workspace(workspace, profile=self._profile,
                                            context_length=self._context_length)
        self._initial = state
        target = services.hermes_target(self.sources)
        if quiet:  # in __init__: no watcher may run before the app is running
            self.set_reactive(ToolSearchApp.session, state)
            self.set_reactive(ToolSearchApp.save_target, str(target) if target else "")
            return
        self.session = state
        self.save_target = str(target) if target else ""

    def _after_install(self) -> None:
        # The workspace is long-lived: keep the collector from rescanning it on every
        # full collection (a 5,000-tool catalog made those ~120 ms pauses).
        self.call_after_refresh(gc.freeze)
        session = self.session
        if session is not None and session.workspace.warnings:
            count = len(session.workspace.warnings)
            self.notify("\n".join(session.workspace.warnings[:5]) +
                        (f"\n\u2026 and {count - 5} more" if count > 5 else ""),
                        title=f"{count} source warning(s)", severity="warning", timeout=10)
        if self._start_demo:
            self._start_demo = False
            self.action_demo()

    # -- the session and what follows from it ------------------------------------------

    def watch_session(self, session: SessionState | None) -> None:
        if session is None:
            return
        a = session.assembly
        name = shown(session.workspace.name or "workspace", one_line=True)  # a catalog's own
        self.title_parts = (name, f" \u00b7 tier {a.tier} \u00b7 {session.config.profile}")
        self.sub_title = "".join(self.title_parts)
        if self._exact_enabled:
            if self._exact_timer is not None:
                self._exact_timer.stop()
            if self._exact_delay > 0:
                self._exact_timer = self.set_timer(self._exact_delay, self._count_exact)
            else:
                self.call_later(self._count_exact)
        if self._query[0]:  # searched again once the change rests: a search thread started
            # inside a key competed with it for the interpreter (a Tuning digit +20-40 ms)
            if self._search_timer is not None:
                self._search_timer.stop()
            self._search_timer = self.set_timer(SEARCH_DELAY, self._search_again)

    def _search_again(self) -> None:
        self._search_timer = None
        if self._query[0]:
            self._run_search(*self._query)

    def _count_exact(self) -> None:
        if self.session is not None:
            self._exact_worker(self.session)

    @work(thread=True, exclusive=True, group="exact", exit_on_error=False,
          description="exact token counts")
    def _exact_worker(self, session: SessionState) -> None:
        counts = exact_counts(session, id(session))
        if not get_current_worker().is_cancelled:
            self.post_message(ExactCountsReady(counts))

    @on(ExactCountsReady)
    def _exact_ready(self, message: ExactCountsReady) -> None:
        if self.session is not None and message.counts.session_key == id(self.session):
            self.exact = message.counts

    def change(self, state: SessionState) -> None:
        """Replace the session with a new immutable state: every pane recomputes."""
        self.session = state

    @on(ServersPane.AttachToggled)
    def _attach(self, message: ServersPane.AttachToggled) -> None:
        self.action_toggle_attached(message.toolset)

    @on(ServersPane.ScopeToggled)
    def _scope(self, message: ServersPane.ScopeToggled) -> None:
        self.action_toggle_scope(message.toolset)

    @on(ServersPane.ToolsWanted)
    def _tools_of(self, message: ServersPane.ToolsWanted) -> None:
        self.action_show_tab("tools")
        self.query_one(ToolsPane).set_filter(message.toolset_id)

    @on(ServersPane.ServerHighlighted)
    def _server_highlighted(self, message: ServersPane.ServerHighlighted) -> None:
        self.states_ahead.want(message.toolset)

    @on(TuningPane.ValueChanged)
    def _tuned(self, message: TuningPane.ValueChanged) -> None:
        self.tune(message.key, message.value)

    @on(TuningPane.ContextChanged)
    def _context_changed(self, message: TuningPane.ContextChanged) -> None:
        if self.session is not None and message.context_length != self.session.context_length:
            self.change(self.session.with_context(message.context_length))

    @on(TuningPane.ProfileChanged)
    def _profile_changed(self, message: TuningPane.ProfileChanged) -> None:
        self.action_set_profile(message.profile)

    @on(TuningPane.ResetRequested)
    def _reset(self, message: TuningPane.ResetRequested) -> None:
        self.action_reset_tuning()

    # -- search ----------------------------------------------------------------------

    @on(SearchPane.QuerySubmitted)
    def _query_submitted(self, message: SearchPane.QuerySubmitted) -> None:
        self._query = (message.query, message.compare)
        self._run_search(message.query, message.compare)

    def _run_search(self, query: str, compare: bool) -> None:
        if self.session is not None:
            self._search_worker(self.session, query, compare)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False,
          description="tool_search")
    def _search_worker(self, session: SessionState, query: str, compare: bool) -> None:
        result = search_view(session, query, compare, id(session))
        if not get_current_worker().is_cancelled:
            self.post_message(SearchCompleted(result))

    @on(SearchCompleted)
    def _search_done(self, message: SearchCompleted) -> None:
        self.search = message.result

    # -- recall and reach ------------------------------------------------------------------

    @property
    def recall_running(self) -> bool:
        step = self.recall_step
        return step is not None and step.done < step.total

    @on(RecallPane.RunRequested)
    def _recall_requested(self, message: RecallPane.RunRequested) -> None:
        self._start_recall("recall", message.path, message.profiles)

    @on(RecallPane.ReachRequested)
    def _reach_requested(self, message: RecallPane.ReachRequested) -> None:
        self._start_recall("reach", "", message.profiles)

    @on(RecallPane.QueryPicked)
    def _query_picked(self, message: RecallPane.QueryPicked) -> None:
        self.action_show_tab("search")
        self.with_pane(SearchPane, lambda pane: pane.set_query(message.query))

    @on(RecallProgressed)
    def _recall_progressed(self, message: RecallProgressed) -> None:
        self.recall_step = message.step

    @on(RecallCompleted)
    def _recall_done(self, message: RecallCompleted) -> None:
        step = self.recall_step
        total = step.total if step is not None else 0
        self.recall_step = RecallStep(total, total, "done")
        self.recall = message.view

    # -- bridge calls and the feed -------------------------------------------------------

    def bridge(self, session: SessionState | None = None, executor: Executor | None = None
               ) -> Bridge:
        state = session or self.session
        assert state is not None
        return state.bridge(executor or self._executor or DryRunExecutor(), clock=self.clock)

    async def dispatch(self, bridge_name: str, args: dict[str, Any]) -> BridgeReply:
        """Run one bridge call on the current session and log it (the Call dialog's path)."""
        reply = await self.bridge().dispatch(bridge_name, args)
        self.post_message(ActivityLogged(reply.activity, reply, clip(reply.activity.summary)))
        return reply

    @on(SaveRequested)
    def _save_requested(self, message: SaveRequested) -> None:
        self.save_requested(message.path)

    @on(ActivityLogged)
    def _logged(self, message: ActivityLogged) -> None:
        self._seq += 1
        result = message.reply.result if message.reply else None
        entry = ActivityEntry(self._seq, message.event, message.note, result,
                              at=self.wall_clock() - self._started, earlier=message.earlier)
        self.activity = (*self.activity[-(MAX_ACTIVITY - 1):], entry)



def run_app(sources: list[str], *, context: int | None, profile: str,
            theme: str | None, timeout: float | None = None) -> None:
    """Open the app on SOURCEs (the sample ``seed-demo`` when none are given)."""
    ToolSearchApp(sources or [services.DEFAULT_SOURCE], context=context, profile=profile,
                  theme=theme, timeout=timeout).run()


def run_demo(sources: list[str] | None = None, *, context: int | None = None,
             profile: str = "seed", theme: str | None = None,
             timeout: float | None = None) -> None:
    """Open the app and play the scripted demo through the activity feed at once."""
    ToolSearchApp(sources or [services.DEFAULT_SOURCE], context=context, profile=profile,
                  theme=theme, demo=True, timeout=timeout).run()
