"""A text field with a length bound that cuts a long paste to fit instead of refusing it, and
that holds no control character."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Input

from toolsearch.textsafe import blanked


class BoundedInput(Input):
    """``Input`` holding at most ``limit`` characters. A pasted line longer than the room left
    is cut to fit, with a note (``Input`` alone refuses such a paste whole). Unbounded, a line
    of 1 MB (a base64 blob, minified JSON) made every later key in the field take half a
    second, and the search it started held the interpreter for two."""

    def __init__(self, *args: Any, limit: int, **kwargs: Any) -> None:
        super().__init__(*args, max_length=limit, **kwargs)

    def validate_value(self, value: str) -> str:
        """Each control character becomes a space, one for one (the cursor stays put): a
        query picked from a query file (Recall's Enter on a miss) or pasted showed its ESC[2J
        raw on the terminal. A search finds the same tools (these are no word characters)."""
        return blanked(value)

    def _on_paste(self, event: events.Paste) -> None:
        line = event.text.splitlines()[0] if event.text else ""
        start, end = sorted(self.selection)
        room = max(0, (self.max_length or 0) - (len(self.value) - (end - start)))
        if len(line) <= room:
            return  # Input's own handler pastes it
        event.prevent_default()
        event.stop()
        if room:
            self.replace(line[:room], start, end)
        self.notify(f"Pasted text cut to {room:,} of its {len(line):,} characters: this field "
                    f"holds {self.max_length:,}.", title="Paste", severity="warning", timeout=6)


class PathInput(Input):
    """A field for a file's path that, like :class:`BoundedInput`, shows no control
    character: a typed or pasted ESC (or a path given with one) is shown as a space, where
    it reached the terminal raw. A path set by the app (:meth:`set_path`, the initial value)
    is kept as given while the field still shows it, so a file whose name holds such a
    character is still the one read or written; once the operator edits the field, its
    text is the path."""

    def __init__(self, value: str | None = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(value, *args, **kwargs)
        self._given = value or ""

    def validate_value(self, value: str) -> str:
        return blanked(value)

    def set_path(self, path: str) -> None:
        self._given = path
        self.value = path

    @property
    def path(self) -> str:
        """The path the field stands for: the one set by the app while unedited."""
        value = self.value
        return self._given if value == blanked(self._given) else value
