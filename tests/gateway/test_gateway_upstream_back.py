"""An upstream said down on stderr (``warning: upstream up down: ...``, or its first start
failing) that the gateway later reconnects is said up again: before, the operator's last
word on it stayed "down" while the gateway served its tools again."""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest
from gateway_helpers import (
    send_json,
    stdio_gateway,
    tool_call_message,
    upstream_entry,
    write_config,
)

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


def test_an_upstream_said_down_is_said_up_again(tmp_path: Path) -> None:
    flaky = tmp_path / "flaky.py"
    flaky.write_text(FLAKY_SERVER)
    config = write_config(tmp_path / "servers.json", {
        "up": upstream_entry("up"),
        "flaky": {"command": sys.executable, "args": [str(flaky), str(tmp_path / "tried")]},
    })
    with stdio_gateway(config, tmp_path / "events.jsonl", "pytest") as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        send_json(proc, tool_call_message(2, "mcp__up__die"))
        time.sleep(6)  # both reconnected (the first retry comes within a second or two)
        proc.stdin.close()
        status = proc.wait(timeout=60)
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
