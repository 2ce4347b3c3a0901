"""Activity entries: one bridge call, resolved to its underlying tool, ready for the feed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolsearch.bridge import ActivityEvent

from .view import OUTCOME_LABELS

NOTE_MAX = 160


@dataclass(frozen=True)
class ActivityEntry:
    seq: int
    event: ActivityEvent
    note: str = ""
    result: Any = None
    at: float = 0.0
    """Seconds since the app started (from the app's clock: fake in tests and snapshots)."""
    earlier: bool = False
    """Made before the app opened (a followed gateway's history): *at* means nothing."""


def clip(text: str, limit: int = NOTE_MAX) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def outcome_label(outcome: str) -> tuple[str, str]:
    return OUTCOME_LABELS.get(outcome, (outcome, ""))


def since_start(seconds: float) -> str:
    """``MM:SS.s``: an entry's time since the app started, as the feed and its detail show it."""
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes):02d}:{rest:04.1f}"
