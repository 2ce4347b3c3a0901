"""Several SOURCEs with a ``tool_search`` block: the first one's is used, and each other one is
named in a warning (it was dropped without a word: a tuned file given second looked tuned)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml


def toolsearch(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "toolsearch", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc


def _catalog(folder: Path, name: str, server: str, tool_search: object) -> Path:
    data: dict[str, object] = {"name": name, "toolsets": [
        {"name": server, "kind": "mcp", "tools": [{"name": "lookup", "description": "Look."}]}]}
    if tool_search is not None:
        data["tool_search"] = tool_search
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _assemble(tmp_path: Path, *files: str) -> tuple[dict[str, object], list[str]]:
    proc = toolsearch("assemble", *files, "--json", cwd=tmp_path)
    return json.loads(proc.stdout), proc.stderr.splitlines()


def test_second_block_is_named_as_ignored(tmp_path: Path) -> None:
    _catalog(tmp_path, "A", "docs", {"threshold_pct": 7})
    _catalog(tmp_path, "B", "web", {"threshold_pct": 9})
    data, lines = _assemble(tmp_path, "A.yaml", "B.yaml")
    assert data["config"]["threshold_pct"] == 7  # type: ignore[index]
    assert lines == ["toolsearch: warning: tool_search block in B.yaml ignored; using A.yaml's"]


def test_hermes_block_and_each_ignored_file(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("tools:\n  tool_search: {threshold_pct: 3}\n",
                                          encoding="utf-8")
    _catalog(tmp_path, "A", "docs", {"threshold_pct": 7})
    _catalog(tmp_path, "B", "web", None)
    _catalog(tmp_path, "C", "calendar", {"listing_max_tokens": 900})
    data, lines = _assemble(tmp_path, "config.yaml", "A.yaml", "B.yaml", "C.yaml")
    assert data["config"]["threshold_pct"] == 3  # type: ignore[index]
    assert lines == ["toolsearch: warning: tool_search block in A.yaml ignored; using "
                     "config.yaml's",
                     "toolsearch: warning: tool_search block in C.yaml ignored; using "
                     "config.yaml's"]


def test_one_block_or_the_same_file_twice_is_no_warning(tmp_path: Path) -> None:
    _catalog(tmp_path, "A", "docs", {"threshold_pct": 7})
    _catalog(tmp_path, "B", "web", None)
    _, lines = _assemble(tmp_path, "A.yaml", "B.yaml")
    assert lines == []
    _, lines = _assemble(tmp_path, "A.yaml", "./A.yaml")
    assert not [line for line in lines if "tool_search block" in line]


def test_same_file_names_in_two_folders_are_shown_in_full(tmp_path: Path) -> None:
    for folder, pct in (("one", 7), ("two", 9)):
        (tmp_path / folder).mkdir()
        _catalog(tmp_path / folder, "cat", folder, {"threshold_pct": pct})
    _, lines = _assemble(tmp_path, "one/cat.yaml", "two/cat.yaml")
    assert lines == ["toolsearch: warning: tool_search block in two/cat.yaml ignored; using "
                     "one/cat.yaml's"]
