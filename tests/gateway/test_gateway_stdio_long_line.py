"""``toolsearch serve SOURCE`` over stdio, sent a line far longer than any MCP message (160 MiB
with no newline): the gateway kept every byte of it, then joined, decoded and parsed it,
growing by several times its size (a client writing gigabytes with no newline would take the
machine's memory), to answer "not valid JSON" at the end. Now a line past 64 MiB (MAX_LINE) is answered
at once with a parse error saying it is too long, the rest of it is skipped unread, the
gateway's memory stays bounded, and the next line is served. A real gateway process and a
real upstream written with the ``mcp`` SDK."""

from __future__ import annotations

import json
import select
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from gateway_helpers import (
    send_json,
    stdio_gateway,
    tool_call_message,
    upstream_entry,
    write_config,
)

from toolsearch.gateway.stdio import MAX_LINE

pytestmark = pytest.mark.live

SENT = 160 << 20


def _reply(proc: subprocess.Popen[bytes], seconds: float = 60) -> dict[str, Any]:
    assert proc.stdout is not None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if select.select([proc.stdout], [], [], 0.2)[0]:
            return dict(json.loads(proc.stdout.readline()))
    raise AssertionError("no reply")


def _peak_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines()
                    if line.startswith("VmHWM:")))


def test_an_endless_line_is_refused_and_memory_stays_bounded(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    with stdio_gateway(config, tmp_path / "events.jsonl") as proc:
        assert proc.stdin is not None
        send_json(proc, tool_call_message(2, "mcp__up__add", {"a": 1, "b": 2}))
        assert "result" in _reply(proc)
        before = _peak_kib(proc.pid)
        block = b"x" * (1 << 20)
        for _ in range(SENT >> 20):
            proc.stdin.write(block)
        proc.stdin.flush()
        refused = _reply(proc)
        assert refused["id"] is None and refused["error"]["code"] == -32700, refused
        assert "longer than" in refused["error"]["data"], refused
        proc.stdin.write(b"\n")  # the long line ends; the next one is served
        send_json(proc, tool_call_message(3, "mcp__up__add", {"a": 20, "b": 22}))
        served = _reply(proc)
        assert served["id"] == 3 and "42" in json.dumps(served), served
        grown = _peak_kib(proc.pid) - before
        assert grown < (MAX_LINE >> 10) + 16 * 1024, f"the gateway grew by {grown} KiB for a {SENT >> 20} MiB line"
