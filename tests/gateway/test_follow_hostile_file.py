"""`tui --follow` on an events file the gateway did not write as it should (garbled, hand-made
or hostile): the app opens, shows what it can read, and never sends the file's escapes to the
terminal. A call line with "ms": "abc" ended the app with a traceback; an outcome holding an
escape sequence reached the terminal raw."""

from __future__ import annotations

import json
from pathlib import Path

from test_gateway_app import wait_for

from toolsearch.profiles import get_profile
from tui.follow import FollowApp

UNSAFE = ("\x1b", "\x07", "\u202e")

HOSTILE = [
    {"type": "assembly", "profile": "no-such-profile", "catalog": ["not", "a", "path"],
     "context_length": "abc", "config": {"threshold_pct": "x", "listing": 5},
     "scope": 5, "detached": "x", "clients": "many", "serving": "\x1b]0;title\x07 http://x"},
    {"type": "call", "bridge": "tool_call", "tool": {"a": 1}, "outcome": "ok", "ms": "abc",
     "arguments": [1, 2], "summary": 123, "client": ["x"]},
    {"type": "call", "bridge": "tool_call", "tool": "\x1b[2Jwiped", "outcome": "\x1b[31mred",
     "ms": 1e308, "summary": "\u202eevil" + "s" * 5000, "client": "\x07bell"},
    {"type": "call", "ms": -5, "time": 12345, "result_bytes": "big"},
    {"type": "call", "ms": True, "time": "2026-12-02T10:00:00", "result_bytes": float("inf")},
]


def _screen(app: FollowApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def _write(path: Path, records: list[object]) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")
        handle.write('[1, 2]\n"text"\nnull\n{not json\n')


async def test_a_hostile_events_file_is_shown_not_obeyed(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    _write(events, HOSTILE)
    app = FollowApp(events)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("5")
        await wait_for(pilot, lambda: len(app.activity) == 4)
        _write(events, HOSTILE[1:])  # and the same again while the app follows
        await wait_for(pilot, lambda: len(app.activity) == 8)
        await pilot.pause(0.3)
        assert app.is_running
        shown = _screen(app)
        assert "wiped" in shown and "red" in shown
        assert not any(mark in shown for mark in UNSAFE)
        assert all(0.0 <= entry.event.ms < 1e9 for entry in app.activity)
        assert app.session is not None
        assert app.session.config.profile is get_profile("seed")  # the unknown one: default
        assert not any(mark in app.sub_title for mark in UNSAFE)
        await pilot.press("enter")  # the newest entry's request and reply
        await pilot.pause(0.3)
        assert not any(mark in _screen(app) for mark in UNSAFE)
