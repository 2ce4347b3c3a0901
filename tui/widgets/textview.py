"""A read-only, soft-wrapped text viewer for big texts (listings of thousands of lines).

Line API (``render_line``) over a list of wrapped lines, so only the visible rows are ever
rendered; wrapping is redone only when the text or the width changes (STYLE §8). The text is
catalog data and is never parsed as markup.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from toolsearch.textsafe import shown


def wrap_lines(text: str, width: int) -> list[str]:
    """Soft-wrap at spaces (hard-wrap a word longer than the width); keeps blank lines."""
    width = max(8, width)
    out: list[str] = []
    for line in text.split("\n"):
        # a continuation hangs under the line's own indent (+2), so nested JSON stays readable
        hang = " " * min(len(line) - len(line.lstrip(" ")) + 2, width // 2)
        while len(line) > width:
            start = len(hang) if line.startswith(hang) else 0
            cut = line.rfind(" ", start + 1, width + 1)
            if cut <= start:
                cut = width
            out.append(line[:cut])
            line = line[cut:].lstrip(" ")
            if line:
                line = hang + line
        out.append(line)
    return out


class TextView(ScrollView, can_focus=True):
    """Shows ``text`` wrapped to the widget's width."""

    DEFAULT_CSS = """
    TextView { height: 1fr; }
    """
    BINDINGS = [
        ("home", "scroll_home", "Top"),
        ("end", "scroll_end", "Bottom"),
    ]

    text: reactive[str] = reactive("", layout=False, init=False)

    def __init__(self, text: str = "", *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines: list[str] = []
        self._wrapped_for: tuple[int, int] = (-1, -1)
        self.width_hint = 0
        """The width to wrap at while the view has never been laid out (a hidden tab's view
        wraps at its visible sibling's width: no second layout pass once it is shown)."""
        self.set_reactive(TextView.text, text)

    @property
    def lines(self) -> list[str]:
        return self._lines

    def watch_text(self, text: str) -> None:
        self._wrapped_for = (-1, -1)
        self._rewrap()
        self.scroll_to(0, 0, animate=False)

    def on_resize(self) -> None:
        self._rewrap()

    def on_mount(self) -> None:
        self._rewrap()

    def _rewrap(self) -> None:
        if not self.container_size and self.text.count("\n") > self.app.size.height:
            # never laid out (a hidden tab) and taller than any view: the first layout
            # finds its scrollbar already there, not a second layout to make room for it
            self.set_reactive(TextView.show_vertical_scrollbar, True)
        width = (self.scrollable_content_region.width or self.width_hint or self._width_guess()
                 or self.size.width or 80)
        key = (id(self.text), width)
        if key == self._wrapped_for:
            return
        self._wrapped_for = key
        self._lines = wrap_lines(shown(self.text), width) if self.text else []  # escapes shown
        longest = max((len(s) for s in self._lines), default=0)
        self.virtual_size = Size(min(longest, width), len(self._lines))
        self.refresh()

    def _width_guess(self) -> int:
        """The width to wrap at before the first layout: the nearest laid-out ancestor's
        content width less the borders and padding in between and the scrollbar (the width
        the first layout gives; a wrong guess only costs a rewrap then)."""
        styles = self.styles
        chrome = styles.gutter.width + (styles.scrollbar_size_vertical
                                        if self.show_vertical_scrollbar else 0)
        for node in self.ancestors:
            if not isinstance(node, Widget):
                break
            if node.content_region.width:
                return max(0, node.content_region.width - chrome)
            chrome += node.styles.gutter.width
        return 0

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.size.width
        style = self.rich_style
        if index >= len(self._lines):
            return Strip.blank(width, style)
        strip = Strip([Segment(self._lines[index], style)])
        return strip.crop_extend(self.scroll_offset.x, self.scroll_offset.x + width, style)
