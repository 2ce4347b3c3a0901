"""Issue #12 defects: clients of both protocol eras are counted (and stop counting when they
leave), no call record is lost when the gateway stops, and the stdio transport answers
every request it read. Real servers and the SDK's real client; no protocol mocks."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from gateway_helpers import (
    env,
    read_events,
    serve_argv,
    text_of,
    until,
    upstream_entry,
    write_config,
)
from mcp import Client, StdioServerParameters
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tests.sources.source_helpers import free_port, listening
from toolsearch.gateway.server import Gateway

pytestmark = pytest.mark.live

ADD = {"name": "mcp__up__add", "arguments": {"a": 20, "b": 22}}


@asynccontextmanager
async def http_gateway(tmp_path: Path, **kwargs: Any) -> AsyncIterator[tuple[Gateway, str]]:
    """The gateway in this process, serving streamable HTTP on a free port."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    gateway = Gateway([str(config)], **kwargs)
    port = free_port()
    async with gateway.running(), anyio.create_task_group() as tg:
        tg.start_soon(partial(gateway.serve_http, "127.0.0.1", port, handle_signals=False))
        with anyio.fail_after(30):
            while not listening(port):
                await anyio.sleep(0.05)
        yield gateway, f"http://127.0.0.1:{port}/mcp"
        tg.cancel_scope.cancel()


def stdio_gateway(tmp_path: Path) -> tuple[StdioServerParameters, Path]:
    """A gateway over stdio with one upstream server ``up``, and its events file."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "events.jsonl"
    argv = serve_argv([str(config)], "--events", str(events))
    return StdioServerParameters(command=argv[0], args=argv[1:], env=env()), events


def sdk_client(target: Any, mode: str, name: str) -> Client:
    return Client(target, mode=mode, cache=None,
                  client_info=types.Implementation(name=name, version="1"))


async def test_clients_of_both_eras_count_and_leave(tmp_path: Path) -> None:
    counts: list[int] = []
    async with http_gateway(tmp_path, client_idle=1.5) as (gateway, url):
        gateway.add_listener(lambda kind, n: counts.append(n) if kind == "clients" else None)
        assert gateway.client_count == 0
        async with sdk_client(url, "legacy", "old-client") as old:
            assert text_of(await old.call_tool("tool_call", ADD)) == "42"
            assert gateway.client_count == 1
            async with sdk_client(url, "auto", "new-client") as new:
                assert new.protocol_version in MODERN_PROTOCOL_VERSIONS
                assert text_of(await new.call_tool("tool_call", ADD)) == "42"
                assert gateway.client_count == 2  # was 1: the 2026 client went uncounted
                async with new.listen(tools_list_changed=True):
                    await anyio.sleep(2.0)  # longer than the idle window: listening counts
                    assert gateway.client_count == 2
        # the legacy client closed its session; the modern one goes idle after 1.5 s
        await until(lambda: counts[-1] == 0)  # the app's header is told, too
        assert gateway.client_count == 0
    assert counts[:2] == [1, 2]


async def test_a_legacy_client_that_leaves_stops_counting(tmp_path: Path) -> None:
    async with http_gateway(tmp_path) as (gateway, url):
        for n in range(3):
            async with sdk_client(url, "legacy", f"client-{n}") as c:
                await c.call_tool("tool_call", ADD)
                assert gateway.client_count == 1
            await until(lambda: gateway.client_count == 0)  # was 1, 2, 3: never dropped


async def test_a_2026_client_over_stdio_counts(tmp_path: Path) -> None:
    params, events = stdio_gateway(tmp_path)
    async with sdk_client(params, "auto", "stdio-2026") as c:
        assert c.protocol_version in MODERN_PROTOCOL_VERSIONS
        assert text_of(await c.call_tool("tool_call", ADD)) == "42"
        await until(lambda: any(r.get("clients") == 1 for r in read_events(events)
                                if r["type"] == "assembly"))


async def test_no_call_record_is_lost_when_the_gateway_stops(tmp_path: Path) -> None:
    params, events = stdio_gateway(tmp_path)
    async with sdk_client(params, "legacy", "burst") as c:
        async with anyio.create_task_group() as tg:
            for n in range(40):
                tg.start_soon(c.call_tool, "tool_call",
                              {"name": "mcp__up__add", "arguments": {"a": n, "b": 1}})
    calls = [r for r in read_events(events) if r["type"] == "call"]
    assert len(calls) == 40
    assert {r["client"] for r in calls} == {"burst"}
    assert all(r["outcome"] == "ok" and r["summary"].startswith("result: ") for r in calls)
    assert sorted(r["arguments"]["arguments"]["a"] for r in calls) == list(range(40))


def _request(n: int, a: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
        "name": "tool_call", "arguments": {"name": "mcp__up__add", "arguments": {"a": a, "b": 1}}}}


INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"}}}


def test_stdio_over_pipes_answers_in_order_and_exits_cleanly(tmp_path: Path) -> None:
    """The event-loop transport (the client's pipes): JSON lines in, JSON lines out, a
    blank line ignored, and a clean exit when the client closes stdin."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "e.jsonl"
    proc = subprocess.Popen(serve_argv([str(config)], "--events", str(events)), env=env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        def ask(message: dict[str, Any]) -> dict[str, Any]:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write((json.dumps(message) + "\n\n").encode())
            proc.stdin.flush()
            return json.loads(proc.stdout.readline())

        assert ask(INITIALIZE)["result"]["serverInfo"]["name"] == "toolsearch"
        proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        for n in range(1, 11):
            reply = ask(_request(n, n))
            assert reply["id"] == n
            assert reply["result"]["content"][0]["text"] == str(n + 1)
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert len([r for r in read_events(events) if r["type"] == "call"]) == 10


def test_stdio_from_a_file_uses_the_sdk_transport(tmp_path: Path) -> None:
    """stdin that is no pipe (a file) is served by the SDK's own stdio transport."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    source = tmp_path / "requests.jsonl"
    source.write_text(json.dumps(INITIALIZE) + "\n")
    with source.open("rb") as stdin:
        done = subprocess.run(serve_argv([str(config)], "--events", str(tmp_path / "e.jsonl")),
                              stdin=stdin, capture_output=True, env=env(), timeout=120)
    replies = [json.loads(line) for line in done.stdout.decode().splitlines() if line.strip()]
    assert replies and replies[0]["id"] == 0, done.stderr.decode()[-2000:]
    assert replies[0]["result"]["serverInfo"]["name"] == "toolsearch"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
