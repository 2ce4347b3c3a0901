"""The gateway over streamable HTTP, driven by the official Python SDK client, in front of a
real upstream MCP server (stdio). No protocol mocks."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx2
import mcp_types as types
import pytest
from gateway_helpers import (
    events_when,
    sdk_client,
    start_http_gateway,
    stop,
    text_of,
    upstream_entry,
    write_config,
)
from mcp import Client

pytestmark = pytest.mark.live

BRIDGES = {"tool_search", "tool_describe", "tool_call"}


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, Path]]:
    tmp = tmp_path_factory.mktemp("gw")
    config = write_config(tmp / "servers.json", {
        "up": upstream_entry("up", "--state", str(tmp / "grown")),
    })
    events = tmp / "events.jsonl"
    proc, url = start_http_gateway([str(config)], "--events", str(events),
                                   "--call-timeout", "30")  # generous: CI machines are busy
    try:
        yield url, events, tmp
    finally:
        stop(proc)


def client(url: str, **kw: Any) -> Client:
    return sdk_client(url, "pytest-sdk", **kw)


async def bridge(c: Client, name: str, args: dict[str, Any]) -> Any:
    return await c.call_tool(name, args)


async def test_lists_the_bridges_with_the_listing(gateway: tuple[str, Path, Path]) -> None:
    url, _, _ = gateway
    async with client(url) as c:
        tools = (await c.list_tools()).tools
        capabilities = c.server_capabilities
    assert {t.name for t in tools} == BRIDGES
    search = next(t for t in tools if t.name == "tool_search")
    assert "mcp__up__add" in (search.description or "")
    assert capabilities.tools is not None and capabilities.tools.list_changed


async def test_search_describe_blind_and_real_call(gateway: tuple[str, Path, Path]) -> None:
    url, events, _ = gateway
    async with client(url) as c:
        found = json.loads(text_of(await bridge(c, "tool_search", {"query": "add integers sum"})))
        assert found["matches"][0]["name"] == "mcp__up__add"
        described = json.loads(text_of(await bridge(c, "tool_describe",
                                                     {"name": "mcp__up__add"})))
        assert described["parameters"]["required"] == ["a", "b"]
        blind = await bridge(c, "tool_call", {"name": "mcp__up__add", "arguments": {}})
        assert blind.is_error
        reply = json.loads(text_of(blind))
        assert "NOT invoked" in reply["error"] and reply["parameters"]["required"] == ["a", "b"]
        real = await bridge(c, "tool_call", {"name": "mcp__up__add",
                                             "arguments": {"a": 40, "b": 2}})
        assert not real.is_error and text_of(real) == "42"
        assert real.structured_content == {"result": 42}
    def mine_of(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [e for e in records if e["type"] == "call" and e["client"] == "pytest-sdk"
                and e["tool"] == "mcp__up__add"]

    records = await events_when(events, lambda rs: any(e["outcome"] == "ok" for e in mine_of(rs)))
    calls = [e for e in records if e["type"] == "call"]
    mine = mine_of(records)
    assert [e["outcome"] for e in mine][-2:] == ["missing_args", "ok"]
    assert all(e["bridge"] in BRIDGES for e in calls)


async def test_images_structured_content_and_tool_errors_pass_through(
        gateway: tuple[str, Path, Path]) -> None:
    url, _, _ = gateway
    async with client(url) as c:
        pixel = await bridge(c, "tool_call", {"name": "mcp__up__pixel", "arguments": {}})
        kinds = [b.type for b in pixel.content]
        assert kinds == ["text", "image"] and pixel.content[1].mime_type == "image/png"
        weather = await bridge(c, "tool_call", {"name": "mcp__up__forecast",
                                                "arguments": {"city": "Oslo"}})
        assert weather.structured_content == {"city": "Oslo", "celsius": 21.5}
        failed = await bridge(c, "tool_call", {"name": "mcp__up__explode",
                                               "arguments": {"reason": "kaput"}})
        assert failed.is_error and "exploded: kaput" in text_of(failed)


async def test_guards_recursion_and_unknown(gateway: tuple[str, Path, Path]) -> None:
    url, _, _ = gateway
    async with client(url) as c:
        loop = await bridge(c, "tool_call", {"name": "tool_call", "arguments": {}})
        assert loop.is_error and "itself a bridge tool" in text_of(loop)
        unknown = await c.call_tool("mcp__up__add", {"a": 1, "b": 2})  # deferred: not offered
        assert unknown.is_error and "unknown tool" in text_of(unknown)


async def test_secrets_never_reach_the_events_file(gateway: tuple[str, Path, Path]) -> None:
    url, events, _ = gateway
    secret = "sk-live-abcdef0123456789"
    async with client(url) as c:
        echoed = await bridge(c, "tool_call", {"name": "mcp__up__echo", "arguments": {
            "message": "hi", "api_key": secret}})
        assert text_of(echoed) == "hi"
    records = await events_when(events, lambda rs: any(e.get("tool") == "mcp__up__echo"
                                                       for e in rs))
    assert secret not in events.read_text()
    last = [e for e in records if e.get("tool") == "mcp__up__echo"][-1]
    assert last["arguments"]["arguments"]["api_key"] == "***"


async def test_hung_upstream_is_bounded_by_the_call_timeout(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    proc, url = start_http_gateway([str(config)], "--events", str(tmp_path / "e.jsonl"),
                                   "--call-timeout", "2")
    try:
        async with client(url) as c:
            hung = await bridge(c, "tool_call", {"name": "mcp__up__nap",
                                                 "arguments": {"seconds": 600}})
            assert hung.is_error and "within 2 s" in text_of(hung)
            ok = await bridge(c, "tool_call", {"name": "mcp__up__add",
                                               "arguments": {"a": 1, "b": 1}})
            assert text_of(ok) == "2"
    finally:
        stop(proc)


async def test_hundred_concurrent_calls(gateway: tuple[str, Path, Path]) -> None:
    url, _, _ = gateway
    async with client(url) as c:
        replies = await asyncio.gather(*(
            bridge(c, "tool_call", {"name": "mcp__up__add", "arguments": {"a": i, "b": 1}})
            for i in range(100)))
    assert [text_of(r) for r in replies] == [str(i + 1) for i in range(100)]


async def test_huge_argument_and_garbage_do_not_kill_the_gateway(
        gateway: tuple[str, Path, Path]) -> None:
    url, events, _ = gateway
    big = "x" * 2_000_000
    async with client(url) as c:
        measured = await bridge(c, "tool_call", {"name": "mcp__up__measure",
                                                 "arguments": {"text": big}})
        assert not measured.is_error and text_of(measured) == str(len(big))
        too_big = "y" * 6_000_000  # above the HTTP transport's request limit
        with pytest.raises(Exception):  # noqa: B017 - the transport refuses, whatever its type
            await bridge(c, "tool_call", {"name": "mcp__up__measure",
                                          "arguments": {"text": too_big}})
    records = await events_when(events, lambda rs: any(e.get("tool") == "mcp__up__measure"
                                                       for e in rs))
    last = [e for e in records if e.get("tool") == "mcp__up__measure"][-1]
    assert last["arg_bytes"] > 2_000_000 and len(json.dumps(last)) < 10_000
    async with httpx2.AsyncClient() as http:
        for body in (b"{not json", b"[1,2,3]", b'{"jsonrpc":"2.0","id":1,"method":"nope"}',
                     bytes(range(256))):
            answer = await http.post(url, content=body, headers={
                "content-type": "application/json",
                "accept": "application/json, text/event-stream"})
            assert 400 <= answer.status_code < 500
    async with client(url) as c:
        assert {t.name for t in (await c.list_tools()).tools} == BRIDGES


async def test_upstream_that_dies_is_an_error_then_comes_back(
        gateway: tuple[str, Path, Path]) -> None:
    url, _, _ = gateway
    async with client(url) as c:
        died = await bridge(c, "tool_call", {"name": "mcp__up__die", "arguments": {}})
        assert died.is_error
        text = ""
        for _ in range(200):  # the gateway restarts the server (backoff from 0.5 s)
            again = await bridge(c, "tool_call", {"name": "mcp__up__add",
                                                  "arguments": {"a": 2, "b": 3}})
            text = text_of(again)
            if not again.is_error:
                break
            await anyio.sleep(0.1)
        assert text == "5"


async def test_list_changed_reaches_the_client(gateway: tuple[str, Path, Path]) -> None:
    url, _, _ = gateway
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with client(url, message_handler=on_message) as c:
        before = json.loads(text_of(await bridge(c, "tool_search", {"query": "wave hand"})))
        assert "mcp__up__wave_hand" not in [m["name"] for m in before["matches"]]
        grown = await bridge(c, "tool_call", {"name": "mcp__up__grow", "arguments": {}})
        assert text_of(grown) == "grown"
        with anyio.fail_after(30):
            await changed.wait()
        tools = (await c.list_tools()).tools
        listing = next(t for t in tools if t.name == "tool_search").description or ""
        assert "mcp__up__wave_hand" in listing
        after = json.loads(text_of(await bridge(c, "tool_search", {"query": "wave hand"})))
        assert after["matches"][0]["name"] == "mcp__up__wave_hand"
        waved = await bridge(c, "tool_call", {"name": "mcp__up__wave_hand",
                                              "arguments": {"greeting": "hi"}})
        assert text_of(waved) == "hi from a tool that appeared later"


async def test_bearer_token_is_required_when_configured(tmp_path: Path) -> None:
    from mcp.client.streamable_http import streamable_http_client

    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    token = "gw-token-5b1e9c0d7a"
    proc, url = start_http_gateway([str(config)], "--events", str(tmp_path / "e.jsonl"),
                                   "--token-env", "TS_GATEWAY_TOKEN",
                                   extra_env={"TS_GATEWAY_TOKEN": token})
    try:
        async with httpx2.AsyncClient() as http:
            for auth in (None, "Bearer wrong", f"Basic {token}", f"Bearer {token}x"):
                headers = {"content-type": "application/json"}
                if auth:
                    headers["authorization"] = auth
                answer = await http.post(url, content=b"{}", headers=headers)
                assert answer.status_code == 401
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http:
            async with Client(streamable_http_client(url, http_client=http), mode="legacy",
                              cache=None) as c:
                assert {t.name for t in (await c.list_tools()).tools} == BRIDGES
    finally:
        err = stop(proc)
    assert token not in err


async def test_list_changed_on_the_2026_wire(tmp_path: Path) -> None:
    """A modern client hears list_changed on its subscriptions/listen stream."""
    config = write_config(tmp_path / "servers.json", {
        "up": upstream_entry("up", "--state", str(tmp_path / "grown"))})
    proc, url = start_http_gateway([str(config)], "--events", str(tmp_path / "e.jsonl"))
    try:
        async with Client(url, cache=None) as c:
            assert c.protocol_version >= "2026"
            async with c.listen(tools_list_changed=True) as subscription:
                grown = await c.call_tool("tool_call", {"name": "mcp__up__grow",
                                                        "arguments": {}})
                assert text_of(grown) == "grown"
                with anyio.fail_after(30):
                    async for _event in subscription:
                        break
            found = json.loads(text_of(await c.call_tool("tool_search",
                                                         {"query": "wave hand"})))
            assert found["matches"][0]["name"] == "mcp__up__wave_hand"
    finally:
        stop(proc)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
async def test_stopping_with_a_client_connected_says_one_line(tmp_path: Path, sig: int) -> None:
    """uvicorn logged ``ERROR: ASGI callable returned without completing response.`` for
    each response the stopping gateway cut (the client's call in flight, its SSE stream)
    before the one line saying it stopped (``toolsearch serve: stopped (SIGTERM)``, status 0:
    a supervisor's stop is a clean one; Ctrl+C keeps status 130)."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    proc, url = start_http_gateway([str(config)], "--events", str(tmp_path / "e.jsonl"),
                                   "--call-timeout", "60")
    try:
        with anyio.move_on_after(60):
            async with client(url) as c, anyio.create_task_group() as tg:
                async def nap() -> None:
                    with contextlib.suppress(Exception):
                        await bridge(c, "tool_call", {"name": "mcp__up__nap",
                                                      "arguments": {"seconds": 30}})

                tg.start_soon(nap)
                await events_when(tmp_path / "e.jsonl", lambda _records: True)
                await anyio.sleep(1.5)  # the call is running upstream
                os.kill(proc.pid, sig)
                await anyio.to_thread.run_sync(proc.wait, 30)
                tg.cancel_scope.cancel()
    finally:
        err = stop(proc)
    by = "SIGTERM" if sig == signal.SIGTERM else "Ctrl+C"
    assert proc.returncode == (0 if sig == signal.SIGTERM else 130), err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1] == f"toolsearch serve: stopped ({by})", err
    assert not [line for line in lines if "ERROR" in line or "Traceback" in line], err
