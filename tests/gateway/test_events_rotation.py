"""The events file of a long-running gateway: every call appended one line, with no bound
(a million calls is ~340 MB). At :data:`ROTATE_BYTES` it is moved to ``FILE.1`` (replacing an
older one) and ``FILE`` starts again with the current assembly line; ``tui --follow`` reads
on across the move, missing no line."""

from __future__ import annotations

import json
from pathlib import Path

from gateway_helpers import stdio_gateway, tool_call_message, upstream_entry, write_config
from test_gateway_app import feed_text, wait_for

from toolsearch.gateway.events import (
    ROTATE_BYTES,
    EventLog,
    last_record,
    read_records,
    rotated_path,
)
from tui.follow import FollowApp, gateway_gone
from tui.widgets.feed import ActivityFeed


def _call(log: EventLog, n: int) -> None:
    log.call(client="c", bridge="tool_call", tool=f"mcp__up__tool_{n:04d}", outcome="ok",
             ms=1.0, arguments={"text": "x" * 100}, arg_bytes=120, result_bytes=3)


def _tools(path: Path) -> list[str]:
    records, _ = read_records(path)
    return [r["tool"] for r in records if r.get("type") == "call"]


def test_the_file_is_rotated_at_its_size_keeping_one_older_file(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    log = EventLog(path, max_bytes=4000)
    log.assembly({"profile": "bm25f", "tools": ["tool_search"], "catalog": ""})
    try:
        for n in range(100):  # ~300 bytes a line: rotated several times
            _call(log, n)
        older = rotated_path(path)
        assert older == tmp_path / "events.jsonl.1"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["events.jsonl", "events.jsonl.1"]
        assert older.stat().st_size < 4000 + 400 and path.stat().st_size < 4000 + 400
        # the newest calls, in order and with none missing between the two files
        both = _tools(older) + _tools(path)
        assert both == [f"mcp__up__tool_{n:04d}" for n in range(100 - len(both), 100)]
        # the new file starts with the assembly: an app opening it knows the gateway
        first = json.loads(path.read_text().splitlines()[0])
        assert first["type"] == "assembly" and first["profile"] == "bm25f"
        assert last_record(path, "assembly") is not None
        assert gateway_gone(path) == ""  # the new file is held as the first one was
    finally:
        log.close()
    assert gateway_gone(path) != ""


def test_a_file_already_past_the_size_is_rotated_at_the_first_write(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(b'{"type": "call", "tool": "old"}\n' * 200)
    log = EventLog(path, max_bytes=4000)
    try:
        _call(log, 1)
        assert _tools(rotated_path(path))[-1] == "mcp__up__tool_0001"
        assert path.stat().st_size == 0
        _call(log, 2)
        assert _tools(path) == ["mcp__up__tool_0002"]
    finally:
        log.close()


async def test_the_app_following_the_file_reads_on_across_a_rotation(tmp_path: Path) -> None:
    """It read on at its old offset in the new file: nothing after the rotation was shown."""
    path = tmp_path / "events.jsonl"
    log = EventLog(path, max_bytes=3000)
    try:
        _call(log, 0)
        app = FollowApp(path)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.session is not None)
            await pilot.press("5")
            await wait_for(pilot, lambda: "tool_0000" in feed_text(app))
            for n in range(1, 6):  # seen live, before the rotation
                _call(log, n)
            await wait_for(pilot, lambda: "tool_0005" in feed_text(app))
            # written between two polls: the old file's last lines, the move, the new file's
            for n in range(6, 16):
                _call(log, n)
            assert _tools(rotated_path(path))[-1] != "mcp__up__tool_0015"  # it rotated
            assert "mcp__up__tool_0015" in _tools(path)
            await wait_for(pilot, lambda: "tool_0015" in feed_text(app), 10)
            for n in range(16, 30):  # and on, across more rotations
                _call(log, n)
                await pilot.pause(0.05)
            await wait_for(pilot, lambda: "tool_0029" in feed_text(app), 10)
            text = feed_text(app)
            assert all(f"tool_{n:04d}" in text for n in range(30))
            assert app.query_one(ActivityFeed).lines_written >= 30
            assert text.count("tool_0010") == 1  # none shown twice
    finally:
        log.close()


async def test_the_app_opened_just_after_a_rotation_shows_the_calls_before_it(
        tmp_path: Path) -> None:
    """Its history was the new file's last lines alone: opened just after a rotation, the
    feed was empty of the calls made a moment before."""
    path = tmp_path / "events.jsonl"
    log = EventLog(path, max_bytes=3000)
    try:
        for n in range(12):
            _call(log, n)
        older = _tools(rotated_path(path))
        assert older and len(_tools(path)) < 3  # the app opens on a file just started
        app = FollowApp(path)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.session is not None)
            await pilot.press("5")
            await wait_for(pilot, lambda: "tool_0011" in feed_text(app))
            text = feed_text(app)
            assert all(name.removeprefix("mcp__up__") in text for name in older)
            assert "before the app opened" in text
    finally:
        log.close()


def test_a_gateway_started_on_a_full_file_rotates_it(tmp_path: Path) -> None:
    """The gateway itself, over stdio: its events file already past the size (a gateway
    restarted on it) is moved at the first line, and the call lands in the new file."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "events.jsonl"
    line = b'{"type": "call", "tool": "from_last_month"}\n'
    events.write_bytes(line * (ROTATE_BYTES // len(line) + 1))
    with stdio_gateway(config, events) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(tool_call_message(2, "mcp__up__add", {"a": 2, "b": 3}))
                          + "\n").encode())
        proc.stdin.flush()
        assert b'"id":2' in proc.stdout.readline()
        proc.stdin.close()
        assert proc.wait(60) == 0
    older = rotated_path(events)
    assert older.stat().st_size > ROTATE_BYTES
    assert older.read_bytes().startswith(line)
    records, _ = read_records(events)
    assert records[0]["type"] == "assembly"
    assert [r["tool"] for r in records if r["type"] == "call"] == ["mcp__up__add"]
