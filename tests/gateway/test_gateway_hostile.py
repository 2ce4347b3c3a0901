"""The gateway against a hostile upstream and a hostile client: real gateway processes, real
upstream MCP servers (the official SDK, ``servers/hostile_upstream.py``), the SDK's client.
No protocol mocks."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from gateway_helpers import (
    HERE,
    env,
    events_when,
    read_events,
    sdk_client,
    serve_argv,
    start_http_gateway,
    stop,
    text_of,
    upstream_entry,
    write_config,
)
from mcp import Client

from toolsearch.gateway.upstream import PING_INTERVAL

pytestmark = pytest.mark.live

HOSTILE = HERE / "servers" / "hostile_upstream.py"


def hostile(name: str, *args: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(HOSTILE), "--name", name, *args]}


def client(url: str, **kw: Any) -> Client:
    return sdk_client(url, "pytest-hostile", **kw)


async def call(c: Client, name: str, arguments: dict[str, Any] | None = None) -> Any:
    return await c.call_tool("tool_call", {"name": name, "arguments": arguments or {}})


async def test_bad_upstream_entries_are_skipped_and_each_name_runs_the_tool_it_shows(
        tmp_path: Path) -> None:
    """The gateway listed a live server's tools without the entry checks every other listing
    gets: a name with control characters, a 10,000-character name, a 300 kB description and
    a schema 80 levels deep were all offered (the description came back whole from
    tool_describe), and of two tools whose names collide once sanitised (``get.item``,
    ``get_item``; servers ``a.b`` and ``a_b``) the listing showed the first while tool_call
    ran the second."""
    config = write_config(tmp_path / "servers.json", {
        "h": hostile("h", "--odd-names", "--long-description", "300000"),
        "a.b": hostile("first"),
        "a_b": hostile("second"),
    })
    events = tmp_path / "events.jsonl"
    proc, url = start_http_gateway([str(config)], "--events", str(events))
    try:
        async with client(url) as c:
            tools = (await c.list_tools()).tools
            listing = next(t for t in tools if t.name == "tool_search").description or ""
            described = json.loads(text_of(await c.call_tool(
                "tool_describe", {"name": "mcp__h__get_item"})))
            assert described["description"] == "Get one item (dot)."
            assert text_of(await call(c, "mcp__h__get_item")) == "dot"
            assert text_of(await call(c, "mcp__a_b__whoami")) == "first"
            for hidden in ("mcp__h__deepschema", "mcp__h__verbose"):
                reply = await c.call_tool("tool_describe", {"name": hidden})
                assert reply.is_error and len(text_of(reply)) < 1000
        assert "bell" not in listing and "nnnnnnnnnn" not in listing
        assert "mcp__h__oddschema" in listing  # odd but usable: offered
        await events_when(events, lambda rs: any(e.get("tool") == "mcp__a_b__whoami"
                                                 for e in rs))
    finally:
        err = stop(proc)
    for why in ("exposed name 'mcp__h__get_item' already belongs", "control characters",
                "name is too long", "nested too deeply", "description is too large",
                "exposed name 'mcp__a_b__whoami' already belongs"):
        assert why in err, why


async def test_one_malformed_upstream_tool_is_skipped_and_the_others_serve(
        tmp_path: Path) -> None:
    """A live upstream listing one tool with a list for ``inputSchema`` and one whose name is
    a number: the SDK rejected the whole ``tools/list`` reply, so the gateway offered none
    of the server's tools. Now those two are skipped, each named on stderr; the good tool
    and the schema-less one are offered and run (the good tool's structured reply checked
    against the ``outputSchema`` the SDK learnt from the lenient listing)."""
    mixed = {"command": sys.executable,
             "args": [str(HERE.parents[0] / "adversarial" / "servers" / "live_hostile.py"),
                      "--mode", "tools-gen", "--tools-kind", "mixed"]}
    config = write_config(tmp_path / "servers.json", {"mixed": mixed})
    proc, url = start_http_gateway([str(config)])
    try:
        async with client(url) as c:
            found = json.loads(text_of(await c.call_tool("tool_search",
                                                         {"query": "echo text back"})))
            names = json.dumps(found)
            assert "mcp__mixed__echo" in names and "listy" not in names, found
            described = json.loads(text_of(await c.call_tool(
                "tool_describe", {"name": "mcp__mixed__bare"})))
            assert described["parameters"] == {"type": "object", "properties": {}}
            reply = await call(c, "mcp__mixed__echo", {"text": "through the gateway"})
            assert not reply.is_error, reply
            assert "through the gateway" in json.dumps(reply.model_dump(mode="json")), reply
            bare = await call(c, "mcp__mixed__bare")
            assert not bare.is_error, bare
            listy = await call(c, "mcp__mixed__listy")
            assert listy.is_error, listy
    finally:
        err = stop(proc)
    assert "server mixed: tools/list.tools[2] (mixed/listy): skipped: inputSchema" in err, err
    assert "server mixed: tools/list.tools[3] (mixed): skipped: name" in err, err


def _gateway_with_file_limit(sources: list[str], limit: int, *extra: str
                             ) -> tuple[subprocess.Popen[bytes], str]:
    """The HTTP gateway with files capped at *limit* bytes (``RLIMIT_FSIZE``): a write past
    it fails with EFBIG, as on a full disk (Python ignores SIGXFSZ)."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return start_http_gateway(sources, *extra, preexec_fn=cap)


