"""Work done ahead of a first show, once the app is up and the operator is idle.

A tab shown for the first time is laid out for the first time: Textual arranges each of its
containers and works out every auto-sized widget's box (Tuning: ~70 widgets in 13 auto-height
rows, 30-50 ms of a 100-150 ms first show at 4,900 tools). The arrangements are cached per
widget and size, so the hidden tabs are arranged here ahead of time, one tab per step, while
no key, mouse event or new session has come for :data:`IDLE_S`: their first show then finds
the layout work done; a further step per tab works out each widget's visual style (the
colours its ancestors give it), which Textual keeps until the widget is restyled. Nothing is
drawn: the arrangement runs on a throwaway compositor whose
map is dropped (the screen's own compositor is not touched); only the widgets' sizes are set,
to what the first show gives them. The app does this for its main tabs once the panes have
mounted, the Listing pane for its hidden forms (filling their text first) each time it is
shown or its texts change.

Textual 8.2.8 internals (``Compositor._arrange_root``): re-check on an upgrade.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual._compositor import Compositor
from textual.widget import Widget
from textual.widgets import ContentSwitcher, TabbedContent, TabPane

IDLE_S = 0.2
"""Seconds without a key, mouse event or new session before a step runs."""
STEP_S = 0.05
"""Seconds between steps (each lays out one hidden tab: at most ~20 ms, once)."""
PASSES = 3
"""At most this many passes per tab (until no widget's size changes)."""


def style_ahead(pane: Widget) -> None:
    """Work out the visual style of every widget in *pane* (the background and colour its
    ancestors give it), as its first frame would: a first show of Tuning spent ~10 ms of its
    render on these for ~60 widgets. Textual keeps each until the widget is restyled (any
    restyle, its own or an ancestor's passed down, drops it), so a style worked out here is
    the one the first frame would work out."""
    for widget in pane.walk_children(Widget, with_self=True):
        widget.visual_style  # noqa: B018 (computed and kept by Textual)


def arrange_ahead(pane: Widget, size: Any) -> bool:
    """Arrange *pane* and everything in it at *size* (filling the widgets' arrangement
    caches), as the screen's compositor will when the pane is shown, and give each widget
    the size it will have. True when some widget's size changed (its scrollbars may have
    changed with it: another pass settles them).

    The sizes matter as much as the arrangements: a widget's first size changes its
    ``virtual_size``, a reactive that asks for a layout, which throws away its ancestors'
    arrangements, so a first show was laid out twice, the second time from scratch."""
    changed = False
    for widget, geometry in Compositor()._arrange_root(pane, size, visible_only=False)[0].items():
        changed |= widget._size_updated(geometry.region.size, geometry.virtual_size,
                                        geometry.container_size, layout=False)
    return changed


class HiddenTabs:
    """Lays out the hidden panes of a :class:`TabbedContent` ahead of their first show."""

    def __init__(self, tabs: TabbedContent, last_input: Callable[[], float],
                 before: Callable[[TabPane], object] | None = None) -> None:
        """*before*: run on a hidden pane before its first pass (to fill it: a text's
        wrapped height is part of its layout)."""
        self.tabs = tabs
        self.last_input = last_input
        self.before = before
        self._done: set[str] = set()
        self._styled: set[str] = set()
        self._passes: dict[str, int] = {}
        self._running = False

    @property
    def done(self) -> bool:
        """Every hidden pane laid out and styled (until :meth:`again`)."""
        active = self.tabs.active_pane
        return all(p.id in self._done and p.id in self._styled
                   for p in _panes(self.tabs) if p is not active)

    def start(self) -> None:
        """Lay out every hidden pane not laid out yet, step by step while idle."""
        if not self._running:
            self._running = True
            self.tabs.set_timer(STEP_S, self.step)

    def again(self) -> None:
        """The hidden panes' content changed: prepare them again."""
        self._done.clear()
        self._styled.clear()
        self._passes.clear()
        self.start()

    def step(self) -> None:
        tabs = self.tabs
        app = tabs.app
        self._running = False
        if app._exit or not tabs.is_attached or not app.screen_stack:
            return  # closing
        active = tabs.active_pane
        hidden = [pane for pane in _panes(tabs) if pane is not active]
        pending = [pane for pane in hidden if pane.id not in self._done]
        unstyled = [pane for pane in hidden if pane.id not in self._styled]
        if not (pending or unstyled) or active is None:
            return  # every hidden tab laid out and styled once: done
        self._running = True
        if not active.region:
            if tabs.region:  # a tab just switched to, not laid out yet: again later
                tabs.set_timer(STEP_S, self.step)
                return
            self._running = False  # not on screen: started again when it is
            return
        if app.screen is not tabs.screen or time.monotonic() - self.last_input() < IDLE_S:
            tabs.set_timer(STEP_S, self.step)  # busy: try again later
            return
        if not pending:  # laid out: its styles, in a step of their own
            self._styled.add(unstyled[0].id or "")
            style_ahead(unstyled[0])
            tabs.set_timer(STEP_S, self.step)
            return
        pane = pending[0]
        key = pane.id or ""
        self._passes[key] = self._passes.get(key, 0) + 1
        if self._passes[key] == 1 and self.before is not None:
            self.before(pane)
        if not arrange_ahead(pane, active.region.size) or self._passes[key] >= PASSES:
            self._done.add(key)
        tabs.set_timer(STEP_S, self.step)


def _panes(tabs: TabbedContent) -> list[TabPane]:
    switcher = tabs.get_child_by_type(ContentSwitcher)
    return [child for child in switcher.children if isinstance(child, TabPane)]


def last_input_of(app: object) -> Callable[[], float]:
    """When the app last saw a key, a mouse event or a new session (tui/speed.py)."""

    def last() -> float:
        collector = getattr(app, "_collector", None)
        return collector.input_at if collector is not None else 0.0

    return last
