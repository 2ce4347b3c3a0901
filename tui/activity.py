"""Activity entries: one bridge call, resolved to its underlying tool, ready for the feed."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolsearch.bridge import ActivityEvent, BridgeReply

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


def clip(text: str, limit: int = NOTE_MAX) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def reply_note(reply: BridgeReply) -> str:
    """A one-line gist of what the model got back."""
    result = reply.result
    event = reply.activity
    if isinstance(result, Mapping) and "error" in result:
        extra = " (schema returned)" if "parameters" in result else ""
        return clip(f"{result['error']}{extra}")
    if event.bridge == "tool_search" and isinstance(result, Mapping):
        names = [m.get("name", "") for m in result.get("matches", ()) if isinstance(m, Mapping)]
        if not names:
            return clip(f"0 matches of {result.get('total_available', 0)}; "
                        + str(result.get("hint", "")))
        return clip(f"{len(names)} match(es): {', '.join(names)}")
    if event.bridge == "tool_describe" and isinstance(result, Mapping):
        params = result.get("parameters") or {}
        props = params.get("properties") if isinstance(params, Mapping) else None
        required = params.get("required") if isinstance(params, Mapping) else None
        return clip(f"schema: {len(props or {})} parameter(s), required: "
                    f"{', '.join(required or []) or 'none'}")
    if isinstance(result, Mapping) and result.get("dry_run"):
        return "dry run: recorded, not executed (snapshot source)"
    try:
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    except (TypeError, ValueError):
        text = str(result)
    return clip(f"result: {text}")


def outcome_label(outcome: str) -> tuple[str, str]:
    return OUTCOME_LABELS.get(outcome, (outcome, ""))
