"""Secrets a client sends in ``tool_call`` arguments. The events file masked values under a
secret-looking name (``api_key``) but not the same value when the upstream's error quoted it
back (pydantic's ``input_value={'session': '...'}``) in the record's summary; and the app
hosting the gateway showed the client's arguments and summary in its Activity feed as sent,
with no masking at all. One redacted record now feeds both the file and the app, and a value
the client sent under a secret-looking name is masked wherever the record repeats it. Real
upstream (the ``mcp`` SDK) and a real client over streamable HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from gateway_helpers import free_port, read_events, upstream_entry, write_config
from mcp import Client

from tui.follow import ServeApp

pytestmark = pytest.mark.live

SECRET = "zq7Kx9Lm2Pw4Rt6Yv8"
CALLS = [  # (tool, arguments): each holds SECRET only under a secret-looking name
    ("mcp__up__echo", {"message": "hi", "api_key": SECRET}),
    ("mcp__up__measure", {"text": {"session": SECRET}}),  # the upstream's error quotes it
    ("mcp__up__add", {"a": {"nested": [{"cookie": SECRET}]}, "b": 1}),
    ("mcp__up__echo", {"message": f"Authorization: Bearer {SECRET}"}),
    ("mcp__up__echo", {"message": f"https://x.example/a?api_key={SECRET}&q=1"}),
]


async def test_no_secret_reaches_the_events_file_or_the_activity_feed(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "e.jsonl"
    port = free_port()
    app = ServeApp([str(config)], host="127.0.0.1", port=port, events=events)
    async with app.run_test(size=(120, 40)) as pilot:
        with anyio.fail_after(30):
            while app.session is None or not app.serving:
                await pilot.pause(0.1)
        async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy", cache=None,
                          client_info=types.Implementation(name="agent", version="1")) as c:
            for tool, arguments in CALLS:
                await c.call_tool("tool_call", {"name": tool, "arguments": arguments})
        with anyio.fail_after(30):
            while len(app.activity) < len(CALLS):
                await pilot.pause(0.1)
        feed = [(entry.event.headline(), entry.note) for entry in app.activity]
    assert not [line for line in feed if SECRET in repr(line)], feed
    calls = [r for r in read_events(events) if r.get("type") == "call"]
    assert len(calls) == len(CALLS)
    assert "input_value" in json.dumps(calls[1]), calls[1]  # the quoting summary is there
    assert SECRET not in events.read_text(), events.read_text()
