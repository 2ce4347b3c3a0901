"""``tui --follow EVENTS`` opened on a gateway that already served calls: the app started at
the end of the events file, so the calls made before it opened were not shown. It shows the
calls in the file's last lines (read from the end, never the whole file), then follows."""

from __future__ import annotations

import json
from pathlib import Path

import mcp_types as types
import pytest
from gateway_helpers import start_http_gateway, stop, upstream_entry, write_config
from mcp import Client
from test_gateway_app import feed_text, wait_for

from toolsearch.gateway.events import HISTORY_LINES, history_range, read_records
from tui.follow import FollowApp
from tui.widgets.feed import ActivityFeed


def _call_line(n: int) -> str:
    return json.dumps({"type": "call", "time": "2026-12-02T10:00:00.000Z", "client": "old",
                       "bridge": "tool_call", "tool": f"tool_{n:05d}", "outcome": "ok",
                       "ms": 1.0, "arg_bytes": 2, "result_bytes": 3, "arguments": {},
                       "summary": ""}) + "\n"


def test_history_range_is_the_last_complete_lines_read_from_the_end(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    lines = [_call_line(n) for n in range(10)]
    path.write_text("".join(lines) + '{"type": "call", "partial')
    size = path.stat().st_size
    start, end = history_range(path, lines=3)
    assert end == size
    records, offset = read_records(path, start, end - start)
    assert [r["tool"] for r in records] == ["tool_00007", "tool_00008", "tool_00009"]
    assert offset == len("".join(lines))  # the partial line is left for the follower
    assert history_range(path, lines=50) == (0, size)
    # a bound cutting a line: history starts at the next whole line, never mid-line
    start, _ = history_range(path, lines=50, max_bytes=len(lines[0]) * 2 + 40)
    assert start == len("".join(lines[:8]))
    assert history_range(tmp_path / "missing.jsonl") == (0, 0)


@pytest.mark.live
async def test_the_app_shows_the_calls_made_before_it_opened(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "events.jsonl"
    proc, url = start_http_gateway([str(config)], "--events", str(events))
    try:
        async with Client(url, mode="legacy", cache=None,
                          client_info=types.Implementation(name="earlier", version="1")) as c:
            await c.call_tool("tool_call", {"name": "mcp__up__add",
                                            "arguments": {"a": 1, "b": 2}})
            await c.call_tool("tool_search", {"query": "weather forecast"})
        app = FollowApp(events)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.session is not None)
            await pilot.press("5")
            await wait_for(pilot, lambda: app.query_one(ActivityFeed).lines_written >= 2)
            text = feed_text(app)
            assert "tool_call \u2192 mcp__up__add" in text and "tool_search" in text
            assert "before the app opened" in text and "earlier" in text
            async with Client(url, mode="legacy", cache=None,
                              client_info=types.Implementation(name="later", version="1")
                              ) as c:
                await c.call_tool("tool_call", {"name": "mcp__up__measure",
                                                "arguments": {"text": "abc"}})
            await wait_for(pilot, lambda: "mcp__up__measure" in feed_text(app), 10)
            assert feed_text(app).count("\u2192 mcp__up__add") == 1  # history not shown twice
            # the time column: history has no time of the app's; a call seen live has one
            lines = feed_text(app).splitlines()
            assert any(line.lstrip().startswith("earlier") and "mcp__up__add" in line
                       for line in lines)
            assert not any(line.lstrip().startswith("earlier") and "mcp__up__measure" in line
                           for line in lines)
    finally:
        stop(proc)


async def test_the_history_shown_is_a_bounded_tail(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    total = HISTORY_LINES * 4
    events.write_text("".join(_call_line(n) for n in range(total)))
    app = FollowApp(events)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("5")
        await wait_for(pilot, lambda: len(app.activity) >= HISTORY_LINES, 10)
        await pilot.pause(0.5)
        tools = [e.event.tool for e in app.activity]
        assert len(tools) == HISTORY_LINES
        assert tools[0] == f"tool_{total - HISTORY_LINES:05d}"
        assert tools[-1] == f"tool_{total - 1:05d}"
