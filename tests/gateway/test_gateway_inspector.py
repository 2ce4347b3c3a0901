"""The gateway over stdio, driven by the MCP Inspector's CLI (a real, independent client),
in front of a real SDK upstream server and the reference ``mcp-server-everything``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from gateway_helpers import (
    env,
    inspector,
    read_events,
    serve_argv,
    text_of,
    upstream_entry,
    write_config,
)

pytestmark = pytest.mark.live


@pytest.fixture
def config(tmp_path: Path, everything_bin: Path) -> Path:
    return write_config(tmp_path / "servers.json", {
        "up": upstream_entry("up"),
        "everything": {"command": str(everything_bin), "args": []},
    })


def call(config: Path, events: Path, tool: str, *args: str) -> dict:
    return inspector([str(config)], "--method", "tools/call", "--tool-name", tool,
                     *(("--tool-arg", *args) if args else ()),
                     serve_args=("--events", str(events)))


def test_inspector_lists_searches_describes_and_calls(need_inspector: Path, config: Path,
                                                      tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    listed = inspector([str(config)], "--method", "tools/list",
                       serve_args=("--events", str(events)))
    names = [t["name"] for t in listed["tools"]]
    assert sorted(names) == ["tool_call", "tool_describe", "tool_search"]
    search_desc = next(t for t in listed["tools"] if t["name"] == "tool_search")["description"]
    assert "mcp__up__add" in search_desc and "mcp__everything__echo" in search_desc

    found = json.loads(text_of(call(config, events, "tool_search", "query=add two integers")))
    assert "mcp__up__add" in [m["name"] for m in found["matches"]]

    described = json.loads(text_of(call(config, events, "tool_describe",
                                        "name=mcp__everything__echo")))
    assert "message" in described["parameters"]["properties"]

    blind = call(config, events, "tool_call", "name=mcp__up__add", "arguments={}")
    assert blind["isError"] is True
    assert json.loads(text_of(blind))["parameters"]["required"] == ["a", "b"]

    real = call(config, events, "tool_call", "name=mcp__up__add", 'arguments={"a": 2, "b": 3}')
    assert real["isError"] is False and text_of(real) == "5"

    reference = call(config, events, "tool_call", "name=mcp__everything__echo",
                     'arguments={"message": "through the gateway"}')
    assert "through the gateway" in text_of(reference) and not reference.get("isError")

    failed = call(config, events, "tool_call", "name=mcp__up__explode",
                  'arguments={"reason": "on purpose"}')
    assert failed["isError"] is True and "exploded: on purpose" in text_of(failed)

    rows = [e for e in read_events(events) if e["type"] == "call"]
    assert {e["client"] for e in rows} == {"inspector-cli"}
    assert [(e["bridge"], e["tool"], e["outcome"]) for e in rows] == [
        ("tool_search", None, "ok"),
        ("tool_describe", "mcp__everything__echo", "ok"),
        ("tool_call", "mcp__up__add", "missing_args"),
        ("tool_call", "mcp__up__add", "ok"),
        ("tool_call", "mcp__everything__echo", "ok"),
        ("tool_call", "mcp__up__explode", "error"),
    ]


def test_scope_restricts_the_reachable_toolsets(need_inspector: Path, config: Path,
                                                tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    listed = inspector([str(config)], "--method", "tools/list",
                       serve_args=("--events", str(events), "--scope", "up"))
    search_desc = next(t for t in listed["tools"] if t["name"] == "tool_search")["description"]
    assert "mcp__up__add" in search_desc and "mcp__everything__" not in search_desc
    out = inspector([str(config)], "--method", "tools/call", "--tool-name", "tool_call",
                    "--tool-arg", "name=mcp__everything__echo", 'arguments={"message": "x"}',
                    serve_args=("--events", str(events), "--scope", "up"))
    assert out["isError"] is True and "not available in this session" in text_of(out)


def test_stdio_garbage_from_the_client_does_not_kill_the_gateway(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "garbage-test", "version": "1"}}}
    lines = ["this is not json", "{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": 42}",
             "\x00\x01\x02", "[]", json.dumps(init),
             json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})]
    proc = subprocess.Popen(serve_argv([str(config)], "--events", str(tmp_path / "e.jsonl")),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env(), text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("\n".join(lines) + "\n")
    proc.stdin.flush()
    answers = {}
    try:
        while 2 not in answers:
            line = proc.stdout.readline()
            if not line:
                break
            message = json.loads(line)
            if "id" in message:
                answers[message["id"]] = message
    finally:
        proc.kill()
        proc.wait(10)
    assert sorted(t["name"] for t in answers[2]["result"]["tools"]) == [
        "tool_call", "tool_describe", "tool_search"]


def test_non_loopback_bind_without_token_is_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    done = subprocess.run(serve_argv([str(config)], "--transport", "http", "--host", "0.0.0.0",
                                     "--events", str(tmp_path / "e.jsonl")),
                          capture_output=True, text=True, env=env(), timeout=60)
    assert done.returncode == 1
    assert "refusing to listen on non-loopback host '0.0.0.0'" in done.stderr
    assert "Traceback" not in done.stderr
    unset = subprocess.run(serve_argv([str(config)], "--transport", "http", "--host", "0.0.0.0",
                                      "--token-env", "TS_NO_SUCH_VAR_X"),
                           capture_output=True, text=True, env=env(), timeout=60)
    assert unset.returncode == 1 and "TS_NO_SUCH_VAR_X" in unset.stderr
