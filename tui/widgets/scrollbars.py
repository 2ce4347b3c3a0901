"""A scroll view's scrollbars repainted when they change, not at every layout.

Textual's ``ScrollView._size_updated`` runs at every layout of the screen for each scroll
view on it (its own virtual size is never the one the layout passes), and repaints both
scrollbars each time: a tab switch drew the shown table's or text's scrollbar again, 17-27
lines (~5 % of a switch at 4,900 tools), though nothing about it had changed. The bars still
repaint themselves when their sizes, position or colours change (Textual's reactives and
scrollbar colour properties do that), and a layout with any new size runs Textual's code.

Textual 8.2.8 internals (``ScrollView._size_updated``): re-check on an upgrade.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.geometry import Size

if TYPE_CHECKING:
    from textual.scroll_view import ScrollView

    _Base = ScrollView
else:
    _Base = object


class SteadyScrollbars(_Base):
    """Mixin for a ``ScrollView`` (before it in the bases): a layout that changes nothing in
    the view's sizes leaves its scrollbars as drawn."""

    _sized: tuple[object, ...] | None = None
    _sized_answer = False

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        key = (size, virtual_size, container_size, self.virtual_size, self.scroll_offset,
               self.show_vertical_scrollbar, self.show_horizontal_scrollbar,
               self.styles.gutter, self.scrollbar_size_vertical,
               self.scrollbar_size_horizontal)
        if key == self._sized:
            return self._sized_answer
        answer = super()._size_updated(size, virtual_size, container_size, layout)
        self._sized = (size, virtual_size, container_size, self.virtual_size,
                       self.scroll_offset, self.show_vertical_scrollbar,
                       self.show_horizontal_scrollbar, self.styles.gutter,
                       self.scrollbar_size_vertical, self.scrollbar_size_horizontal)
        self._sized_answer = answer
        return answer
