"""The key footer: the focused pane's bindings on one line, drawn by one widget.

Textual's ``Footer`` rebuilds a child widget per key each time the bindings change (every tab
switch and every focus move), and mounting and styling those widgets took tens of
milliseconds per key at 4,900 tools. This footer draws the same line itself: it subscribes to
the screen's ``bindings_updated_signal``, redraws only when the shown keys changed, and a
click on a key presses that key, as the stock footer does.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

DIM = Style(dim=True)
Shown = tuple[tuple[str, str, str, bool], ...]
"""(key, key as shown, description, enabled) of each key on the line."""


class KeyFooter(Widget, can_focus=False):
    """Keys of the focused pane and the app, then the palette key at the right edge."""

    COMPONENT_CLASSES = {"footer-key--key", "footer-key--description", "footer-key--border"}
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .footer-key--border {
            color: $foreground 20%;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: Shown = ()
        self._palette: tuple[str, str, str, bool] | None = None
        self._spans: list[tuple[int, int, str]] = []
        self._covered = False
        """A dialog is shown over this footer's screen: its keys do not reach that screen."""
        self._drawn: dict[tuple[object, ...], tuple[list[Strip], list[tuple[int, int, str]]]] = {}

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)
        self.app.screen_change_signal.subscribe(self, self._screen_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)
        self.app.screen_change_signal.unsubscribe(self)

    def _screen_changed(self, screen: Screen[object]) -> None:
        covered = screen is not self.screen
        if covered != self._covered:
            self._covered = covered
            self.refresh()

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is not self.screen:
            return
        shown, palette = self._keys(screen)
        if (shown, palette) != (self._shown, self._palette):
            self._shown, self._palette = shown, palette
            self.refresh()

    def _keys(self, screen: Screen[object]) -> tuple[Shown, tuple[str, str, str, bool] | None]:
        app = self.app
        seen: set[str] = set()
        shown: list[tuple[str, str, str, bool]] = []
        palette = None
        for _node, binding, enabled, _tooltip in screen.active_bindings.values():
            if app.ENABLE_COMMAND_PALETTE and binding.key == app.COMMAND_PALETTE_BINDING:
                palette = self._entry(binding, enabled)
                continue
            if binding.show and binding.action not in seen:
                seen.add(binding.action)
                shown.append(self._entry(binding, enabled))
        return tuple(shown), palette

    def _entry(self, binding: Binding, enabled: bool) -> tuple[str, str, str, bool]:
        return (binding.key, self.app.get_key_display(binding), binding.description, enabled)

    @property
    def shown_keys(self) -> Shown:
        """What the line shows now (tests read it)."""
        return self._shown + ((self._palette,) if self._palette else ())

    def render(self) -> Content:
        if self._covered:  # under a dialog: no key shown here would work
            return Content("")
        key_style = self.get_visual_style("footer-key--key")
        text_style = self.get_visual_style("footer-key--description")
        right = None
        if self._palette is not None:  # the palette key sits at the right edge
            _, display, description, _ = self._palette
            right = Content.assemble(("\u258f", self.get_visual_style("footer-key--border")),
                                     (display, key_style), (f" {description}", text_style), " ")
        room = self.size.width - (right.cell_length if right is not None else 0)
        pieces: list[tuple[str, object]] = []
        self._spans = []
        x = 0
        for entry in fitting(self._shown, max(0, room)):
            key, display, description, enabled = entry
            start = x
            for text, style in ((f" {display} ", key_style),
                                (f"{description} " if description else "", text_style)):
                if text:
                    pieces.append((text, style if enabled else style + DIM))
                    x += len(text)
            self._spans.append((start, x, key))
        line = Content.assemble(*pieces)  # type: ignore[arg-type]
        if right is None or self._palette is None:
            return line
        self._spans.append((room, room + right.cell_length, self._palette[0]))
        return Content.assemble(line.truncate(room, pad=True), right)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The line as last drawn for these keys at this width: a tab switch shows one of a
        few key sets, and drawing one took 0.5-1.5 ms (more under load) in every frame."""
        key = (self._shown, self._palette, self.size, crop, self.app.theme, self._covered)
        drawn = self._drawn.get(key)
        if drawn is None:
            drawn = self._drawn[key] = (super().render_lines(crop), self._spans)
            if len(self._drawn) > DRAWN_KEPT:
                del self._drawn[next(iter(self._drawn))]
        self._spans = drawn[1]
        return drawn[0]

    def notify_style_update(self) -> None:
        self._drawn.clear()  # a new theme or stylesheet: colours change
        super().notify_style_update()

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                self.app.simulate_key(key)
                return


def entry_width(entry: tuple[str, str, str, bool]) -> int:
    """Cells one key takes on the line: ` key ` then `description `."""
    _, display, description, _ = entry
    return len(display) + 2 + (len(description) + 1 if description else 0)


def fitting(shown: Shown, room: int) -> Shown:
    """The keys that fit in *room* cells, whole (a key cut in two, `^q Qu`, reads as noise).
    When some must go, Quit and the key map (`?` Keys, which shows every other key) stay."""
    if sum(entry_width(e) for e in shown) <= room:
        return shown
    kept = {id(e) for e in shown if e[0] in KEPT_KEYS}
    left = room - sum(entry_width(e) for e in shown if id(e) in kept)
    for entry in shown:
        if id(entry) not in kept:
            if entry_width(entry) > left:
                break
            kept.add(id(entry))
            left -= entry_width(entry)
    return tuple(e for e in shown if id(e) in kept)


DRAWN_KEPT = 16
"""Lines kept drawn (a key set at a width each)."""

KEPT_KEYS = frozenset({"question_mark", "f1", "ctrl+q"})
"""Keys the line keeps when it is too narrow for all of them."""
