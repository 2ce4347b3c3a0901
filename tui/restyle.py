"""A hidden widget's restyle waits until it is shown again (measured with ``toolsearch bench tui``).

A tab switch moves the cursor from the old pane's main widget to the new one's. The old pane
is hidden first, and then its widget loses focus: Textual restyles it at once (its ``:focus``
rules, nine component classes for a table, its scrollbars: 1.5-2.5 ms of a switch at 4,900
tools), for a look nobody sees. When the tab is shown again the widget takes the cursor back
and is restyled again, to the look it had. :class:`HiddenRestyles` keeps the restyle of a
hidden widget without children whose focus changed since its last restyle until the widget
is shown: a restyle asked for meanwhile (the focus coming back) replaces it, and any still
waiting when a screen lays out a frame (a tab shown by a click, a form of the Listing tab)
runs before that layout, so every widget drawn has the styles of its present state. Only
focus changes wait (other restyles of hidden widgets, a Tuning field's class after a change,
run as before, outside the key that shows them), and only in widgets without children (a
container's restyle covers its whole subtree).

Textual 8.2.8 internals (``App.update_styles``, ``Screen._refresh_layout``): re-check on an
upgrade.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary, WeakSet

from textual.dom import DOMNode
from textual.widget import Widget

from .widgets.visibility import is_shown

if TYPE_CHECKING:
    from textual.app import App

    _Base = App[None]
else:
    _Base = object


class HiddenRestyles(_Base):
    """Mixin for the app (before ``App`` in the bases): restyles of hidden widgets without
    children wait until they are shown (see the module's docstring)."""

    _restyle_when_shown: WeakSet[Widget] | None = None
    _styled_focus: WeakKeyDictionary[Widget, bool] | None = None

    def update_styles(self, node: DOMNode, animate: bool = True) -> None:
        waiting = self._restyle_when_shown
        styled = self._styled_focus
        if waiting is None or styled is None:
            waiting = self._restyle_when_shown = WeakSet()
            styled = self._styled_focus = WeakKeyDictionary()
        if isinstance(node, Widget) and not node._nodes:
            if (node in waiting or styled.get(node, node.has_focus) != node.has_focus) \
                    and node.is_attached and not is_shown(node):
                waiting.add(node)  # restyled by restyle_shown, or the next restyle asked for
                return
            waiting.discard(node)
            styled[node] = node.has_focus
        super().update_styles(node, animate=animate)

    def restyle_shown(self) -> None:
        """Restyle the waiting widgets that are shown now (screens call this before laying
        out a frame: a widget shown since it lost or took focus gets its present look)."""
        waiting = self._restyle_when_shown
        if not waiting:
            return
        for node in list(waiting):
            if not node.is_attached:
                waiting.discard(node)
            elif is_shown(node):
                waiting.discard(node)
                if self._styled_focus is not None:
                    self._styled_focus[node] = node.has_focus
                super().update_styles(node, animate=False)