async def test_a_full_disk_drops_records_says_so_once_and_the_gateway_serves_on(
        tmp_path: Path) -> None:
    """A failed write to the events file ended the gateway (the call writer's flush
    raised): with the disk full, the client's calls after the first few failed."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "events.jsonl"
    proc, url = _gateway_with_file_limit([str(config)], 6000, "--events", str(events))
    try:
        async with client(url) as c:
            for i in range(40):
                reply = await call(c, "mcp__up__add", {"a": i, "b": 1})
                assert text_of(reply) == str(i + 1)
        assert proc.poll() is None
    finally:
        err = stop(proc)
    assert events.stat().st_size <= 6000
    assert err.count("cannot write (File too large)") == 1, err
    assert "Traceback" not in err


async def test_events_file_deleted_or_replaced_while_serving(tmp_path: Path) -> None:
    """Deleted while serving, the events file stayed gone (records went to the unlinked
    file, the app following it saw nothing) and nothing was said; replaced, nothing was
    said either. Now: deleted, it is started again; replaced, the new file is left alone;
    each said once on stderr."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "events.jsonl"
    proc, url = start_http_gateway([str(config)], "--events", str(events))
    try:
        async with client(url) as c:
            assert text_of(await call(c, "mcp__up__add", {"a": 1, "b": 1})) == "2"
            await events_when(events, lambda rs: any(e.get("tool") == "mcp__up__add"
                                                     for e in rs))
            for round_ in range(2):
                events.unlink()
                assert text_of(await call(c, "mcp__up__add", {"a": round_, "b": 2})) \
                    == str(round_ + 2)
                await events_when(events, lambda rs: any(e.get("tool") == "mcp__up__add"
                                                         for e in rs))
            theirs = tmp_path / "theirs.txt"
            theirs.write_text("the operator's own file\n")
            os.replace(theirs, events)
            for _ in range(3):
                assert text_of(await call(c, "mcp__up__add", {"a": 2, "b": 2})) == "4"
        time.sleep(0.5)
        assert events.read_text() == "the operator's own file\n"
        assert proc.poll() is None
    finally:
        err = stop(proc)
    assert err.count("deleted while serving; started again") == 1, err
    assert err.count("replaced by another file while serving") == 1, err


async def test_the_catalog_snapshot_never_replaces_the_operators_file(tmp_path: Path) -> None:
    """The snapshot catalog written beside the events file (``NAME.catalog.json``) replaced
    whatever was there: serving ``tools.catalog.json`` with ``--events tools.jsonl``
    rewrote the operator's SOURCE as a catalog named ``gateway``, at every assembly."""
    made = subprocess.run([sys.executable, "-m", "toolsearch", "snapshot", "quickstart", "-o",
                           str(tmp_path / "tools.catalog.json")], env=env(),
                          capture_output=True, timeout=60)
    assert made.returncode == 0, made.stderr
    source = tmp_path / "tools.catalog.json"
    mine = tmp_path / "mine.catalog.json"
    mine.write_text('{"name": "mine", "toolsets": []}\n')
    before = source.read_bytes(), mine.read_bytes()
    proc, url = start_http_gateway([str(source)], "--events", str(tmp_path / "tools.jsonl"))
    other, _ = start_http_gateway([str(source)], "--events", str(tmp_path / "mine.jsonl"))
    try:
        async with client(url) as c:
            assert (await c.call_tool("tool_search", {"query": "read a file"})).content
    finally:
        err = stop(proc) + stop(other)
    assert (source.read_bytes(), mine.read_bytes()) == before
    assert "is one of the SOURCEs of this gateway" in err
    assert "mine.catalog.json: exists and is not a catalog a gateway wrote" in err
    records = [r for r in read_events(tmp_path / "tools.jsonl") if r["type"] == "assembly"]
    assert records and all(r["catalog"] is None for r in records)


