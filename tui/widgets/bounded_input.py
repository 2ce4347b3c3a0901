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
