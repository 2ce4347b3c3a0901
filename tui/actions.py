"""The app's actions: keys, footer, palette and panes' requests share these methods.

A mixin of :class:`tui.app.ToolSearchApp`, kept apart so that ``app.py`` holds state and
routing only. Every action turns into a new immutable session state, a screen, or a worker.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from textual import events, work
from textual.app import SystemCommand
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Select, TabbedContent
from textual.worker import get_current_worker

from toolsearch.session import SessionState
from toolsearch.textsafe import shown

from . import keys
from .key_order import KeysSettled, escape_and_key
from .messages import RecallCompleted, RecallProgressed
from .pacing import underline_now
from .prepare import IDLE_S, STEP_S, HiddenTabs, last_input_of
from .recall_view import RecallStep, RecallView, reach_run, recall_basis, recall_run
from .screens.activity_detail import ActivityDetailScreen, entry_json
from .screens.call import CallDraft, CallScreen
from .screens.help import HelpScreen, draw_help_ahead, help_screen, prepare_help
from .widgets.listing import ListingPane
from .widgets.recall import RecallPane
from .widgets.search import SearchPane
from .widgets.tools import ToolsPane
from .widgets.tuning import TuningPane
from .widgets.visibility import CatchUpWhenShown

PaneT = TypeVar("PaneT", bound=Widget)
DIALOG_KEYS = frozenset({"call", "demo", "save", "reset_tuning", "help"})
"""App-wide actions that open a dialog or change the main screen: none runs while a dialog is
up (SPEC §11: a key lands where the operator sees the cursor). A dialog's own keys shadow
them once it has the cursor; these stay off while it is on its way (Ctrl+S then Ctrl+T in one
burst stacked the save dialog over the call dialog) and for palette and footer alike."""
PREPARE_S = 0.5
"""Seconds after the app mounted (and again while hidden panes are still mounting) before
the help screen is prepared."""

if TYPE_CHECKING:
    from .app import ToolSearchApp

    _Base = ToolSearchApp
else:
    _Base = object


class AppActions(_Base):
    """Actions of the app (mixed into ToolSearchApp)."""

    tabs_ahead: HiddenTabs | None = None
    """The main tabs' preparation ahead of their first show (once the panes have mounted)."""

    def action_activity_detail(self) -> None:
        if not self.activity:
            self.notify("No activity yet: Ctrl+G plays the demo, Ctrl+T calls by hand.",
                        timeout=4)
            return
        self.push_screen(ActivityDetailScreen(self.activity))

    def action_copy_activity(self) -> None:
        if self.activity:
            entry = self.activity[-1]
            self.copy_to_clipboard(json.dumps(entry_json(entry), ensure_ascii=False, indent=2,
                                              default=str))
            self.notify(f"Entry #{entry.seq} copied as JSON.", timeout=3)

    async def on_event(self, event: events.Event) -> None:
        key = event if isinstance(event, events.Key) else None
        # on its way back up from the focused widget; read before handing a new key on to
        # that widget, which marks it forwarded too
        back = key is not None and key.is_forwarded
        split = None if key is None or back else escape_and_key(key, self.focused)
        if split is not None:
            for part in split:
                await self.on_event(part)
            return
        if key is not None and not back and await self.key_order.arrived(key):
            return  # held, or its binding already run
        button = event if isinstance(event, (events.MouseDown, events.MouseUp)) and \
            not event.is_forwarded else None
        if button is not None and self.key_order.mouse_arrived(button):
            return  # made after keys that wait: it waits with them
        await super().on_event(event)  # type: ignore[misc]
        if key is not None and back:
            self.key_order.came_back(key)
        if isinstance(button, events.MouseUp):
            self.key_order.clicked(button)  # the keys after it wait for what it set off

    def on_keys_settled(self, message: KeysSettled) -> None:
        self.key_order.settled(message)

    # -- actions (keys, footer and palette share these) ---------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "command_palette" and isinstance(self.screen, ModalScreen):
            return False
        if action == "demo_pause" and not self.demo_running:
            return False  # Space does nothing without a demo: hidden (n starts one, stays)
        if action in DIALOG_KEYS and self.dialog_up():
            return None  # its key does nothing: the dialog answers first
        if action == "demo" and self.demo_running:
            return None
        return True

    def dialog_up(self) -> bool:
        """True while a dialog (help, a call, a save, an activity entry, the palette) is
        shown over the main screen, or Ctrl+S's dialog is on its way to it."""
        return self._save_on_its_way or \
            any(isinstance(s, ModalScreen) for s in self.screen_stack)

    def action_command_palette(self) -> None:
        """The palette never opens over a dialog (help, a call, a save, an entry): its
        commands act on the main screen, hidden behind the dialog."""
        if not isinstance(self.screen, ModalScreen):
            super().action_command_palette()

    def _close_open_list(self) -> None:
        """An open dropdown (a Tuning Select's list) closes, its value unchanged, as Esc
        would: a dialog opened over it left the list drawn on top and holding the cursor."""
        select = next((a for a in self.focused.ancestors_with_self if isinstance(a, Select)),
                      None) if self.focused is not None else None
        if select is not None and select.expanded:
            select.expanded = False
            self.screen.set_focus(select)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.tabbed_content.id == "main-tabs" and \
                keys.pane_of(self.focused) != (event.pane.id or "").removeprefix("tab-"):
            # the tab active now (a later switch may be under way); a cursor already in it
            # stays (`2/` typed in one burst: the filter took `/` before this message came)
            self.focus_main()

    def focus_main(self, tab: str | None = None) -> None:
        """Put the cursor in the main widget of *tab* (the active tab when None)."""
        self.call_later(self._focus_main_now, tab)

    def _focus_main_now(self, tab: str | None, tries: int = 40) -> None:
        if self._exit or not self.is_running or not self.screen_stack:
            return  # closing: the screens (and the tabs) are being taken down
        found = self.query("#main-tabs").results(TabbedContent)
        tabs = next(found, None)
        if tabs is None:
            return
        active = tabs.active.removeprefix("tab-")
        if tab is not None and tab != active:  # another tab was shown meanwhile
            return
        widget = keys.main_widget(self, active)
        if widget is not None and self.screen is widget.screen:
            if isinstance(widget, TuningPane):
                widget.start_over()
            self.screen.set_focus(widget)
        elif widget is None and tries > 0:  # its pane may still be mounting (up to 2 s)
            self.set_timer(0.05, lambda: self._focus_main_now(active, tries - 1))

    def action_leave_field(self) -> None:
        """Escape: leave a text field or control for the pane's main widget. A Tuning field
        left this way is where Tab moves on from (queued after the cursor's move to the pane,
        which starts the pane over)."""
        if isinstance(self.screen, ModalScreen):
            return
        focused = self.focused
        tab = keys.pane_of(focused)
        if tab is not None and focused is not keys.main_widget(self, tab):
            self.focus_main(tab)
        pane = next((a for a in focused.ancestors if isinstance(a, TuningPane)), None) \
            if focused is not None else None
        if pane is not None and focused is not pane:
            self.call_later(pane.left_by_escape, focused)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(help_screen(self, lambda: keys.key_map(self)))

    def _on_mount(self, event: events.Mount) -> None:  # Textual also runs the others' handlers
        self.set_timer(PREPARE_S, self._prepare_help)

    def _prepare_help(self) -> None:
        """Once the hidden panes have mounted: the help screen built and mounted, and the
        hidden tabs laid out while the operator is idle (tui/prepare.py)."""
        if self._exit or not self.screen_stack:
            return  # closing
        if self.screen.query("Lazy"):
            self.set_timer(PREPARE_S, self._prepare_help)
        else:
            prepare_help(self, lambda: keys.key_map(self))
            keys.find_main_widgets(self)
            self.tabs_ahead = HiddenTabs(self.query_one("#main-tabs", TabbedContent),
                                         last_input_of(self))
            self.tabs_ahead.start()
            self.set_timer(PREPARE_S, self._draw_help_ahead)

    def _draw_help_ahead(self) -> None:
        """The help screen laid out and drawn while the operator is idle (screens/help.py)."""
        if self._exit or not self.screen_stack:
            return  # closing
        busy = time.monotonic() - last_input_of(self)() < IDLE_S
        if busy or not draw_help_ahead(self):
            self.set_timer(STEP_S, self._draw_help_ahead)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):  # type: ignore[misc]
            if command.title == "Keys":  # the key map of every pane, not one field's keys
                yield SystemCommand("Keys", "Every key, grouped by pane (? or F1)",
                                    self.action_help)
            else:
                yield command

    def action_show_tab(self, key: str) -> None:
        """Show the *key* tab, the cursor in its main widget. Tuning's digit on Tuning starts
        the pane over: the cursor on the pane, Tab to its first field (it kept moving on from
        the field Esc had left)."""
        tabs = self.query_one("#main-tabs", TabbedContent)
        if key == "tuning" and tabs.active == "tab-tuning":
            pane = self.query_one(TuningPane)
            pane.start_over()
            if self.focused is not pane:
                self.screen.set_focus(pane)
            return
        if tabs.active == f"tab-{key}":  # already shown: the cursor goes to its main widget
            if keys.pane_of(self.focused) != key:
                self.focus_main(key)
            return
        old = tabs.active_pane
        focused = self.focused
        tabs.active = f"tab-{key}"  # the new pane is shown at once (its content switcher)
        underline_now(tabs)
        for pane in tabs.active_pane.children if tabs.active_pane is not None else ():
            if isinstance(pane, CatchUpWhenShown):
                pane.catch_up_now()  # before the first frame, not on its Show event after it
        widget = keys.main_widget(self, key)
        if widget is not None and self.screen is widget.screen:
            self.screen.set_focus(widget)  # one focus move: one restyle of the two panes
        elif old is not None and focused is not None and old in focused.ancestors:
            # Left in a hidden pane, focus would move to a sibling there, and the pane
            # taking focus would switch the tab straight back.
            self.set_focus(None)

    def with_pane(self, kind: type[PaneT], then: Callable[[PaneT], object]) -> None:
        """Run *then* on the *kind* pane. Hidden panes mount after the first frame: a key
        pressed before its pane is there is carried out once it is."""
        found = self.query(kind)
        if found:
            then(found.first())
        elif self.screen.query("Lazy"):
            self.set_timer(0.05, lambda: self.with_pane(kind, then))

    def action_show_listing(self, form: str) -> None:
        self.action_show_tab("listing")
        self.with_pane(ListingPane, lambda pane: pane.show_form(form))

    def action_focus_search(self) -> None:
        self.action_show_tab("search")
        self.with_pane(SearchPane, SearchPane.action_focus_query)

    def action_copy_sent(self) -> None:
        self.action_show_listing("sent")
        self.with_pane(ListingPane, lambda pane: pane.action_copy_form("sent"))

    def action_export_sent(self) -> None:
        self.action_show_listing("sent")
        self.with_pane(ListingPane, ListingPane.action_export)

    def action_compare_profiles(self) -> None:
        self.action_show_tab("search")
        self.with_pane(SearchPane, SearchPane.action_toggle_compare)

    def action_focus_tool_filter(self) -> None:
        self.action_show_tab("tools")
        self.with_pane(ToolsPane, ToolsPane.action_focus_filter)

    def action_toggle_attached(self, name: str) -> None:
        if self.session is not None:
            self.change(self.states_ahead.state(self.session, "attach", name))

    def action_toggle_scope(self, name: str) -> None:
        if self.session is not None:
            self.change(self.states_ahead.state(self.session, "scope", name))

    def action_reset_scope(self) -> None:
        if self.session is not None:
            self.change(self.session.with_scope(None))

    def tune(self, key: str, value: Any) -> None:
        """The operator set one ``tools.tool_search`` key (remembered for save)."""
        if self.session is not None:
            self.overrides[key] = value
            self.change(self.session.with_config(**{key: value}))

    def action_set_profile(self, profile: str) -> None:
        """Another profile: its defaults for every key the operator did not set."""
        session = self.session
        if session is not None and profile != session.config.profile.name:
            fresh = SessionState.from_workspace(session.workspace, profile=profile,
                                                context_length=session.context_length,
                                                overrides=self.overrides)
            self.change(replace(session, config=fresh.config))

    def action_set_enabled(self, value: str) -> None:
        self.tune("enabled", value)

    def action_reset_tuning(self) -> None:
        """Every field, note and value back to the loaded config (as last saved)."""
        self.overrides.clear()
        self.overrides.update(self.saved_values)  # the file holds these now
        if self.session is not None and self._initial is not None:
            self.change(replace(self.session, config=self._initial.config,
                                context_length=self._initial.context_length))
        for tuning in self.query(TuningPane):  # not mounted yet: it mounts with these values
            tuning.reset_fields()
        if keys.pane_of(self.focused) == "tuning":
            self.focus_main("tuning")

    def action_call(self) -> None:
        self._close_open_list()
        if self.session is None:
            return
        row = next((pane.table.cursor_value for pane in self.query(ToolsPane)), None)
        name = row.name if row else ""
        refused = ""
        if row is not None and row.status != "deferred":  # the bridge takes deferred only
            direct = " (the model calls it directly)" if row.status == "visible" else ""
            refused = shown(f"'{name}' is {row.status}{direct}: tool_describe and tool_call "
                            "take deferred tools only and would refuse it. Type a deferred "
                            "tool's name, or pick tool_search and a query.", one_line=True)
        self.push_screen(CallScreen.reopened(self.dispatch, self.call_draft, name,
                                             self._keep_call_draft, refused))

    call_draft: CallDraft | None = None

    def _keep_call_draft(self, draft: CallDraft) -> None:
        self.call_draft = draft

    def action_run_recall(self) -> None:
        self.action_show_tab("recall")
        self.with_pane(RecallPane, RecallPane.action_run)

    def action_run_reach(self) -> None:
        self.action_show_tab("recall")
        self.with_pane(RecallPane, RecallPane.action_reach)

    def _start_recall(self, kind: str, path: str, profiles: tuple[str, ...]) -> None:
        if self.session is None or self.recall_running:
            return
        self.recall_step = RecallStep(0, len(profiles), "starting")
        self._recall_worker(self.session, kind, path, profiles)

    @work(thread=True, exclusive=True, group="recall", exit_on_error=False,
          description="recall / reach benchmark")
    def _recall_worker(self, session: SessionState, kind: str, path: str,
                       profiles: tuple[str, ...]) -> None:
        worker = get_current_worker()

        def progress(step: RecallStep) -> None:
            self.post_message(RecallProgressed(step))

        def cancelled() -> bool:
            return worker.is_cancelled

        key = id(session)
        try:
            view = (recall_run(session, path, profiles, progress, cancelled, key)
                    if kind == "recall" else reach_run(session, profiles, progress, cancelled,
                                                       key))
        except Exception as exc:  # never a crash: one line in the pane
            view = RecallView(kind, path, error=str(exc) or type(exc).__name__)
        self.post_message(RecallCompleted(replace(view, basis=recall_basis(session))))

    def action_clear_feed(self) -> None:
        self.activity = ()