def _stdio_gateway(sources: list[str], *extra: str) -> subprocess.Popen[bytes]:
    """The gateway over stdio, its pipes read directly (the SDK's own stdio client reads a
    long line in quadratic time: the test's client must not be the slow part)."""
    proc = subprocess.Popen(serve_argv(sources, *extra), env=env(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _send(proc, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "pytest-raw", "version": "1"}}})
    assert proc.stdout is not None and b'"result"' in proc.stdout.readline()
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return proc


def _send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _raw_call(proc: subprocess.Popen[bytes], ident: int, name: str,
              arguments: dict[str, Any]) -> dict[str, Any]:
    _send(proc, {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": {
        "name": "tool_call", "arguments": {"name": name, "arguments": arguments}}})
    assert proc.stdout is not None
    reply = json.loads(proc.stdout.readline())
    assert reply.get("id") == ident, str(reply)[:300]
    return reply["result"]


def test_a_reply_of_many_megabytes_arrives_and_the_server_stays_up(tmp_path: Path) -> None:
    """The SDK's stdio client joined every 64 kB read to the part of the line it held: a
    25 MB reply (a 50 MB line, text and structured content) took over a minute to read, the
    gateway's re-list of that server waited behind it, and after 15 s the gateway gave the
    server up as hung: the call failed ("server closed the connection") and so did the
    server's next calls while it restarted."""
    config = write_config(tmp_path / "servers.json", {"h": hostile("h")})
    events = tmp_path / "events.jsonl"
    proc = _stdio_gateway([str(config)], "--events", str(events), "--call-timeout", "120")
    try:
        big = _raw_call(proc, 1, "mcp__h__huge_text", {"megabytes": 25})
        assert not big.get("isError"), str(big)[:300]
        assert len(big["content"][0]["text"]) == 25_000_000
        after = _raw_call(proc, 2, "mcp__h__add", {"a": 2, "b": 2})
        assert after["content"][0]["text"] == "4"
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(30)
        err = proc.stderr.read().decode() if proc.stderr else ""
    assert "upstream h down" not in err, err
    record = [r for r in read_events(events) if r.get("tool") == "mcp__h__huge_text"][-1]
    assert record["outcome"] == "ok" and len(json.dumps(record)) < 10_000


def test_a_request_of_50_megabytes_is_read_in_one_pass(tmp_path: Path) -> None:
    """The gateway's stdio reader joined every 64 kB read to the part of the line it held,
    without giving the event loop a turn: a tool_call with a 50 MB argument took 30 s of
    copying before the gateway even parsed it (3 s for the whole call now)."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    proc = _stdio_gateway([str(config)], "--events", str(tmp_path / "events.jsonl"),
                          "--call-timeout", "120")
    try:
        started = time.monotonic()
        measured = _raw_call(proc, 1, "mcp__up__measure", {"text": "y" * 50_000_000})
        took = time.monotonic() - started
        assert measured["content"][0]["text"] == "50000000"
        assert took < 12, f"{took:.1f} s"
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(30)


def test_a_client_that_leaves_mid_call_still_leaves_a_record(tmp_path: Path) -> None:
    """A stdio client that closed its pipes while a tool_call ran (the tool had started
    upstream, with whatever effects it has) left no line in the events file: the cancelled
    request never reached the code that records it."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "events.jsonl"
    proc = _stdio_gateway([str(config)], "--events", str(events))
    _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "tool_call", "arguments": {"name": "mcp__up__nap",
                                           "arguments": {"seconds": 30}}}})
    time.sleep(1.0)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()
    proc.stdout.close()
    started = time.monotonic()
    assert proc.wait(30) == 0
    assert time.monotonic() - started < 10
    naps = [r for r in read_events(events) if r.get("tool") == "mcp__up__nap"]
    assert len(naps) == 1, naps
    assert naps[0]["outcome"] == "error" and "cancelled" in naps[0]["summary"]
    assert naps[0]["client"] == "pytest-raw" and naps[0]["bridge"] == "tool_call"


