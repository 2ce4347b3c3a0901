"""Whether a pane is on screen: hidden panes skip work and catch up when shown (STYLE §8)."""

from __future__ import annotations

from textual.widget import Widget


def is_shown(widget: Widget) -> bool:
    """True when neither the widget nor any ancestor is ``display: none``."""
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))
