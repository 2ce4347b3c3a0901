"""Every warning `toolsearch serve` prints reads `toolsearch serve: warning: <text>`, like its
other lines: its log warnings read `toolsearch: WARNING: ...` and its sources' read
`toolsearch: warning: ...`, three shapes on one stderr."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from tests.gateway.gateway_helpers import env, serve_argv, start_http_gateway, stop

SERVER = """\
from mcp.server.mcpserver import MCPServer

server = MCPServer("tiny", version="1.0.0")


@server.tool(description="Add two integers and return the sum.")
def add(a: int, b: int) -> int:
    return a + b


server.run()
"""


def test_the_gateways_warnings_all_read_toolsearch_serve_warning(tmp_path: Path) -> None:
    (tmp_path / "tiny.py").write_text(SERVER)
    # a Hermes config.yaml (JSON is YAML) with a value Hermes reads as its default: a warning
    (tmp_path / "config.yaml").write_text(json.dumps(
        {"mcp_servers": {"tiny": {"command": sys.executable, "args": [str(tmp_path / "tiny.py")]}},
         "tools": {"tool_search": {"threshold_pct": "abc"}}}))
    # the operator's file where the gateway would write its catalog snapshot: a log warning
    sidecar = tmp_path / "ev.catalog.json"
    sidecar.write_text('{"mine": true}\n')
    done = subprocess.run(serve_argv(["config.yaml"], "--events", "ev.jsonl"), cwd=tmp_path,
                          capture_output=True, text=True, env=env(), timeout=60,
                          stdin=subprocess.DEVNULL)  # stdin at its end: served, then stopped
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "toolsearch serve: events -> ev.jsonl", lines
    assert ("toolsearch serve: warning: the gateway's catalog snapshot is not written: "
            "ev.catalog.json: exists and is not a catalog file; it is left alone") in lines, lines
    assert sidecar.read_text() == '{"mine": true}\n'
    assert ("toolsearch serve: warning: config.yaml: tools.tool_search: threshold_pct='abc' is "
            "not a number: read as the default 5") in lines, lines
    warned = [line for line in lines if "warning" in line.lower()]
    assert all(line.startswith("toolsearch serve: warning: ") for line in warned), lines
    assert all(line.startswith("toolsearch serve: ") for line in lines), lines


def test_the_http_servers_own_warnings_read_toolsearch_serve_warning(tmp_path: Path) -> None:
    """uvicorn's warning for a request that is not HTTP read ``toolsearch: WARNING: Invalid
    HTTP request received.``, a fourth shape."""
    catalog = Path(__file__).resolve().parents[2] / "sample_catalogs" / "seed-demo.yaml"
    proc, url = start_http_gateway([str(catalog)], "--events", str(tmp_path / "ev.jsonl"))
    try:
        port = int(url.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"NOT HTTP\x00\x01\r\n\r\n")
            assert sock.recv(100).startswith(b"HTTP/1.1 400")
    finally:
        err = stop(proc)
    lines = err.splitlines()
    assert "toolsearch serve: warning: Invalid HTTP request received." in lines, lines
    assert all(line.startswith("toolsearch serve: ") for line in lines), lines
