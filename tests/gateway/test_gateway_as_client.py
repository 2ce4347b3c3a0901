"""The gateway used as a client's operator would: every kind of tool result passed through
(audio, embedded resources, resource links, structured content, ``isError``), progress from a
long upstream call reaching the client, a cancelled call cancelled upstream too. The
official Python SDK client over streamable HTTP and over stdio, in front of a real SDK
upstream (``servers/client_upstream.py``). No protocol mocks."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
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
    until,
    write_config,
)
from mcp import Client, StdioServerParameters

from tests.sources.source_helpers import free_port, listening

pytestmark = pytest.mark.live

RICH = HERE / "servers" / "client_upstream.py"


def rich_entry(name: str, *args: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(RICH), "--name", name, *args]}


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, Path]]:
    tmp = tmp_path_factory.mktemp("gwc")
    notes = tmp / "notes.txt"
    config = write_config(tmp / "servers.json", {
        "rich": rich_entry("rich", "--notes", str(notes)),
    })
    events = tmp / "events.jsonl"
    proc, url = start_http_gateway([str(config)], "--events", str(events),
                                   "--call-timeout", "30")
    try:
        yield url, events, notes
    finally:
        stop(proc)


def client(url: Any, **kw: Any) -> Client:
    return sdk_client(url, "pytest-client", **kw)


def dumped(result: Any) -> dict[str, Any]:
    return result.model_dump(by_alias=True, exclude_none=True, mode="json")


async def test_every_kind_of_content_passes_through(gateway: tuple[str, Path, Path]) -> None:
    url, _, _ = gateway
    async with client(url) as c:
        clip = dumped(await c.call_tool("tool_call", {"name": "mcp__rich__clip",
                                                      "arguments": {}}))
        assert [b["type"] for b in clip["content"]] == ["text", "audio"]
        assert clip["content"][1]["mimeType"] == "audio/wav"
        doc = dumped(await c.call_tool("tool_call", {"name": "mcp__rich__document",
                                                     "arguments": {}}))
        assert [b["type"] for b in doc["content"]] == ["resource", "resource", "resource_link"]
        assert doc["content"][0]["resource"]["text"] == "the notes"
        assert doc["content"][1]["resource"]["blob"] == "AAEC"
        assert doc["content"][2]["uri"] == "file:///notes/c.txt"
        reading = await c.call_tool("tool_call", {"name": "mcp__rich__sensor",
                                                  "arguments": {"sensor": "t1"}})
        assert reading.structured_content == {"sensor": "t1", "value": 3.25}
        refused = await c.call_tool("tool_call", {"name": "mcp__rich__refuse", "arguments": {}})
        assert refused.is_error and text_of(refused) == "refused: no"


async def test_a_call_record_is_timed_when_the_call_was_made(
        gateway: tuple[str, Path, Path]) -> None:
    """The events file's ``time`` is when the call was made (its end was written)."""
    url, events, _ = gateway
    made = datetime.now(UTC)
    async with client(url) as c:
        await c.call_tool("tool_call", {"name": "mcp__rich__wait",
                                        "arguments": {"seconds": 1.5}})

    def waits(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r for r in records if r["type"] == "call" and r["tool"] == "mcp__rich__wait"
                and r["outcome"] == "ok"]

    record = waits(await events_when(events, waits))[-1]
    at = datetime.fromisoformat(record["time"].replace("Z", "+00:00"))
    assert record["ms"] >= 1500
    assert abs((at - made).total_seconds()) < 0.5, (record["time"], made)


async def test_progress_of_a_long_upstream_call_reaches_the_client(
        gateway: tuple[str, Path, Path]) -> None:
    url, _, _ = gateway
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total, message))

    async with client(url) as c:
        done = await c.call_tool("tool_call", {"name": "mcp__rich__work",
                                               "arguments": {"steps": 3}},
                                 progress_callback=progress)
    assert text_of(done) == "worked 3 steps"
    assert seen == [(1, 3, "step 1 of 3"), (2, 3, "step 2 of 3"), (3, 3, "step 3 of 3")]


