"""``toolsearch serve SOURCE`` over stdio, sent a line that is not JSON, or JSON that is not a
JSON-RPC message: the gateway gave no reply at all (the SDK dropped the error it was handed),
so a client waited for an answer that never came; over HTTP the same body gets a -32700. Now
each such line is answered on stdout, in turn, with JSON-RPC's parse error (-32700, id null)
or invalid request (-32600, the message's id when it can be read), without the line echoed
back, and the lines after it are served. Real gateway processes, a real upstream written with
the ``mcp`` SDK (``servers/upstream_server.py``)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from gateway_helpers import env, serve_argv, stop, upstream_entry, write_config

pytestmark = pytest.mark.live

SECRET = "sk-" + "Zq7" * 12
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "pytest-bad-line", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class _Gateway:
    """The gateway over stdio, written to one line at a time and its replies read as they
    come (a thread reads stdout, so a missing reply is a timeout, not a hang)."""

    def __init__(self, tmp_path: Path) -> None:
        config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
        self.proc = subprocess.Popen(
            serve_argv([str(config)], "--events", str(tmp_path / "events.jsonl")),
            env=env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, line: bytes | dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        data = json.dumps(line).encode() if isinstance(line, dict) else line
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float = 30) -> tuple[dict[str, Any], int]:
        """The next line the gateway wrote, parsed, and its length in bytes."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no reply within {timeout} s") from None
        return json.loads(line), len(line)


def test_a_bad_line_is_answered_in_turn_and_the_next_lines_are_served(
        tmp_path: Path) -> None:
    gateway = _Gateway(tmp_path)
    try:
        gateway.send(INITIALIZE)
        assert gateway.reply()[0]["id"] == 1
        gateway.send(INITIALIZED)

        gateway.send(b"this is not json " + SECRET.encode())
        reply, size = gateway.reply()
        assert reply["id"] is None and reply["error"]["code"] == -32700, reply
        assert reply["error"]["message"] == "Parse error"
        assert SECRET not in json.dumps(reply) and "not json" not in json.dumps(reply)

        gateway.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        listed, _ = gateway.reply()
        assert listed["id"] == 2 and "tool_search" in json.dumps(listed), listed

        gateway.send({"jsonrpc": "2.0", "id": 7, "params": {"token": SECRET}})
        reply, _ = gateway.reply()
        assert reply["id"] == 7 and reply["error"]["code"] == -32600, reply
        assert reply["error"]["message"] == "Invalid Request"
        assert SECRET not in json.dumps(reply)

        for line, code in ((b"[1, 2]", -32600), (b'"a string"', -32600),
                           (b"{" + b'"x": ' * 5 + SECRET.encode() * 30_000, -32700)):
            gateway.send(line)
            reply, size = gateway.reply()
            assert reply["id"] is None and reply["error"]["code"] == code, (line[:40], reply)
            assert size < 500 and SECRET not in json.dumps(reply), reply

        # an id that holds a secret, or a huge one, is not echoed: id null
        gateway.send({"jsonrpc": "2.0", "id": SECRET, "x": 1})
        reply, _ = gateway.reply()
        assert reply["id"] is None and reply["error"]["code"] == -32600, reply
        gateway.send({"jsonrpc": "2.0", "id": "n" * 100_000, "x": 1})
        reply, size = gateway.reply()
        assert reply["id"] is None and size < 500, size

        gateway.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "tool_call", "arguments": {"name": "mcp__up__nap",
                                               "arguments": {"seconds": 0.1}}}})
        called, _ = gateway.reply()
        assert called["id"] == 3, called
        assert called["result"]["content"][0]["text"] == "slept 0.1", called
        assert gateway.proc.poll() is None
    finally:
        err = stop(gateway.proc)
    assert SECRET not in err


def test_a_bad_last_line_is_answered_before_the_gateway_ends(tmp_path: Path) -> None:
    """``cat requests | toolsearch serve``: a bad line just before the end of stdin still
    gets its error reply (it is awaited like a request's), and the requests before it theirs
    (a request runs while the next lines are read: its reply may come after the errors)."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    data = b"".join(json.dumps(m).encode() + b"\n" for m in (
        INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    data += b'{"jsonrpc": "2.0", "id": 9, "method": 5}\nnot json'
    done = subprocess.run(serve_argv([str(config)], "--events", str(tmp_path / "e.jsonl")),
                          input=data, capture_output=True, env=env(), timeout=90)
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]
    got = [(r["id"], r.get("error", {}).get("code")) for r in replies]
    assert sorted(got, key=str) == sorted(
        [(1, None), (2, None), (9, -32600), (None, -32700)], key=str), replies
    assert got.index((9, -32600)) < got.index((None, -32700)), got
