"""The keyboard contract (SPEC §11, STYLE §13): where the cursor goes when a pane is shown,
how a text field gives Escape and Enter back, and the key map the help screen shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from textual import events
from textual.binding import Binding
from textual.color import Color
from textual.widget import Widget
from textual.widgets import Input, TabbedContent, TabPane, TextArea
from textual.widgets._tabbed_content import ContentTabs

from .widgets.visibility import is_shown

if TYPE_CHECKING:
    from textual.app import App

MAIN_WIDGET: dict[str, str] = {
    "servers": "#servers-table",
    "tools": "#tools-table",
    "listing": "#listing TextView",
    "search": "#search-hits DataTable",
    "activity": "#feed-log",
    "tuning": "#tuning",
    "recall": "#recall-misses",
}
"""Per tab, the widget that takes the cursor when the tab is shown (the first one on screen)."""


class ClickedTabs(TabbedContent):
    """Tabs whose bar never takes the cursor: a click on a tab shows its pane (whose main
    widget then takes the cursor, as with the tab's key) and a click on the tab already shown
    leaves the cursor where it was. A stock bar took the cursor on every click: clicking the
    tab already shown left it in the bar, where none of the pane's keys worked (no `a` in
    Servers, no `]` or scrolling in Listing) and the footer showed no pane key."""

    def on_mount(self) -> None:
        self.get_child_by_type(ContentTabs).can_focus = False


class QuietTabPane(TabPane):
    """A tab pane that never switches the tab when something inside it takes the cursor.

    The app switches tabs explicitly and then focuses the shown pane's main widget; a stock
    ``TabPane`` would also switch to whichever pane a late focus lands in, flipping the tab
    back after a quick second switch (``2`` then ``1``).
    """

    def _on_descendant_focus(self, event: events.DescendantFocus) -> None:
        event.prevent_default()  # Textual would run TabPane's handler too (every class's)


def holds_text(widget: Widget | None) -> bool:
    """True when *widget* is a text field: printable keys belong to it."""
    return isinstance(widget, Input | TextArea)


def main_widget(app: App[object], tab: str) -> Widget | None:
    """The widget that takes the cursor when *tab* is shown."""
    selector = MAIN_WIDGET.get(tab)
    if selector is None:
        return None
    if tab == "listing":  # the text of the form tab that is (or is about to be) shown
        from .widgets.listing import ListingPane

        panes = _matches(app, "ListingPane")
        if not panes:  # still mounting (hidden panes mount after the first frame)
            return None
        pane = panes[0]
        assert isinstance(pane, ListingPane)
        selector = f"#listing-text-{pane.active_form}"
    for widget in _matches(app, selector):
        if widget.focusable and is_shown(widget):
            return widget
    return None


_found: WeakKeyDictionary[object, dict[str, tuple[Widget, ...]]] = WeakKeyDictionary()


def find_main_widgets(app: App[object]) -> None:
    """Look every tab's main widget up once, before its tab is first shown (the app calls
    this once the panes have mounted): the first look-up walks every node, 2-4 ms of a
    first show at 4,900 tools."""
    for tab in MAIN_WIDGET:
        main_widget(app, tab)


def _matches(app: App[object], selector: str) -> tuple[Widget, ...]:
    """The widgets of the current screen matching *selector*, remembered once found (a
    query walks every node: ~5 ms at each tab switch). Panes mount whole and stay, so a
    non-empty answer holds while its widgets are attached to this screen."""
    screen = app.screen
    held = _found.setdefault(screen, {})
    widgets = held.get(selector)
    if widgets and all(w.is_attached and w.screen is screen for w in widgets):
        return widgets
    widgets = tuple(screen.query(selector))
    held[selector] = widgets
    return widgets


def pane_of(widget: Widget | None) -> str | None:
    """The tab key (``servers``, ``tools``…) of the pane holding *widget*."""
    for node in widget.ancestors_with_self if widget is not None else ():
        pane_id = getattr(node, "id", None)
        if pane_id == "feed":
            return "activity"
        if pane_id in MAIN_WIDGET:
            return str(pane_id)
    return None


PANE_IDS = frozenset({"servers", "tools", "listing", "search", "feed", "tuning", "recall"})


class FocusEdge:
    """The focused pane's left edge: a double line in the theme's accent, drawn as an inline
    style on the pane alone (STYLE §9: focus visible without colour, the glyph changes).

    A pane hidden by a tab switch keeps its edge while hidden: clearing it repainted the
    whole pane when the tab was shown again and the edge came back (28 lines, ~2 ms of the
    switch at 120x40). A pane with a kept edge that is shown while the cursor is elsewhere
    loses it at the next move of the cursor."""

    def __init__(self, app: App[object]) -> None:
        self.app = app
        self.pane: Widget | None = None
        self._kept: list[Widget] = []

    def moved(self, focused: Widget | None) -> None:
        pane = next((node for node in focused.ancestors_with_self
                     if isinstance(node, Widget) and node.id in PANE_IDS), None) \
            if focused is not None else None
        if pane is self.pane:
            return
        if self.pane is not None:
            self._kept.append(self.pane)
        for old in list(self._kept):
            if old is pane:
                self._kept.remove(old)
            elif is_shown(old):
                self._kept.remove(old)
                old.styles.clear_rule("border_left")
                old.refresh()
        self.pane = pane
        self.paint()

    def paint(self) -> None:
        """(Re)draw the edge, in the current theme's accent."""
        if self.pane is not None:
            accent = self.app.theme_variables.get("accent", "ansi_bright_blue")
            self.pane.styles.border_left = ("double", Color.parse(accent))


