"""Every warning the CLI prints has one shape, ``toolsearch: warning: <text>`` on stderr,
whoever raised it: a SOURCE's entries, a ``--set`` value, the engine's config parser (through
logging), the command line's own checks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

PREFIX = "toolsearch: warning: "


def toolsearch(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "toolsearch", *args], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    return proc


def _catalog(tmp_path: Path, tool_search: dict[str, object]) -> Path:
    path = tmp_path / "cat.yaml"
    path.write_text(yaml.safe_dump({"name": "c", "tool_search": tool_search, "toolsets": [
        {"name": "docs", "kind": "mcp", "tools": [
            {"name": "lookup", "description": "Look a page up."},
            {"name": "lookup", "description": "The same name again."}]}]}), encoding="utf-8")
    return path


def test_engine_log_warning_has_the_one_shape(tmp_path: Path) -> None:
    """``defer: 5`` is warned about by the config parser through logging: it printed
    ``toolsearch: WARNING: ...``, unlike every other warning."""
    proc = toolsearch("assemble", str(_catalog(tmp_path, {"defer": 5})), "--profile", "latest",
                      "--json")
    json.loads(proc.stdout)
    lines = proc.stderr.splitlines()
    assert f"{PREFIX}tools.tool_search.defer: expected a YAML list of tool names, got int; " \
           "using the curated default" in lines
    assert lines and all(line.startswith(PREFIX) for line in lines), lines


def test_representative_warnings_share_the_shape(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path, {"threshold_pct": "abc"})
    proc = toolsearch("explain", str(catalog), str(catalog), "--set", "listing_max_tokens=-5")
    lines = proc.stderr.splitlines()
    wanted = (
        "cat.yaml: toolsets[0].tools[1] (docs/lookup): skipped",   # a SOURCE's entry
        "cat.yaml: tool_search: threshold_pct='abc'",               # the SOURCE's block
        "--set listing_max_tokens=-5 is outside",                   # a --set value
        f"{str(catalog)!r} is a SOURCE, read here as the TOOL name",  # the CLI's own check
    )
    for start in wanted:
        assert any(line.startswith(PREFIX + start) for line in lines), (start, lines)
    assert all(line.startswith(PREFIX) for line in lines), lines
