"""SIGTERM is how a supervisor (systemd, a container runtime, a process manager) stops a
gateway: ``toolsearch serve`` stops cleanly, with its upstream servers stopped, the call
in flight recorded in the events file, one ``toolsearch serve: stopped (SIGTERM)`` line and
exit status 0. It printed ``toolsearch: interrupted`` and exited 130, as for a failure or
Ctrl+C. Ctrl+C says ``toolsearch serve: stopped (Ctrl+C)`` and keeps status 130."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from gateway_helpers import (
    read_events,
    send_json,
    stdio_gateway,
    tool_call_message,
    upstream_entry,
    write_config,
)
from test_gateway_terminal import _children

from tests.sources.source_helpers import alive

pytestmark = pytest.mark.live


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_a_signal_mid_call_stops_the_stdio_gateway_cleanly(tmp_path: Path, sig: int) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "events.jsonl"
    with stdio_gateway(config, events, "pytest-supervised") as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        upstreams = _children(proc.pid)
        assert upstreams
        send_json(proc, tool_call_message(2, "mcp__up__nap", {"seconds": 30}))
        time.sleep(1.5)  # the call is running upstream
        os.kill(proc.pid, sig)
        status = proc.wait(timeout=15)
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