# -- the key map -------------------------------------------------------------------------

GLOBAL_KEYS: tuple[tuple[str, str], ...] = (
    ("1 \u2026 7", "switch tab (outside a text field)"),
    ("? / F1", "this key map"),
    ("q / Ctrl+Q", "quit (q: outside a text field)"),
    ("Esc", "leave a text field"),
    ("Tab / Shift+Tab", "next / previous field"),
    ("Ctrl+P", "command palette: every action by name"),
)


KEY_NAMES = {"slash": "/", "question_mark": "?", "space": "Space", "escape": "Esc",
             "enter": "Enter", "delete": "Del", "left_square_bracket": "[",
             "right_square_bracket": "]", "left": "\u2190", "right": "\u2192"}


def _key_name(key: str) -> str:
    key = key.strip()
    if key in KEY_NAMES:
        return KEY_NAMES[key]
    parts = key.split("+")
    last = KEY_NAMES.get(parts[-1]) or (parts[-1].upper() if len(parts) > 1 or
                                        parts[-1].startswith("f") else parts[-1])
    return "+".join(p.capitalize() if len(p) > 1 else p for p in parts[:-1]) + \
        ("+" if len(parts) > 1 else "") + last


def _key_text(binding: Binding) -> str:
    return " / ".join(_key_name(k) for k in binding.key.split(","))


def bindings_of(cls: type) -> Iterable[Binding]:
    """The bindings of the nearest class that declares them, if it is one of the app's own
    (not the arrows and pages a pane inherits from Textual's scroll container)."""
    owner = next((k for k in cls.__mro__ if "BINDINGS" in k.__dict__), None)
    if owner is None or owner.__module__.split(".")[0] != __name__.split(".")[0]:
        return
    for binding in owner.__dict__["BINDINGS"]:
        if isinstance(binding, Binding) and binding.description:
            yield binding


def key_map(app: App[object]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(section, [(keys, what)]) for the help screen: global keys, then each pane's."""
    from .widgets.bigtable import BigTable
    from .widgets.feed import ActivityFeed
    from .widgets.listing import ListingPane
    from .widgets.recall import RecallPane
    from .widgets.search import SearchPane
    from .widgets.servers import ServersPane
    from .widgets.tools import ToolsPane
    from .widgets.tuning import TuningPane

    sections: list[tuple[str, list[tuple[str, str]]]] = []
    app_keys = [(_key_text(b), b.description) for b in bindings_of(type(app))
                if not (b.id or "").startswith(("view.", "app."))]
    sections.append(("Everywhere", [*GLOBAL_KEYS, *app_keys]))
    table = [("\u2191 \u2193 PgUp PgDn Home End", "move the row cursor"),
             *((_key_text(b), b.description) for b in bindings_of(BigTable)
               if b.key in ("S",))]
    for title, cls, extra in (
        ("Servers", ServersPane, table + [("Enter", "the row's tools, in Tools")]),
        ("Tools", ToolsPane, table),
        ("Listing", ListingPane, [("\u2190 \u2192", "Full, Names, Summary, Sent (on the tab "
                                   "bar)"), ("\u2191 \u2193 PgUp PgDn Home End", "scroll the text")]),
        ("Search", SearchPane, [("Esc", "back from the query box to the hits"),
                                ("S", "sort the hits by the next column (or click a header)")]),
        ("Activity", ActivityFeed, []),
        ("Tuning", TuningPane, [("Tab", "next field"), ("Enter / Esc", "leave a number field"),
                                ("Ctrl+U", "clear a number field before typing")]),
        ("Recall", RecallPane, [("S", "sort the misses by the next column (or click a "
                                     "header)"),
                                ("Enter", "on a miss: try its query in Search")]),
    ):
        keys = [(_key_text(b), b.description) for b in bindings_of(cls)]
        sections.append((title, keys + [k for k in extra if k not in keys]))
    # the dialogs' keys: the detail's walk and copy, the Call dialog's send and the save
    # confirmation were in no section (only on the dialogs themselves, once open)
    from .screens.activity_detail import ActivityDetailScreen
    from .screens.call import CallScreen
    from .screens.confirm_save import ConfirmSaveScreen

    for title, cls in (("Activity detail (Enter on Activity)", ActivityDetailScreen),
                       ("Call dialog (Ctrl+T)", CallScreen),
                       ("Save dialog (Ctrl+S)", ConfirmSaveScreen)):
        keys = [(_key_text(b), b.description) for b in bindings_of(cls)
                if not (b.id or "").startswith("leave_for.")]
        if any((b.id or "").startswith("leave_for.") for b in bindings_of(cls)):
            keys.append(("1 \u2026 7", "close it and switch tab"))
        sections.append((title, keys))
    return sections


KEYS_BINDINGS: tuple[Binding, ...] = (
    Binding("question_mark,f1", "help", "Keys", id="app.help"),
    Binding("q", "quit", "Quit", show=False, id="app.quit_q"),
    Binding("ctrl+q", "quit", "Quit", priority=True, id="app.quit"),
    Binding("escape", "leave_field", "Leave field", show=False, id="app.leave_field"),
)
"""The app's keyboard-contract bindings (app.py adds them to its own)."""
