"""``cat requests | toolsearch serve SOURCE``: a client that writes its requests and closes
stdin gets every reply before the gateway exits. The SDK's serving loop cancelled the calls
still running when stdin ended: a slow tool's reply came back as "Connection closed" and a
request read just before the end got no reply at all. A hung upstream still ends, at its call
timeout, and a request the client cancelled is not waited for."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from gateway_helpers import env, serve_argv, upstream_entry, write_config

pytestmark = pytest.mark.live


def _request(request_id: int, method: str, params: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}


def _nap(request_id: int, seconds: float) -> dict[str, Any]:
    return _request(request_id, "tools/call", {
        "name": "tool_call", "arguments": {"name": "mcp__up__nap",
                                           "arguments": {"seconds": seconds}}})


OPENING = [
    _request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "pipe", "version": "1"}}),
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def _serve(tmp_path: Path, messages: list[dict[str, Any]], *extra: str,
           stdin_file: bool = False) -> tuple[dict[Any, dict[str, Any]], float, str]:
    """Run the gateway with *messages* on stdin (a pipe that ends, or a file); its replies
    by id, the seconds it took, and its stderr."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    data = "".join(json.dumps(m) + "\n" for m in messages).encode()
    argv = serve_argv([str(config)], "--events", str(tmp_path / "events.jsonl"), *extra)
    started = time.monotonic()
    if stdin_file:
        requests = tmp_path / "requests.jsonl"
        requests.write_bytes(data)
        with open(requests, "rb") as stdin:
            done = subprocess.run(argv, stdin=stdin, capture_output=True, env=env(),
                                  timeout=90)
    else:
        done = subprocess.run(argv, input=data, capture_output=True, env=env(), timeout=90)
    took = time.monotonic() - started
    err = done.stderr.decode(errors="replace")
    assert done.returncode == 0, err
    replies = [json.loads(line) for line in done.stdout.decode().splitlines() if line.strip()]
    return {r.get("id"): r for r in replies}, took, err


@pytest.mark.parametrize("stdin_file", [False, True], ids=["pipe", "file"])
def test_every_request_read_before_the_end_of_stdin_is_answered(
        tmp_path: Path, stdin_file: bool) -> None:
    replies, _, err = _serve(tmp_path, [
        *OPENING,
        _request(2, "tools/list"),
        _nap(3, 1.5),
        _request(4, "tools/call", {"name": "no_such_tool", "arguments": {}}),
    ], stdin_file=stdin_file)
    assert sorted(replies) == [1, 2, 3, 4], (replies, err)
    nap = replies[3]
    assert "error" not in nap, nap
    assert nap["result"]["content"][0]["text"] == "slept 1.5"
    assert "unknown tool 'no_such_tool'" in replies[4]["result"]["content"][0]["text"]


def test_a_hung_call_at_the_end_of_stdin_ends_at_its_call_timeout(tmp_path: Path) -> None:
    replies, took, err = _serve(tmp_path, [*OPENING, _nap(2, 120)], "--call-timeout", "2")
    assert sorted(replies) == [1, 2], (replies, err)
    text = replies[2]["result"]["content"][0]["text"]
    assert "no answer from server 'up' within 2 s" in text, text
    assert took < 60, took


def test_a_call_the_client_cancelled_is_not_waited_for(tmp_path: Path) -> None:
    replies, took, err = _serve(tmp_path, [
        *OPENING, _nap(2, 120),
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}},
    ], "--call-timeout", "100")
    assert sorted(replies) == [1], (replies, err)
    assert took < 60, took


def test_a_last_request_with_no_newline_after_it_is_answered(tmp_path: Path) -> None:
    """``printf '...' | toolsearch serve``, or a requests file saved without a final newline:
    the last request was dropped at the end of stdin with no reply (the SDK's own stdio
    transport answers it)."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    data = "".join(json.dumps(m) + "\n" for m in OPENING) + json.dumps(_nap(2, 0.5))
    done = subprocess.run(serve_argv([str(config)], "--events", str(tmp_path / "e.jsonl")),
                          input=data.encode(), capture_output=True, env=env(), timeout=90)
    assert done.returncode == 0, done.stderr
    replies = {r.get("id"): r for r in map(json.loads, done.stdout.decode().splitlines())}
    assert sorted(replies) == [1, 2], done.stderr
    assert replies[2]["result"]["content"][0]["text"] == "slept 0.5"


MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientInfo": {"name": "pipe", "version": "1"},
               "io.modelcontextprotocol/clientCapabilities": {}}


def test_a_listen_stream_is_not_waited_for_at_the_end_of_stdin(tmp_path: Path) -> None:
    """A 2026-wire ``subscriptions/listen`` is answered only when its stream ends: at the end
    of stdin the gateway waited for it for the whole drain (the call timeout and 5 s: 65 s
    by default). The calls beside it still get their replies."""
    nap = _nap(3, 1)
    nap["params"]["_meta"] = MODERN_META
    replies, took, err = _serve(tmp_path, [
        _request(2, "subscriptions/listen", {"notifications": {"toolsListChanged": True},
                                             "_meta": MODERN_META}),
        nap,
    ], "--call-timeout", "60")
    assert replies[3]["result"]["content"][0]["text"] == "slept 1.0", (replies, err)
    assert took < 30, f"{took:.1f} s"
