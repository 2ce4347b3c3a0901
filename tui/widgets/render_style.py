"""A line-API widget's style worked out once per render, not once per line.

``DOMNode.rich_style`` walks every ancestor's styles (background blended through the tree,
colour, text style: ~700 Python calls at the app's depth), and Textual's line widgets read
it for each line they draw: ``DataTable.render_line`` before its line cache is consulted,
``RichLog.render_line`` once and again on a cache miss. A tab switch draws the shown pane's
25-28 lines: the Activity feed's style was worked out 54 times, the Search hits' and Recall
misses' 24-26 times (a third to a half of the frame). Within one ``render_lines`` call no
style can change, so :class:`StyleOncePerRender` works it out once there and answers every
``rich_style`` read during the call with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.widget import Widget

    _Base = Widget
else:
    _Base = object


class StyleOncePerRender(_Base):
    """Mixin for a widget (before the widget's class in the bases): ``rich_style`` worked
    out once per :meth:`render_lines` call."""

    _style_in_render: Style | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        self._style_in_render = super().rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._style_in_render = None

    @property
    def rich_style(self) -> Style:
        held = self._style_in_render
        return held if held is not None else super().rich_style
