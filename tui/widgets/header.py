"""The app's header: a new title never lays the screen out again.

Textual's ``Header`` updates its title with ``Static.update``, which asks for a layout of the
whole screen (10-35 ms at 4,900 tools) although the title's box never changes: one line,
the header's width, no wrapping. The app's subtitle names the tier, so a tuning change that
moved the tier paid for that layout (and for a repaint of the whole screen, see
``ToolSearchApp.sub_title``).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.visual import VisualType
from textual.widgets import Header
from textual.widgets._header import HeaderTitle


class QuietTitle(HeaderTitle):
    """A header title whose updates repaint it only (laid out once it has a text)."""

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        super().update(content, layout=layout and not self.content)


class QuietHeader(Header):
    """``Header`` with a :class:`QuietTitle`."""

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            yield QuietTitle() if type(widget) is HeaderTitle else widget