async def test_a_call_the_client_cancels_is_cancelled_upstream(
        gateway: tuple[str, Path, Path]) -> None:
    url, events, notes = gateway
    async with client(url) as c:
        with anyio.move_on_after(1.5):
            await c.call_tool("tool_call", {"name": "mcp__rich__wait",
                                            "arguments": {"seconds": 25}})
        await until(lambda: notes.exists() and "wait cancelled" in notes.read_text(), 10)
        # the gateway and the upstream serve on
        reading = await c.call_tool("tool_call", {"name": "mcp__rich__sensor",
                                                  "arguments": {"sensor": "t2"}})
        assert reading.structured_content == {"sensor": "t2", "value": 3.25}
    records = await events_when(events, lambda rs: any(
        e.get("tool") == "mcp__rich__wait" for e in rs))
    wait = [e for e in records if e.get("tool") == "mcp__rich__wait"][-1]
    assert wait["outcome"] == "error" and "cancelled" in wait["summary"]


async def test_progress_reaches_a_client_over_stdio(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"rich": rich_entry("rich")})
    argv = serve_argv([str(config)], "--events", str(tmp_path / "events.jsonl"))
    seen: list[str | None] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append(message)

    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env(),
                                   cwd=str(tmp_path))
    async with client(params) as c:
        done = await c.call_tool("tool_call", {"name": "mcp__rich__work",
                                               "arguments": {"steps": 2}},
                                 progress_callback=progress)
    assert text_of(done) == "worked 2 steps"
    assert seen == ["step 1 of 2", "step 2 of 2"]


# -- upstream life ---------------------------------------------------------------------------


def assembly_toolsets(events: Path) -> dict[str, dict[str, Any]]:
    last = [e for e in read_events(events) if e["type"] == "assembly"][-1]
    return {t["name"]: t for t in last["toolsets"]}


async def test_an_upstream_that_cannot_start_says_why_in_its_own_words(tmp_path: Path) -> None:
    """Its stderr names the failure (as ``toolsearch assemble`` shows it): the gateway threw
    the stderr of its upstreams away and said "(no stderr output)"."""
    config = write_config(tmp_path / "servers.json", {
        "rich": rich_entry("rich"),
        "dead": rich_entry("dead", "--exit-at-start", "2"),
    })
    events = tmp_path / "events.jsonl"
    proc, url = start_http_gateway([str(config)], "--events", str(events))
    try:
        async with client(url) as c:
            listed = await c.list_tools()
            assert "mcp__rich__sensor" in (listed.tools[0].description or "")
        error = assembly_toolsets(events)["dead"]["error"]
        assert "dead: cannot start (status 2)" in error and "no stderr output" not in error
    finally:
        err = stop(proc)
    assert "dead: cannot start (status 2)" in err


async def test_an_upstream_that_dies_mid_call_comes_back_with_another_tool_set(
        tmp_path: Path) -> None:
    """The call that killed it fails with the server's last words; the server comes back
    offering other tools: the client is told (list_changed), and the search finds the new
    tool, not the old one; the events file keeps no secret of the server's."""
    extra = tmp_path / "extra.txt"
    extra.write_text("alpha_tool\n")
    secret = "tok-9f8e7d6c5b4a39281706"
    config = write_config(tmp_path / "servers.json", {"rich": {
        **rich_entry("rich", "--extra-tools", str(extra)),
        "env": {"CLIENT_UPSTREAM_TOKEN": secret}}})
    events = tmp_path / "events.jsonl"
    proc, url = start_http_gateway([str(config)], "--events", str(events))
    changes: list[Any] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changes.append(message)

    try:
        async with client(url, message_handler=on_message) as c:
            found = json.loads(text_of(await c.call_tool("tool_search",
                                                         {"query": "extra tool"})))
            assert [m["name"] for m in found["matches"]] == ["mcp__rich__alpha_tool"]
            leaked = await c.call_tool("tool_call", {"name": "mcp__rich__leak",
                                                     "arguments": {}})
            assert leaked.is_error and "was refused" in text_of(leaked)
            extra.write_text("beta_tool\n")
            died = await c.call_tool("tool_call", {"name": "mcp__rich__vanish",
                                                   "arguments": {}})
            assert died.is_error
            assert "rich: fatal error: the disk is on fire" in text_of(died)
            await until(lambda: len(changes) >= 2, 20)  # gone, then back with beta_tool
            found = json.loads(text_of(await c.call_tool("tool_search",
                                                         {"query": "extra tool"})))
            assert [m["name"] for m in found["matches"]] == ["mcp__rich__beta_tool"]
            ran = await c.call_tool("tool_call", {"name": "mcp__rich__beta_tool",
                                                  "arguments": {}})
            assert text_of(ran) == "beta_tool ran"
            listing = (await c.list_tools()).tools[0].description or ""
            assert "beta_tool" in listing and "alpha_tool" not in listing
        records = await events_when(events, lambda rs: any(
            e.get("tool") == "mcp__rich__beta_tool" for e in rs))
        vanished = [e for e in records if e.get("tool") == "mcp__rich__vanish"][-1]
        assert vanished["outcome"] == "error" and "disk is on fire" in vanished["summary"]
        assert secret not in events.read_text()
    finally:
        err = stop(proc)
    assert "disk is on fire" in err and secret not in err


