"""Ask where to save when no Hermes ``config.yaml`` was among the sources."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from toolsearch.textsafe import shown

from ..widgets.bounded_input import PathInput
from ..widgets.footer import KeyFooter

EXPLAIN = (
    "No Hermes config.yaml was loaded, so there is no file to update in place.\n"
    "Enter a path. An existing Hermes config.yaml is updated in place: only tools.tool_search "
    "changes, every other key and comment is kept, and the old file is kept as <path>.bak.\n"
    "A path that does not exist yet becomes a new config.yaml holding just the "
    "tools.tool_search block."
)


class SavePathScreen(ModalScreen[str | None]):
    AUTO_FOCUS = "#save-path"  # focused as the screen opens: keys typed at once land there
    DEFAULT_CSS = """
    SavePathScreen { align: center middle; }
    SavePathScreen #save-box { width: 80%; max-width: 100; height: auto; padding: 1 2;
                               border: thick $primary; background: $surface; }
    SavePathScreen #save-buttons { height: auto; padding-top: 1; }
    SavePathScreen #save-error { height: auto; color: $error; }
    SavePathScreen #save-buttons Button { margin-right: 2; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="save.cancel")]

    def __init__(self, default: str = "config.yaml",
                 refusal: Callable[[Path], str | None] | None = None) -> None:
        """*refusal* says why a path cannot be saved to (None: it can); such a path keeps
        the dialog open, with the reason under the field, to be corrected."""
        super().__init__()
        self._default = default
        self._refusal = refusal

    def compose(self) -> ComposeResult:
        with Vertical(id="save-box"):
            yield Static(EXPLAIN, markup=False)
            yield PathInput(self._default, id="save-path", compact=True)
            yield Static("", id="save-error", markup=False)
            with Horizontal(id="save-buttons"):
                yield Button("Save (Enter)", id="save-ok", variant="primary", compact=True)
                yield Button("Cancel (Esc)", id="save-cancel", compact=True)
        yield KeyFooter(id="dialog-keys")

    @on(Input.Submitted, "#save-path")
    @on(Button.Pressed, "#save-ok")
    def _ok(self) -> None:
        field = self.query_one("#save-path", PathInput)
        path = field.path.strip()
        why = self._refusal(Path(path).expanduser()) if path and self._refusal else None
        if why:
            # the reason names the path or a file: an ESC in it is shown, never sent
            self.query_one("#save-error", Static).update(f"\u2716 {shown(why, one_line=True)}")
            field.focus()
            return
        self.dismiss(path or None)

    @on(Button.Pressed, "#save-cancel")
    def _cancel_pressed(self) -> None:
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
