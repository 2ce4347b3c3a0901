"""A stdio client that leaves (closes both its pipes: the process ended) while its
``tools/call`` runs on an upstream: the upstream call is cancelled (the upstream gets
``notifications/cancelled``), the events file records the call at once as ended by the
closed connection, in the words the HTTP gateway uses, and ``serve`` exits with status 0.
Before, the record read "cancelled before the reply (the client left or cancelled it)": the
operator could not tell a client that left from one that cancelled its call."""

from __future__ import annotations

import json
import sys
import textwrap
import time
from pathlib import Path

import pytest
from gateway_helpers import (
    read_events,
    send_json,
    stdio_gateway,
    tool_call_message,
    write_config,
)
from test_gateway_client_left import BLOCKING_SERVER

pytestmark = pytest.mark.live

WIRE_LOGGER = textwrap.dedent("""
    import subprocess, sys
    log = open(sys.argv[1], "a", buffering=1)
    child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE)
    for line in sys.stdin.buffer:
        log.write(line.decode(errors="replace"))
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()
    child.wait()
""")
"""Runs the upstream behind it, noting every line the gateway sends it."""


def test_a_stdio_client_that_leaves_mid_call_cancels_the_upstream_call(tmp_path: Path) -> None:
    server, logger = tmp_path / "blocker.py", tmp_path / "wire.py"
    server.write_text(BLOCKING_SERVER)
    logger.write_text(WIRE_LOGGER)
    notes, wire, events = tmp_path / "notes.txt", tmp_path / "wire.jsonl", \
        tmp_path / "events.jsonl"
    config = write_config(tmp_path / "servers.json", {"blk": {
        "command": sys.executable,
        "args": [str(logger), str(wire), sys.executable, str(server), str(notes)]}})
    with stdio_gateway(config, events, "pytest-leaves") as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        send_json(proc, tool_call_message(2, "mcp__blk__wait_long"))
        deadline = time.monotonic() + 30
        while not notes.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert notes.exists(), "the upstream tool never started"
        proc.stdin.close()  # the client leaves: both its pipes close
        proc.stdout.close()
        status = proc.wait(timeout=20)
    err = proc.stderr.read().decode(errors="replace")
    assert status == 0, err
    assert notes.read_text().split() == ["started", "cancelled"], err
    cancels = [json.loads(line) for line in wire.read_text().splitlines()
               if '"notifications/cancelled"' in line]
    assert len(cancels) == 1, wire.read_text()[-2000:]
    calls = [r for r in read_events(events) if r.get("type") == "call"]
    assert len(calls) == 1, calls
    assert calls[0]["outcome"] == "error" and calls[0]["ms"] < 20_000, calls[0]
    assert calls[0]["tool"] == "mcp__blk__wait_long", calls[0]
    assert "connection closed by the client" in calls[0]["summary"], calls[0]
    assert "Traceback" not in err, err