async def test_an_http_upstream_that_answers_401_500_or_closes_the_stream(
        tmp_path: Path) -> None:
    """A call the HTTP upstream answers with an error status says which (a 401: its token
    expired), not the SDK's stand-in "server error -32603: Server returned an error
    response"; a stream closed with no reply is an error too; the upstream is used again
    once it answers; the password and ``api_key`` of its URL never reach the events file."""
    mode = tmp_path / "mode"
    port = free_port()
    web = subprocess.Popen([sys.executable, str(HERE / "servers" / "http_upstream.py"),
                            "--port", str(port), "--mode-file", str(mode)],
                           env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    config = write_config(tmp_path / "servers.json", {"web": {
        "url": f"http://someone:pw-4b3c2d1e@127.0.0.1:{port}/mcp?api_key=qk-8a7b6c5d4e"}})
    events = tmp_path / "events.jsonl"
    proc = None
    try:
        await until(lambda: listening(port), 30)
        proc, url = start_http_gateway([str(config)], "--events", str(events))
        add = {"name": "mcp__web__add", "arguments": {"a": 2, "b": 3}}
        async with client(url) as c:
            assert text_of(await c.call_tool("tool_call", add)) == "5"
            said = {}
            for spoil in ("500", "401", "close"):
                mode.write_text(spoil)
                failed = await c.call_tool("tool_call", add)
                assert failed.is_error
                said[spoil] = json.loads(text_of(failed))["error"]
            mode.write_text("ok")
            assert text_of(await c.call_tool("tool_call", add)) == "5"
            web.kill()  # gone: an HTTP server has no stderr to speak of
            web.wait()
            gone = await c.call_tool("tool_call", add)
            said["gone"] = json.loads(text_of(gone))["error"]
        assert said["500"] == "HTTP 500 Internal Server Error"
        assert said["401"] == "HTTP 401 Unauthorized"
        assert "ended without a response" in said["close"]
        assert "stderr" not in said["gone"], said["gone"]
        records = await events_when(events, lambda rs: sum(
            e.get("tool") == "mcp__web__add" for e in rs) >= 5)
        summaries = [e["summary"] for e in records if e.get("tool") == "mcp__web__add"]
        assert "HTTP 401 Unauthorized" in summaries
        text = events.read_text() + (tmp_path / "events.catalog.json").read_text()
        assert "pw-4b3c2d1e" not in text and "qk-8a7b6c5d4e" not in text
    finally:
        err = stop(proc) if proc is not None else ""
        stop(web)
    assert "pw-4b3c2d1e" not in err and "qk-8a7b6c5d4e" not in err


async def test_a_tool_shown_directly_keeps_its_title_annotations_and_output_schema(
        tmp_path: Path) -> None:
    """With tool search off every tool is shown directly: each keeps what its server listed
    beside its schema (a client asks before a destructive tool, checks structured content
    against the output schema); the gateway showed name, description and input only."""
    config = write_config(tmp_path / "servers.json", {"rich": rich_entry("rich")})
    proc, url = start_http_gateway([str(config)], "--set", "enabled=off")
    try:
        async with client(url) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            sensor = tools["mcp__rich__sensor"]
            assert sensor.title == "Sensor reader"
            assert sensor.annotations is not None and sensor.annotations.read_only_hint
            assert sensor.annotations.destructive_hint is False
            assert sensor.output_schema is not None
            assert sensor.output_schema["required"] == ["sensor", "value"]
            assert tools["mcp__rich__clip"].output_schema is None
            reading = await c.call_tool("mcp__rich__sensor", {"sensor": "t3"})
            assert reading.structured_content == {"sensor": "t3", "value": 3.25}
    finally:
        stop(proc)


@pytest.mark.parametrize("alone", [False, True])
async def test_a_tool_of_a_server_that_is_down_says_so(tmp_path: Path, alone: bool) -> None:
    """A client calls a tool it knew of a server that died and does not come back: the
    reply says that server is down and why; it said "'mcp__rich__sensor' is not a deferrable
    tool ... call it directly" (and, the server alone, "unknown tool 'tool_call'")."""
    once = tmp_path / "once"
    servers = {"rich": rich_entry("rich", "--once", str(once))}
    if not alone:
        servers["other"] = rich_entry("other")
    config = write_config(tmp_path / "servers.json", servers)
    events = tmp_path / "events.jsonl"
    proc, url = start_http_gateway([str(config)], "--events", str(events))
    try:
        async with client(url) as c:
            sensor = {"name": "mcp__rich__sensor", "arguments": {"sensor": "t4"}}
            assert (await c.call_tool("tool_call", sensor)).structured_content
            await c.call_tool("tool_call", {"name": "mcp__rich__vanish", "arguments": {}})
            await until(lambda: "cannot start again" in json.dumps(
                assembly_toolsets(events).get("rich", {})), 20)
            for bridge, args in (("tool_call", sensor),
                                 ("tool_describe", {"name": "mcp__rich__sensor"})):
                down = await c.call_tool(bridge, args)
                said = json.loads(text_of(down))["error"]
                assert down.is_error and "its server 'rich' is down" in said, said
                assert "cannot start again" in said
            if not alone:
                other = await c.call_tool("tool_call", {"name": "mcp__other__sensor",
                                                        "arguments": {"sensor": "t5"}})
                assert other.structured_content == {"sensor": "t5", "value": 3.25}
        records = await events_when(events, lambda rs: any(
            e.get("bridge") == "tool_describe" for e in rs))
        last = [e for e in records if e.get("bridge") == "tool_call"][-1 if alone else -2]
        assert last["tool"] == "mcp__rich__sensor" and last["outcome"] == "error"
        assert "is down" in last["summary"]
    finally:
        stop(proc)


async def test_a_server_out_of_scope_is_not_said_to_be_down(tmp_path: Path) -> None:
    """A down server the client may not reach (out of its --scope) is none of its business:
    its failure (its own stderr words) is not handed to the client."""
    config = write_config(tmp_path / "servers.json", {
        "rich": rich_entry("rich", "--exit-at-start", "3"), "other": rich_entry("other")})
    proc, url = start_http_gateway([str(config)], "--scope", "other",
                                   "--events", str(tmp_path / "events.jsonl"))
    try:
        async with client(url) as c:
            reply = await c.call_tool("tool_call", {"name": "mcp__rich__sensor",
                                                    "arguments": {"sensor": "t1"}})
            said = text_of(reply)
            assert reply.is_error
            assert "is down" not in said and "cannot start" not in said, said
            other = await c.call_tool("tool_call", {"name": "mcp__other__sensor",
                                                    "arguments": {"sensor": "t2"}})
            assert other.structured_content == {"sensor": "t2", "value": 3.25}
    finally:
        stop(proc)


async def test_two_http_clients_one_killed_mid_call_the_other_serves_on(
        tmp_path: Path) -> None:
    """Two clients, each its own session; one is killed in the middle of a long call (no
    cancel sent: a lost connection is not a cancel, the call runs on upstream); the other
    keeps calling, and a tuning change reaches it at once."""
    from test_gateway_clients import http_gateway

    async with http_gateway(tmp_path) as (gateway, url):
        killed = subprocess.Popen([sys.executable, "-c", f"""
import anyio, mcp_types as types
from mcp import Client
async def main():
    async with Client({url!r}, mode="legacy", cache=None,
                      client_info=types.Implementation(name="doomed", version="1")) as c:
        print("calling", flush=True)
        await c.call_tool("tool_call", {{"name": "mcp__up__nap", "arguments": {{"seconds": 20}}}})
anyio.run(main)
"""], env=env(), stdout=subprocess.PIPE)
        assert killed.stdout is not None
        await anyio.to_thread.run_sync(killed.stdout.readline)
        changed = anyio.Event()

        async def on_message(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                changed.set()

        async with client(url, message_handler=on_message) as c:
            await c.list_tools()
            await until(lambda: gateway.client_count == 2)
            killed.kill()
            killed.wait()
            for n in range(5):
                added = await c.call_tool("tool_call", {"name": "mcp__up__add",
                                                        "arguments": {"a": n, "b": 1}})
                assert text_of(added) == str(n + 1)
            with anyio.fail_after(5):
                await gateway.retune(lambda s: s.with_config(listing="off"))
                await changed.wait()
            listed = (await c.list_tools()).tools
            assert {t.name for t in listed} == {"tool_search", "tool_describe", "tool_call"}
