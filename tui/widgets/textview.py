"""A read-only, soft-wrapped text viewer for big texts (listings of thousands of lines).

Line API (``render_line``) over a list of wrapped lines, so only the visible rows are ever
rendered; wrapping is redone only when the text or the width changes (STYLE §8). The text is
catalog data and is never parsed as markup.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.binding import Binding
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from toolsearch.textsafe import shown

from .render_style import StyleOncePerRender
from .scrollbars import SteadyScrollbars


def wrap_lines(text: str, width: int) -> list[str]:
    """Soft-wrap at spaces (hard-wrap a word longer than the width); keeps blank lines.

    A continuation hangs under the line's own indent (+2), so nested JSON stays readable.
    Works with positions in the line rather than copies of its rest: a listing line of one
    server's tool names runs to thousands of characters (the Names form: 10 -> 3 ms)."""
    width = max(8, width)
    out: list[str] = []
    append = out.append
    for line in text.split("\n"):
        end = len(line)
        if end <= width:
            append(line)
            continue
        hang = " " * min(end - len(line.lstrip(" ")) + 2, width // 2)
        pad = len(hang)
        # the first piece is the line itself; each later one is hang + the rest from pos
        pos, prefix, start = 0, "", pad if line.startswith(hang) else 0
        while prefix and pad + end - pos > width or not prefix and end > width:
            lead = len(prefix)
            cut = line.rfind(" ", pos + start + 1 - lead, pos + width + 1 - lead)
            cut = cut - pos + lead if cut >= 0 else -1  # in the piece's own positions
            if cut <= start:
                cut = width
            append(prefix + line[pos:pos + cut - lead])
            pos += cut - lead
            while pos < end and line[pos] == " ":
                pos += 1
            if pos >= end:
                break
            prefix, start = hang, pad
        else:
            append(prefix + line[pos:])
            continue
        append("")  # the rest was only spaces: the old loop ended on an empty piece
    return out


class TextView(StyleOncePerRender, SteadyScrollbars, ScrollView, can_focus=True):
    """Shows ``text`` wrapped to the widget's width."""

    DEFAULT_CSS = """
    TextView { height: 1fr; }
    """
    BINDINGS = [
        # kept off the footer: at 80 columns Top and Bottom took the room of the Listing's
        # Copy and Export Sent (the key map lists them)
        Binding("home", "scroll_home", "Top", show=False, id="text.top"),
        Binding("end", "scroll_end", "Bottom", show=False, id="text.bottom"),
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
