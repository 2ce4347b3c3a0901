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

A widget that waited and takes the cursor back as its tab is shown (every tab switch by key
after the first) is usually back in the very state it was last restyled in: focused, with the
same classes and pseudo-classes, under ancestors none of which was restyled since, with the
same stylesheet. Its restyle then works out the styles it already has (rules matched for the
widget, its component classes and scrollbars; the scrollbars' colours set again, which
repaints them). :class:`HiddenRestyles` remembers, after each restyle of a focused widget
without children, that state and the styles it gave (the widget's rules, its component
classes', its scrollbars'), and forgets it when an ancestor is restyled (an ancestor whose
classes or pseudo-classes change is restyled, and its subtree with it). The waiting restyle
is dropped when the widget is in the remembered state again and still has those styles (a
restyle by another path, such as a theme change, changed them: then it runs).

Textual 8.2.8 internals (``App.update_styles``, ``Screen._refresh_layout``,
``DOMNode._component_styles``): re-check on an upgrade.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary, WeakSet

from textual.dom import DOMNode
from textual.widget import Widget

from .widgets.visibility import is_shown

if TYPE_CHECKING:
    from textual.app import App

    _Base = App[None]
else:
    _Base = object


Look = tuple[object, ...]
"""A widget's styles: its rules, its component classes' and its shown scrollbars'."""


def style_state(widget: Widget) -> tuple[object, ...]:
    """What the stylesheet's rules for *widget* depend on in the widget itself: its place
    (its parent), its classes and its pseudo-classes (its ancestors': see the module's
    docstring)."""
    return (id(widget.parent), frozenset(widget.classes),
            frozenset(widget.get_pseudo_classes()))


def look_of(widget: Widget) -> Look:
    """The styles *widget* has now (see :data:`Look`)."""
    scrollbars: list[object] = []
    if widget.show_vertical_scrollbar:
        scrollbars.append(widget.vertical_scrollbar.styles.get_rules())
    if widget.show_horizontal_scrollbar:
        scrollbars.append(widget.horizontal_scrollbar.styles.get_rules())
    components = widget._component_styles
    return (widget.styles.get_rules(),
            tuple(sorted((name, styles.get_rules()) for name, styles in components.items())),
            tuple(scrollbars))


class HiddenRestyles(_Base):
    """Mixin for the app (before ``App`` in the bases): restyles of hidden widgets without
    children wait until they are shown, and are dropped when the widget comes back in the
    state its styles were worked out for (see the module's docstring)."""

    _restyle_when_shown: WeakSet[Widget] | None = None
    _styled_focus: WeakKeyDictionary[Widget, bool] | None = None
    _focused_looks: WeakKeyDictionary[Widget, tuple[Any, tuple[object, ...], Look]] | None = None
    restyles_dropped = 0
    """Waiting restyles found unnecessary (tests read it)."""

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
            styled[node] = node.has_focus
            if node in waiting:
                waiting.discard(node)
                if self._styled_as_now(node):
                    return
            super().update_styles(node, animate=animate)
            self._remember_look(node)
            return
        looks = self._focused_looks
        if looks:  # the subtree's rules are worked out again, under the node's new state
            for widget in [w for w in looks if node is w or node in w.ancestors]:
                del looks[widget]
        super().update_styles(node, animate=animate)

    def _remember_look(self, node: Widget) -> None:
        """After a restyle of *node*: its state and styles, when it has the cursor (the state
        a widget left by a tab switch comes back in)."""
        if not node.has_focus:
            return
        if self._focused_looks is None:
            self._focused_looks = WeakKeyDictionary()
        self._focused_looks[node] = (self.stylesheet.rules, style_state(node), look_of(node))

    def _styled_as_now(self, node: Widget) -> bool:
        """True when a restyle of *node* would give it the styles it has: it is in the state
        its last remembered restyle saw, under the same stylesheet, none of its ancestors was
        restyled since, and it still has the styles that restyle gave."""
        held = self._focused_looks.get(node) if self._focused_looks is not None else None
        if held is None or not node.has_focus:
            return False
        rules, state, look = held
        if rules is not self.stylesheet.rules or state != style_state(node) or \
                look != look_of(node):
            return False
        self.restyles_dropped += 1
        return True

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
                if not self._styled_as_now(node):
                    super().update_styles(node, animate=False)
                    self._remember_look(node)
