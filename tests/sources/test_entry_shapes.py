"""A server entry whose key holds the wrong shape of value (``env: "A=1"``, ``command: [npx,
x]``, ``headers: [a]``, ``tools: [a]``) is an error row naming the key and the shape it should have; the
other servers of the file still load. Through the CLI, as an operator meets it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from source_helpers import SERVERS, servers_config

GOOD = {"command": sys.executable, "args": [str(SERVERS / "demo_server.py")]}
BAD: dict[str, tuple[dict[str, Any], str]] = {
    "envstr": ({"command": sys.executable, "env": "A=1"},
               "'env' is a string; expected a mapping"),
    "cmdlist": ({"command": ["npx", "x"]}, "'command' is a list; expected a string"),
    "hdrlist": ({"url": "http://127.0.0.1:9/mcp", "headers": ["a"]},
                "'headers' is a list; expected a mapping"),
    "envnest": ({"command": sys.executable, "env": {"A": ["1"]}},
                "'env': 'A' is a list; expected a string"),
    # a tool filter of the wrong shape was read as no filter: every tool of the server shown
    "toolslist": ({**GOOD, "tools": ["add"]}, "'tools' is a list; expected a mapping"),
    "inclnum": ({**GOOD, "tools": {"include": 5}},
                "'tools.include' is a number; expected a list of tool names"),
}


def toolsearch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolsearch", *args], capture_output=True,
                          text=True, timeout=120)


def _config(tmp_path: Path, kind: str) -> Path:
    return servers_config(tmp_path, kind, {"good": GOOD, **{name: entry for name, (entry, _) in BAD.items()}})


@pytest.mark.parametrize("kind", ["client", "hermes"])
def test_badly_shaped_entries_are_error_rows(tmp_path: Path, kind: str) -> None:
    proc = toolsearch("assemble", str(_config(tmp_path, kind)), "--json", "--timeout", "30")
    assert proc.returncode == 0, proc.stderr
    rows = {row["name"]: row for row in json.loads(proc.stdout)["toolsets"]}
    assert rows["mcp-good"]["status"] == "connected" and rows["mcp-good"]["tools"] == 4
    for name, (_, expected) in BAD.items():
        row = rows[f"mcp-{name}"]
        assert row["status"] == "error" and row["tools"] == 0
        assert expected in row["error"], row
        assert f"toolsearch: warning: {name}: failed: {expected}" in proc.stderr


def test_command_list_hint_names_args(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"x": {"command": ["npx", "-y", "pkg"]}}}),
                    encoding="utf-8")
    proc = toolsearch("assemble", str(path), "--json")
    (row,) = json.loads(proc.stdout)["toolsets"]
    assert "its arguments go in 'args'" in row["error"]
    assert "neither 'command' nor 'url'" not in row["error"]  # what it said before
