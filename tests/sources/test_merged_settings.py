"""Two SOURCEs setting ``core`` or ``context_length``: the first one's is used (as for the
``tool_search`` block) and each other file is named in a warning; the later file's values were
dropped without a word."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml


def _catalog(folder: Path, name: str, tool: str, file: str = "", **settings: object) -> None:
    data: dict[str, object] = {"name": name, **settings, "toolsets": [
        {"name": f"{name}-tools", "kind": "mcp", "tools": [
            {"name": tool, "description": f"Do the {tool} thing."}]}]}
    (folder / (file or f"{name}.yaml")).write_text(yaml.safe_dump(data), encoding="utf-8")


def _assemble(tmp_path: Path, *files: str) -> tuple[dict[str, object], list[str]]:
    proc = subprocess.run([sys.executable, "-m", "toolsearch", "assemble", *files, "--json"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr.splitlines()


def test_a_later_core_list_and_context_length_are_named_as_ignored(tmp_path: Path) -> None:
    _catalog(tmp_path, "A", "lookup", core=["lookup"], context_length=200_000)
    _catalog(tmp_path, "B", "fetch", core=["fetch"], context_length=8_000)
    first, _ = _assemble(tmp_path, "A.yaml")
    data, lines = _assemble(tmp_path, "A.yaml", "B.yaml")
    assert data["budget"] == first["budget"]  # A's context length is the one in force
    assert lines == ["toolsearch: warning: core list in B.yaml ignored; using A.yaml's",
                     "toolsearch: warning: context_length in B.yaml ignored; using A.yaml's"]
    _, lines = _assemble(tmp_path, "B.yaml", "A.yaml")
    assert lines == ["toolsearch: warning: core list in A.yaml ignored; using B.yaml's",
                     "toolsearch: warning: context_length in A.yaml ignored; using B.yaml's"]


def test_only_the_setting_that_differs_is_warned_of(tmp_path: Path) -> None:
    _catalog(tmp_path, "A", "lookup", core=["lookup"], context_length=200_000)
    _catalog(tmp_path, "B", "fetch", core=["lookup"], context_length=32_000)
    _catalog(tmp_path, "C", "grep")  # sets neither
    _, lines = _assemble(tmp_path, "C.yaml", "A.yaml", "B.yaml")
    assert lines == ["toolsearch: warning: context_length in B.yaml ignored; using A.yaml's"]


def test_same_names_in_two_folders_are_shown_in_full(tmp_path: Path) -> None:
    for folder, length in (("one", 100_000), ("two", 50_000)):
        (tmp_path / folder).mkdir()
        _catalog(tmp_path / folder, folder, f"tool_{folder}", "cat.yaml", context_length=length)
    _, lines = _assemble(tmp_path, "one/cat.yaml", "two/cat.yaml")
    assert lines == ["toolsearch: warning: context_length in two/cat.yaml ignored; using "
                     "one/cat.yaml's"]