async def test_two_gateways_on_one_events_file_say_so(tmp_path: Path) -> None:
    """Two gateways given the same events file both appended to it (whole lines, so every
    line still parses) and nothing told the operator the app following it mixes both."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "events.jsonl"
    first, url = start_http_gateway([str(config)], "--events", str(events))
    second, other = start_http_gateway([str(config)], "--events", str(events))
    try:
        for address in (url, other):
            async with client(address) as c:
                assert text_of(await call(c, "mcp__up__add", {"a": 1, "b": 2})) == "3"
        await events_when(events, lambda rs: sum(e.get("tool") == "mcp__up__add"
                                                 for e in rs) == 2)
    finally:
        first_err, second_err = stop(first), stop(second)
    assert "appends to it too" not in first_err
    assert second_err.count("another process (a second gateway?) appends to it too") == 1
    assert all(json.loads(line) for line in events.read_bytes().splitlines())


def test_an_unchanged_tools_list_is_not_checked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry checks cost about a second at 20,000 tools, and the 2026 wire re-lists
    every few seconds: a list equal to the last one keeps its checked listing."""
    from toolsearch.gateway import upstream as module
    from toolsearch.sources.live import ServerConfig, checked_specs

    runs: list[int] = []

    def counted(config: ServerConfig, tools: Any) -> Any:
        runs.append(len(tools))
        return checked_specs(config, tools)

    monkeypatch.setattr(module, "checked_specs", counted)
    server = module.Upstream(ServerConfig(name="h", command="x"))
    listed = [types.Tool(name=f"t{i}", input_schema={"type": "object"}) for i in range(3)]
    server.set_tools(listed, "1")
    first = server.listing
    server.set_tools([t.model_copy() for t in listed], "1")
    assert runs == [3] and server.listing is first
    server.set_tools(listed[:2], "1")
    server.set_tools(listed[:2], "2")
    server.set_down("gone")
    server.set_tools(listed[:2], "2")
    assert runs == [3, 2, 2, 2]


def test_pinging_a_handshake_era_server_prints_no_sdk_warning(tmp_path: Path,
                                                               everything_bin: Path) -> None:
    """The gateway pings a handshake-era upstream every few seconds; the SDK client's
    ``send_ping`` warned on stderr (``MCPDeprecationWarning: ping is removed as of
    2026-07-28``) at the first ping of every ``serve``: a stdio client would log it."""
    config = write_config(tmp_path / "servers.json",
                          {"everything": {"command": str(everything_bin), "args": []}})
    proc, _url = start_http_gateway([str(config)])
    try:
        time.sleep(PING_INTERVAL + 2.0)  # one ping at least
        assert proc.poll() is None
    finally:
        err = stop(proc)
    assert "listening on" in err
    assert "Warning" not in err and "send_ping" not in err, err


def test_a_server_that_cannot_start_is_said_once_not_at_every_retry(tmp_path: Path) -> None:
    """A server that cannot start is retried for good (0.5 s, 1 s, 2 s, ... then every 10 s):
    each retry printed the same warning and wrote an assembly line (and the catalog snapshot)
    again, about 100 kB of events an hour per broken server. Now only a new reason is."""
    config = write_config(tmp_path / "servers.json", {
        "up": upstream_entry("up"), "broken": {"command": str(tmp_path / "no-such-server")}})
    events = tmp_path / "events.jsonl"
    proc, _url = start_http_gateway([str(config)], "--events", str(events))
    try:
        time.sleep(8.0)  # five retries at least
        assert proc.poll() is None
    finally:
        err = stop(proc)
    # said once, as the error row announced at start (not also as a log warning)
    down = [line for line in err.splitlines() if "no-such-server" in line]
    assert len(down) == 1 and "command not found" in down[0], err
    assemblies = [r for r in read_events(events) if r["type"] == "assembly"]
    assert 1 <= len(assemblies) <= 3, [r["time"] for r in assemblies]
    assert {t["name"]: t["status"] for t in assemblies[-1]["toolsets"]} == {
        "up": "connected", "broken": "error"}


async def test_a_slow_tools_list_is_not_asked_for_every_few_seconds(tmp_path: Path) -> None:
    """On the 2026 wire the gateway re-lists every few seconds (there is no ping); a list that
    takes long (20,000 tools: 1.5-2.7 s of the event loop) was asked for again right after.
    An unprompted re-list now waits 19 times what the last one took; a change the server
    announces is still re-listed at once."""
    import anyio
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    from toolsearch.gateway.upstream import RELIST_SHARE, UpstreamPool
    from toolsearch.sources.live import ServerConfig

    lists = tmp_path / "lists.txt"
    config = ServerConfig(name="h", command=sys.executable, args=(
        str(HOSTILE), "--relists", str(lists), "--slow-list", "0.4"), connect_timeout=60)
    pool = UpstreamPool([config], ping_interval=0.1)

    def count() -> int:
        return len(lists.read_text().splitlines()) if lists.exists() else 0

    async with anyio.create_task_group() as tg:
        tg.start_soon(pool.run)
        with anyio.fail_after(60):
            await pool.wait_ready()
        upstream = pool.upstreams[0]
        assert upstream.client is not None, upstream.listing.toolset.error
        assert upstream.client.protocol_version in MODERN_PROTOCOL_VERSIONS
        await anyio.sleep(3.0)  # every 0.5 s before: about six lists
        unprompted = count()
        upstream.relist()  # announced: at once
        with anyio.fail_after(5):
            while count() == unprompted:
                await anyio.sleep(0.05)
        tg.cancel_scope.cancel()
    assert unprompted == 1 and 0.4 * (RELIST_SHARE - 1) > 3.0
