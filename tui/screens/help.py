"""The key map (``?`` / F1): every binding, grouped by pane."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..pacing import PacedFrames
from ..widgets.footer import KeyFooter
from .tab_keys import TAB_KEYS, LeavesForTab


def key_map_text(sections: list[tuple[str, list[tuple[str, str]]]]) -> Content:
    parts: list[Content | str | tuple[str, str]] = []
    for title, keys in sections:
        if not keys:
            continue
        parts.append((f"{title}\n", "bold underline"))
        width = max(len(k) for k, _ in keys)
        for key, what in keys:
            parts += [(f"  {key:<{width}}", "bold"), f"  {what}\n"]
        parts.append("\n")
    return Content.assemble(*parts)


class HelpScreen(PacedFrames, LeavesForTab, ModalScreen[None]):
    AUTO_FOCUS = "#help-box"  # focused as the screen opens: keys typed at once land there
    DEFAULT_CSS = """
    HelpScreen { align: center middle; background: $background; }
    /* opaque: a see-through modal redraws the whole app behind it, blended (~60 ms at 4,900 tools) */
    HelpScreen #help-box { width: 90%; max-width: 100; height: 90%; padding: 0 1;
                           border: thick $primary; background: $surface; }
    """
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "close", "Close", id="help.close"),
        *TAB_KEYS,
    ]

    def __init__(self, sections: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__()
        self._sections = sections

    def compose(self) -> ComposeResult:
        text = key_map_text(self._sections)
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys (Esc closes)"
            if text.plain.count("\n") > self.app.size.height:
                # taller than any box the screen can hold: the scrollbar is there for the
                # first layout, not a second layout (and a second wrap of the text, narrower)
                # to make room for it
                box.set_reactive(VerticalScroll.show_vertical_scrollbar, True)
            yield Static(text, id="help-text")
        yield KeyFooter(id="dialog-keys")

    def action_close(self) -> None:
        self.dismiss(None)


HELP_SCREEN = "key map"
"""The name the prepared help screen is installed under."""


def prepare_help(app: App[object], sections: Callable[[], list[tuple[str, list[tuple[str, str]]]]]
                 ) -> None:
    """Build and mount the help screen ahead of its first show (the app calls this once the
    panes have mounted): ``?`` then shows a screen whose widgets, styles and caches are in
    place instead of composing, mounting and styling it inside the key (and tearing it down
    on Esc, which redrew the app underneath from scratch)."""
    if app.is_screen_installed(HELP_SCREEN):
        return
    screen = HelpScreen(sections())
    app.install_screen(screen, HELP_SCREEN)
    app._register(app, screen)  # mounts its widgets now, off screen (Textual does it on push)


AHEAD_PASSES = 3
"""At most this many layout passes of the prepared help screen ahead of its first show."""


def draw_help_ahead(app: App[object]) -> bool:
    """Lay out and draw the prepared help screen off screen, at the app's size (the app calls
    this while the operator is idle, until it returns True). Its first show then finds every
    widget sized and its lines drawn: ``?`` took a layout of the new screen, its text wrapped
    and drawn line by line, and two or three more frames as the scroll box settled (about 60
    ms at 4,900 tools). Nothing is sent to the terminal: Textual draws a screen only while it
    is the current one, and the frame drawn here is dropped. A resize meanwhile is laid out
    again by Textual as the screen is shown."""
    if not app.is_screen_installed(HELP_SCREEN):
        return True
    screen = app.get_screen(HELP_SCREEN)
    if screen is app.screen or screen in app.screen_stack:
        return True  # shown already: Textual lays it out itself
    if not screen.is_mounted or not screen.query("#help-text"):
        return False  # still mounting
    size = app.size
    passes = getattr(screen, "_ahead_passes", 0)
    if passes < AHEAD_PASSES and (screen.outer_size != size or screen._layout_required):
        screen._ahead_passes = passes + 1  # type: ignore[attr-defined]
        screen._layout_required = False
        screen._refresh_layout(size)  # sizes only: not the current screen, nothing is drawn
        return False
    screen._compositor.render_update(full=True)  # fills the widgets' line caches
    return True


def help_screen(app: App[object], sections: Callable[[], list[tuple[str, list[tuple[str, str]]]]]
                ) -> HelpScreen | str:
    """The screen ``?`` pushes: the prepared one when there is one."""
    if app.is_screen_installed(HELP_SCREEN):
        return HELP_SCREEN
    return HelpScreen(sections())
