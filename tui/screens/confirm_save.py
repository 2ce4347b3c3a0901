"""Save asks first: the diff of the ``tools.tool_search`` block, then Save or Cancel. What
the dialog says will happen is what the save does: the old file kept as ``NAME.bak``, or, when
no file is there (it was deleted since it was loaded), a new file and nothing to back up."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from toolsearch.textsafe import shown

from ..widgets.footer import KeyFooter


def diff_content(lines: list[str]) -> Content:
    parts: list[Content | str | tuple[str, str]] = []
    for line in lines:
        line = shown(line, one_line=True)  # a "-" line holds the file's old value as written
        if line.startswith("-"):
            parts.append((line, "$outcome-error"))
        elif line.startswith("+"):
            parts.append((line, "$outcome-ok bold"))
        else:
            parts.append(line)
        parts.append("\n")
    return Content.assemble(*parts)


class ConfirmSaveScreen(ModalScreen[bool]):
    AUTO_FOCUS = "#confirm-ok"  # focused as the screen opens: keys typed at once land there
    DEFAULT_CSS = """
    ConfirmSaveScreen { align: center middle; }
    ConfirmSaveScreen #confirm-box { width: 90%; max-width: 100; height: auto; max-height: 90%;
                                     padding: 0 1; border: thick $primary;
                                     background: $surface; }
    ConfirmSaveScreen #confirm-diff { height: auto; }
    ConfirmSaveScreen #confirm-buttons { height: auto; padding-top: 1; }
    ConfirmSaveScreen #confirm-buttons Button { margin-right: 2; }
    """
    BINDINGS = [
        Binding("y,enter", "confirm", "Save", id="save.confirm"),
        Binding("n,escape", "cancel", "Cancel", id="save.cancel_confirm"),
    ]

    def __init__(self, path: str, lines: list[str], note: str = "",
                 new_file: bool = False) -> None:
        """*new_file*: no file is at *path* now; the save creates it."""
        super().__init__()
        self._path = path
        self._lines = lines
        self._note = note
        self._new_file = new_file

    def what_happens(self) -> str:
        if self._new_file:
            return ("No file is there now: saving creates it, holding just the "
                    "tools.tool_search block (there is no old file to back up).")
        return ("Only the keys you changed are written; every other key and comment stays, "
                f"the old file is kept as {shown(Path(self._path).name, one_line=True)}.bak.")

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box") as box:
            box.border_title = "Save tools.tool_search?"
            # the path as text: a file named with an ESC is shown, never sent
            yield Static(Content.assemble(("File: ", "bold"), shown(self._path, one_line=True), "\n",
                                          self.what_happens(), self._note), id="confirm-head")
            yield Static(diff_content(self._lines), id="confirm-diff")
            with Horizontal(id="confirm-buttons"):
                yield Button("Save (y)", id="confirm-ok", variant="primary", compact=True)
                yield Button("Cancel (n / Esc)", id="confirm-cancel", compact=True)
        yield KeyFooter(id="dialog-keys")

    @on(Button.Pressed, "#confirm-ok")
    def action_confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#confirm-cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)
