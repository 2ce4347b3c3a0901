"""One feed entry in full: the request (bridge, tool, arguments) and the reply as JSON.

Opened with Enter on the Activity tab (the newest entry first); ``\u2190``/``\u2192`` (or ``p``/``n``)
walk the entries, ``c`` copies the shown entry, Esc closes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ..activity import ActivityEntry, outcome_label, since_start
from ..widgets.footer import KeyFooter
from ..widgets.textview import TextView
from .tab_keys import TAB_KEYS, LeavesForTab


def entry_json(entry: ActivityEntry) -> dict[str, Any]:
    return {"request": {"bridge": entry.event.bridge, "tool": entry.event.tool,
                        "arguments": entry.event.arguments},
            "outcome": entry.event.outcome, "ms": round(entry.event.ms, 1),
            "reply": entry.result}


def entry_text(entry: ActivityEntry) -> str:
    """Request and reply, each JSON document indented under its own heading."""
    data = entry_json(entry)

    def block(value: Any) -> str:
        text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
        return "\n".join("  " + line for line in text.splitlines())

    return "\n".join([
        f"#{entry.seq} {entry.event.headline()}",
        f"outcome: {outcome_label(entry.event.outcome)[0]} \u00b7 {entry.event.ms:.1f} ms "
        + ("\u00b7 before the app opened" if entry.earlier
           else f"\u00b7 at {since_start(entry.at)} since start"),
        *([f"note: {entry.note}"] if entry.note else []),
        "", "request:", block(data["request"]), "", "reply:", block(data["reply"]),
    ])


class ActivityDetailScreen(LeavesForTab, ModalScreen[None]):
    AUTO_FOCUS = "#detail-text"  # focused as the screen opens: keys typed at once land there
    DEFAULT_CSS = """
    ActivityDetailScreen { align: center middle; }
    ActivityDetailScreen #detail-box { width: 95%; height: 90%; border: thick $primary;
                                      background: $surface; }
    ActivityDetailScreen #detail-head { height: 1; padding: 0 1; }
    ActivityDetailScreen TextView { height: 1fr; }
    """
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="detail.close"),
        Binding("left,p", "move(-1)", "Older", key_display="←", id="detail.older"),
        Binding("right,n", "move(1)", "Newer", key_display="→", id="detail.newer"),
        Binding("c,y", "copy", "Copy JSON", id="detail.copy"),
        *TAB_KEYS,
    ]

    def __init__(self, entries: Sequence[ActivityEntry], index: int = -1) -> None:
        super().__init__()
        self._entries = tuple(entries)
        self.index = index % len(self._entries) if self._entries else 0

    def compose(self) -> ComposeResult:
        with Vertical(id="detail-box"):
            yield Static("", id="detail-head", markup=False)
            yield TextView(id="detail-text")
        yield KeyFooter(id="dialog-keys")

    def on_mount(self) -> None:
        self._show()

    @property
    def entry(self) -> ActivityEntry | None:
        return self._entries[self.index] if self._entries else None

    def _show(self) -> None:
        entry = self.entry
        head = f"Entry {self.index + 1} of {len(self._entries)} \u00b7 \u2190/\u2192 older/newer " \
               "\u00b7 c copy \u00b7 Esc close" if entry else "No activity yet."
        self.query_one("#detail-head", Static).update(head)
        self.query_one("#detail-text", TextView).text = entry_text(entry) if entry else ""

    def action_move(self, step: int) -> None:
        if self._entries:
            self.index = max(0, min(len(self._entries) - 1, self.index + step))
            self._show()

    def action_copy(self) -> None:
        entry = self.entry
        if entry is not None:
            self.app.copy_to_clipboard(json.dumps(entry_json(entry), ensure_ascii=False,
                                                  indent=2, default=str))
            self.notify(f"Entry #{entry.seq} copied as JSON.", timeout=3)

    def action_close(self) -> None:
        self.dismiss(None)
