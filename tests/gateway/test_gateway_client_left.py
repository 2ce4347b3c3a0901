"""A client on the streamable-HTTP side that closes its connection while its ``tools/call``
runs on an upstream: the gateway cancels the upstream call (the upstream gets
``notifications/cancelled``) and the events file records the call as ended by the closed
connection. Before, the upstream tool ran on to its end for nobody, and the events file
recorded it as a success once it did."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from gateway_helpers import events_when, start_http_gateway, stop, write_config
from mcp import Client

pytestmark = pytest.mark.live

BLOCKING_SERVER = textwrap.dedent("""
    import sys
    import anyio
    from mcp.server.mcpserver import MCPServer

    NOTES = sys.argv[1]
    server = MCPServer("blocker", version="1.0")

    def note(word: str) -> None:
        with open(NOTES, "a", encoding="utf-8") as handle:
            handle.write(word + "\\n")

    @server.tool(description="Wait thirty seconds, noting whether it was cancelled.")
    async def wait_long() -> str:
        note("started")
        try:
            await anyio.sleep(30)
        except anyio.get_cancelled_exc_class():
            note("cancelled")
            raise
        note("finished")
        return "waited"

    server.run("stdio")
""")

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


async def _session(http: httpx2.AsyncClient, url: str) -> dict[str, str]:
    """A 2025-era session with the gateway: the headers its later requests carry."""
    init = await http.post(url, headers=HEADERS, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "pytest-leaves", "version": "1"}}})
    assert init.status_code == 200, init.text
    headers = {**HEADERS, "mcp-session-id": init.headers["mcp-session-id"],
               "mcp-protocol-version": "2025-06-18"}
    done = await http.post(url, headers=headers,
                           json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert done.status_code == 202, done.text
    return headers


def _notes(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


@pytest.mark.parametrize("how", ["tool_call", "direct", "tool_call-2026"])
async def test_a_client_that_leaves_mid_call_cancels_the_upstream_call(
        tmp_path: Path, how: str) -> None:
    server = tmp_path / "blocker.py"
    server.write_text(BLOCKING_SERVER)
    notes = tmp_path / "notes.txt"
    config = write_config(tmp_path / "servers.json", {
        "blk": {"command": sys.executable, "args": [str(server), str(notes)]}})
    events = tmp_path / "events.jsonl"
    extra = ("--set", "enabled=false") if how == "direct" else ()
    modern = how.endswith("-2026")
    proc, url = start_http_gateway([str(config)], "--events", str(events), *extra)
    tool = "mcp__blk__wait_long"
    params: dict[str, Any] = {"name": "tool_call", "arguments": {"name": tool, "arguments": {}}} \
        if how.startswith("tool_call") else {"name": tool, "arguments": {}}
    try:
        if modern:  # the 2026 wire: the SDK's client cancels a call by closing its stream
            async with Client(url, mode="auto", cache=None, client_info=types.Implementation(
                    name="pytest-leaves", version="1")) as c:
                assert c.protocol_version not in ("2025-06-18", "2025-11-25"), c.protocol_version
                async with anyio.create_task_group() as tg:
                    tg.start_soon(c.call_tool, params["name"], params["arguments"])
                    with anyio.fail_after(20):
                        while "started" not in _notes(notes):
                            await anyio.sleep(0.05)
                    tg.cancel_scope.cancel()
        else:
            await _leave_mid_call(url, tool, how, params, notes)
        with anyio.fail_after(15):
            while "cancelled" not in _notes(notes):
                await anyio.sleep(0.05)
        records = await events_when(events, lambda rs: any(
            r.get("type") == "call" and r.get("tool") == tool for r in rs))
    finally:
        err = stop(proc)
    assert _notes(notes) == ["started", "cancelled"], (notes, err[-2000:])
    calls = [r for r in records if r.get("type") == "call" and r.get("tool") == tool]
    assert len(calls) == 1, json.dumps(calls)[:2000]
    assert calls[0]["outcome"] == "error" and calls[0]["ms"] < 20_000, calls[0]
    assert calls[0]["bridge"] == ("direct" if how == "direct" else "tool_call")
    assert "connection closed by the client" in calls[0]["summary"], calls[0]


async def _leave_mid_call(url: str, tool: str, how: str, params: dict[str, Any],
                          notes: Path) -> None:
    """A 2025-era client over plain HTTP: posts the call, then closes the connection while
    the upstream tool runs."""
    async with httpx2.AsyncClient(timeout=60) as http:
        headers = await _session(http, url)
        tools = await http.post(url, headers=headers,
                                json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert (f'"name":"{tool}"' in tools.text) == (how == "direct"), tools.text[:500]
        request = http.build_request("POST", url, headers=headers, json={
            "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params})
        response = await http.send(request, stream=True)
        assert response.status_code == 200
        with anyio.fail_after(20):
            while "started" not in _notes(notes):
                await anyio.sleep(0.05)
        await response.aclose()  # the client leaves, its call still running
