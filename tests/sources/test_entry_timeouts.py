"""A server entry's ``connect_timeout`` / ``startupTimeout`` / ``timeout`` that is not a
positive number of seconds (``"abc"``, ``-1``, ``0``, ``true``, ``nan``, a list) is an error
row naming the key and what it expects: it was read as unset, so the server ran with the
default timeout and the operator's value was dropped without a word. The other servers still
load."""

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
    "word": ({**GOOD, "connect_timeout": "abc"},
             "'connect_timeout' is 'abc'; expected a positive number of seconds"),
    "negative": ({**GOOD, "connect_timeout": -1},
                 "'connect_timeout' is -1; expected a positive number of seconds"),
    "zero": ({**GOOD, "timeout": 0}, "'timeout' is 0; expected a positive number of seconds"),
    "flag": ({**GOOD, "timeout": True},
             "'timeout' is a boolean; expected a positive number of seconds"),
    "notanumber": ({**GOOD, "timeout": "nan"},
                   "'timeout' is 'nan'; expected a positive number of seconds"),
    "startup": ({**GOOD, "startupTimeout": [30]},
                "'startupTimeout' is a list; expected a positive number of seconds"),
}
FINE = {  # numbers, and strings of one, as before; infinity: no limit but the command's
    "tuned": {**GOOD, "connect_timeout": 20, "timeout": "45.5"},
    "endless": {**GOOD, "connect_timeout": "inf"},
}


def _config(tmp_path: Path, kind: str) -> Path:
    return servers_config(tmp_path, kind, {"good": GOOD, **FINE, **{name: entry for name, (entry, _) in BAD.items()}})


@pytest.mark.parametrize("kind", ["client", "hermes"])
def test_a_timeout_that_is_not_seconds_is_an_error_row(tmp_path: Path, kind: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "toolsearch", "assemble",
                           str(_config(tmp_path, kind)), "--json", "--timeout", "30"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = {row["name"]: row for row in json.loads(proc.stdout)["toolsets"]}
    for name in ("good", *FINE):
        assert rows[f"mcp-{name}"]["status"] == "connected", rows[f"mcp-{name}"]
        assert rows[f"mcp-{name}"]["tools"] == 4
    for name, (_, expected) in BAD.items():
        row = rows[f"mcp-{name}"]
        assert row["status"] == "error" and row["tools"] == 0, row
        assert row["error"] == expected, row
        assert f"toolsearch: warning: {name}: failed: {expected}" in proc.stderr.splitlines()
