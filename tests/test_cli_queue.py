"""More live servers than start at once: the progress lines say how many start, how many at a
time and how many wait, and the command takes one ``--timeout`` per batch of servers that
never answer (what the README says)."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest

from tests.test_cli_newuser import _argv, _run_on_pty
from toolsearch.sources.live import MAX_PARALLEL

SERVERS = MAX_PARALLEL + 8


@pytest.mark.live
def test_servers_past_the_parallel_limit_are_said_to_wait(tmp_path: Path) -> None:
    """With 300 servers, nothing said for a whole --timeout, then "1 of 300 servers listed":
    nothing told the user that 268 had not started yet, or that the command would take about
    ten --timeouts when they all hang."""
    sleep = shutil.which("sleep")
    if sleep is None:
        pytest.skip("no sleep command")
    config = tmp_path / "servers.json"  # servers that start and never answer
    config.write_text(json.dumps({"mcpServers": {
        f"s{i}": {"command": sleep, "args": ["60"]} for i in range(SERVERS)}}))
    started = time.monotonic()
    status, out, err = _run_on_pty(_argv("assemble", str(config), "--timeout", "1", "--json"))
    took = time.monotonic() - started
    assert status == 0, err
    assert len(json.loads(out)["toolsets"]) == SERVERS
    lines = err.replace("\r", "").splitlines()
    assert lines[0] == (f"toolsearch: starting {SERVERS} live servers, {MAX_PARALLEL} at a "
                        "time, each given up to 1 s (--timeout) to list its tools...")
    counts = [re.search(r"\((\d+) of (\d+) servers listed(?:, (\d+) waiting to start)?\)", line)
              for line in lines]
    found = [(int(m[1]), int(m[3] or 0)) for m in counts if m]
    assert found == [(done, max(0, SERVERS - done - MAX_PARALLEL))
                     for done in range(1, SERVERS + 1)]
    assert took >= 2.0  # two batches of one --timeout each: the README's arithmetic
