"""The key map (``?`` / F1): every binding, grouped by pane."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..pacing import PacedFrames


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


class HelpScreen(PacedFrames, ModalScreen[None]):
    AUTO_FOCUS = "#help-box"  # focused as the screen opens: keys typed at once land there
    DEFAULT_CSS = """
    HelpScreen { align: center middle; background: $background; }
    /* opaque: a see-through modal redraws the whole app behind it, blended (~60 ms at 4,900 tools) */
    HelpScreen #help-box { width: 90%; max-width: 100; height: 90%; padding: 0 1;
                           border: thick $primary; background: $surface; }
    """
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "close", "Close", id="help.close"),
    ]

    def __init__(self, sections: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__()
        self._sections = sections

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys (Esc closes)"
            yield Static(key_map_text(self._sections), id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)
