"""A slow upstream does not hold the gateway: the client is answered within the start-up
grace, with the servers up by then; a slow server's tools come later, with list_changed, and
a call to one of them meanwhile says the server is still starting."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from gateway_helpers import (
    HERE,
    events_when,
    read_events,
    sdk_client,
    start_http_gateway,
    stop,
    text_of,
    upstream_entry,
    write_config,
)

from tests.sources.source_helpers import free_port, listening

pytestmark = pytest.mark.live

SLOW = HERE / "servers" / "slow_upstream.py"
DELAY = 15.0


def _slow_http() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SLOW), "--delay", str(DELAY), "--port",
                             str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None and not listening(port):
        time.sleep(0.05)
    assert listening(port), "the slow HTTP upstream did not start"
    return proc, f"http://127.0.0.1:{port}/mcp"


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_slow_upstream_does_not_hold_the_gateway(tmp_path: Path, transport: str
                                                         ) -> None:
    upstream: subprocess.Popen[bytes] | None = None
    if transport == "http":
        upstream, slow_url = _slow_http()
        slow: dict[str, Any] = {"url": slow_url}
    else:
        slow = {"command": sys.executable, "args": [str(SLOW), "--delay", str(DELAY)]}
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up"),
                                                      "sleepy": slow})
    events = tmp_path / "events.jsonl"
    started = time.monotonic()
    proc, url = start_http_gateway([str(config)], "--events", str(events), "--timeout", "40")
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    try:
        async with sdk_client(url, "pytest-slow", message_handler=on_message) as c:
            tools = (await c.list_tools()).tools
            answered = time.monotonic() - started
            assert answered < DELAY - 3, f"tools/list waited {answered:.1f} s for sleepy"
            names = {t.name for t in tools}
            assert "mcp__sleepy__hello" not in names
            listing = next((t.description or "" for t in tools if t.name == "tool_search"),
                           "")
            assert "mcp__sleepy__hello" not in listing
            record = [r for r in read_events(events) if r.get("kind") == "assembly"
                      or "starting" in r][-1]
            assert "sleepy" in record["starting"]
            early = await c.call_tool("tool_call", {"name": "mcp__sleepy__hello",
                                                    "arguments": {"who": "x"}})
            assert early.is_error
            said = json.loads(text_of(early))["error"]
            assert "still starting" in said and "unknown" not in said, said
            with anyio.fail_after(DELAY + 30):
                await changed.wait()
            assert time.monotonic() - started > DELAY - 1  # told when sleepy came up
            tools = (await c.list_tools()).tools
            offered = {t.name for t in tools} | {
                word.strip("`,:;()") for t in tools if t.name == "tool_search"
                for word in (t.description or "").split()}
            assert "mcp__sleepy__hello" in offered
            found = await c.call_tool("tool_search", {"query": "greeting slow server"}) \
                if "tool_search" in {t.name for t in tools} else None
            if found is not None:
                assert "mcp__sleepy__hello" in text_of(found)
            hello = await c.call_tool("tool_call", {"name": "mcp__sleepy__hello",
                                                    "arguments": {"who": "x"}})
            assert text_of(hello) == "hello x from sleepy", text_of(hello)
        after = await events_when(events, lambda rs: any(
            r.get("starting") == [] for r in rs))
        assert any(r.get("starting") == [] for r in after)
    finally:
        err = stop(proc)
        if upstream is not None:
            upstream.terminate()
            upstream.wait(10)
    assert "sleepy: still starting" in err
