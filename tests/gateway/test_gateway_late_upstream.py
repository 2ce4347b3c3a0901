"""An upstream still starting when the gateway began serving (past its start-up grace) is
said on stderr when it comes up at last, or fails: before, the operator saw it listed as
still starting and then nothing, either way."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest
from gateway_helpers import events_when, start_http_gateway, stop, upstream_entry, write_config

pytestmark = pytest.mark.live

DELAY = 7.0  # past the gateway's 5 s start-up grace
SECRET = "doom-s3cr3t-9f8e7d6c"

SLOW_SERVER = textwrap.dedent("""
    import sys, time
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("slow", version="1.0")

    @server.tool(description="Say hello, slowly started.")
    def hello(who: str) -> str:
        return f"hello {who}"

    @server.tool(description="Say goodbye.")
    def bye(who: str) -> str:
        return f"bye {who}"

    time.sleep(float(sys.argv[1]))  # nothing read from stdin until then
    server.run("stdio")
""")

DOOMED_SERVER = textwrap.dedent("""
    import os, sys, time

    time.sleep(float(sys.argv[1]))
    print("fatal: cannot log in with token " + os.environ["DOOM_TOKEN"], file=sys.stderr)
    sys.exit(3)
""")


async def test_a_late_upstream_is_said_when_it_comes_up_or_fails(tmp_path: Path) -> None:
    slow = tmp_path / "slow_server.py"
    slow.write_text(SLOW_SERVER)
    doomed = tmp_path / "doomed_server.py"
    doomed.write_text(DOOMED_SERVER)
    config = write_config(tmp_path / "servers.json", {
        "up": upstream_entry("up"),
        "slow": {"command": sys.executable, "args": [str(slow), str(DELAY)]},
        "doomed": {"command": sys.executable, "args": [str(doomed), str(DELAY)],
                   "env": {"DOOM_TOKEN": SECRET}},
    })
    events = tmp_path / "events.jsonl"
    proc, _url = start_http_gateway([str(config)], "--events", str(events), "--timeout", "40")
    try:
        first = await events_when(events, lambda rs: any(r.get("starting") for r in rs))
        assert set(next(r for r in first if r.get("starting"))["starting"]) == {"slow",
                                                                               "doomed"}
        await events_when(events, lambda rs: any(
            r.get("starting") == [] and any(t["name"] == "doomed" and t["error"]
                                            for t in r.get("toolsets", ())) for r in rs),
            seconds=DELAY + 30)
    finally:
        err = stop(proc)
    lines = err.splitlines()
    up = [line for line in lines if line.startswith("toolsearch serve: upstream 'slow' is up")]
    assert len(up) == 1, err
    match = re.fullmatch(r"toolsearch serve: upstream 'slow' is up after (\d+\.\d) s: 2 tools",
                         up[0])
    assert match and float(match.group(1)) >= DELAY - 1, up[0]
    failed = [line for line in lines
              if line.startswith("toolsearch serve: upstream 'doomed' failed after ")]
    assert len(failed) == 1, err
    assert "fatal: cannot log in" in failed[0] and SECRET not in err, failed[0]
    assert "upstream 'up'" not in err  # up within the grace: announced as usual, once
