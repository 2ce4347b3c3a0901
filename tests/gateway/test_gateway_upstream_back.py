"""An upstream said down on stderr (``warning: upstream up down: ...``, or its first start
failing) that the gateway later reconnects is said up again: before, the operator's last
word on it stayed "down" while the gateway served its tools again."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from gateway_helpers import env, serve_argv, upstream_entry, write_config

pytestmark = pytest.mark.live

FLAKY_SERVER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from mcp.server.mcpserver import MCPServer

    tried = Path(sys.argv[1])
    if not tried.exists():  # the first start fails
        tried.write_text("1")
        sys.exit("flaky: not ready yet")
    server = MCPServer("flaky", version="1.0")

    @server.tool(description="Say hello, on the second try.")
    def hello(who: str) -> str:
        return f"hello {who}"

    server.run("stdio")
""")


def _send(proc: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def test_an_upstream_said_down_is_said_up_again(tmp_path: Path) -> None:
    flaky = tmp_path / "flaky.py"
    flaky.write_text(FLAKY_SERVER)
    config = write_config(tmp_path / "servers.json", {
        "up": upstream_entry("up"),
        "flaky": {"command": sys.executable, "args": [str(flaky), str(tmp_path / "tried")]},
    })
    proc = subprocess.Popen(serve_argv([str(config)], "--events",
                                       str(tmp_path / "events.jsonl")), env=env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None and proc.stdin is not None
    try:
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "pytest", "version": "1"}}})
        assert b'"id":1' in proc.stdout.readline()
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "tool_call", "arguments": {"name": "mcp__up__die", "arguments": {}}}})
        time.sleep(6)  # both reconnected (the first retry comes within a second or two)
        proc.stdin.close()
        status = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode(errors="replace")
    assert status == 0, err
    lines = err.splitlines()

    def at(text: str) -> int:
        found = [i for i, line in enumerate(lines) if text in line]
        assert found, err
        return found[0]

    assert at("toolsearch serve: flaky: ") < \
        at("toolsearch serve: upstream 'flaky' is up again: 1 tool"), err
    assert at("toolsearch serve: warning: upstream up down: ") < \
        at("toolsearch serve: upstream 'up' is up again: "), err
