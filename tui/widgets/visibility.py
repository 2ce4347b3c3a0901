"""Whether a pane is on screen: hidden panes skip work and catch up when shown (STYLE §8)."""

from __future__ import annotations

from textual.widget import Widget


def is_shown(widget: Widget) -> bool:
    """True when neither the widget nor any ancestor is ``display: none``."""
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))


class CatchUpWhenShown:
    """Mixin for panes that skip their work while hidden and catch up when shown again.

    The pane calls :meth:`hidden_now` before working (it remembers that work was skipped) and
    implements :meth:`catch_up`, which ``on_show`` runs when something was skipped.
    """

    _dirty: bool = False

    def hidden_now(self) -> bool:
        """True when the pane is not on screen: the caller skips its work until shown."""
        assert isinstance(self, Widget)
        self._dirty = not is_shown(self)
        return self._dirty

    def catch_up(self) -> None:
        raise NotImplementedError

    def catch_up_now(self) -> None:
        """Catch up at once if work was skipped (the app calls this as it shows the pane, so
        the first frame draws the pane up to date instead of stale, then again)."""
        if self._dirty:
            self.catch_up()

    def on_show(self) -> None:
        if self._dirty:
            self.catch_up()
