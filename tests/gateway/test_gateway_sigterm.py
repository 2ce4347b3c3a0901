"""SIGTERM is how a supervisor (systemd, a container runtime, a process manager) stops a
gateway: ``toolsearch serve`` stops cleanly, with its upstream servers stopped, the call
in flight recorded in the events file, one ``toolsearch serve: stopped (SIGTERM)`` line and
exit status 0. It printed ``toolsearch: interrupted`` and exited 130, as for a failure or
Ctrl+C. Ctrl+C says ``toolsearch serve: stopped (Ctrl+C)`` and keeps status 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from gateway_helpers import env, read_events, serve_argv, upstream_entry, write_config
from test_gateway_terminal import _children

from tests.sources.source_helpers import alive

pytestmark = pytest.mark.live


def _send(proc: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_a_signal_mid_call_stops_the_stdio_gateway_cleanly(tmp_path: Path, sig: int) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "events.jsonl"
    proc = subprocess.Popen(serve_argv([str(config)], "--events", str(events)), env=env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    try:
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "pytest-supervised", "version": "1"}}})
        assert b'"id":1' in proc.stdout.readline()
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        upstreams = _children(proc.pid)
        assert upstreams
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "tool_call", "arguments": {"name": "mcp__up__nap",
                                               "arguments": {"seconds": 30}}}})
        time.sleep(1.5)  # the call is running upstream
        os.kill(proc.pid, sig)
        status = proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode(errors="replace")
    by = "SIGTERM" if sig == signal.SIGTERM else "Ctrl+C"
    assert status == (0 if sig == signal.SIGTERM else 130), err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1] == f"toolsearch serve: stopped ({by})", err
    assert not [line for line in lines if "interrupted" in line or "Traceback" in line], err
    deadline = time.monotonic() + 5
    while any(alive(p) for p in upstreams) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in upstreams), "upstream servers left running"
    calls = [r for r in read_events(events) if r.get("type") == "call"]
    assert [(c["tool"], c["outcome"]) for c in calls] == [("mcp__up__nap", "error")], calls
