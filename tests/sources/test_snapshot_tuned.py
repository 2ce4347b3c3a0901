"""``toolsearch snapshot ... -o FILE`` over a catalog that holds a tuned ``tool_search`` block:
the block was lost without a copy or a word. Now FILE.bak keeps the old file and a warning
says the tuned block was replaced and where the backup is."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

TUNED = ("# my tuning, by hand\nname: mine\n"
         "tool_search: {threshold_pct: 3, listing_max_tokens: 900}\n"
         "toolsets:\n  - {name: docs, kind: mcp, tools: [{name: lookup}]}\n")


def toolsearch(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "toolsearch", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc


def _source(tmp_path: Path, tool_search: object = None) -> str:
    data: dict[str, object] = {"name": "fresh", "toolsets": [
        {"name": "web", "kind": "mcp", "tools": [{"name": "fetch", "description": "Fetch."}]}]}
    if tool_search is not None:
        data["tool_search"] = tool_search
    (tmp_path / "fresh.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return "fresh.yaml"


@pytest.mark.parametrize("force", [["--force"], []], ids=["force", "no-force"])
def test_tuned_block_is_backed_up_and_named(tmp_path: Path, force: list[str]) -> None:
    out = tmp_path / "mine.yaml"
    out.write_text(TUNED, encoding="utf-8")
    old = out.read_bytes()
    proc = toolsearch("snapshot", _source(tmp_path), "-o", "mine.yaml", *force, cwd=tmp_path)
    assert (tmp_path / "mine.yaml.bak").read_bytes() == old
    assert proc.stderr.splitlines() == [
        "toolsearch: warning: mine.yaml: its tuned tool_search block (threshold_pct, "
        "listing_max_tokens) was replaced by none; the previous file is in mine.yaml.bak"]
    new = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert new["name"] == "fresh" and "tool_search" not in new


def test_replaced_by_the_sources_block(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text(TUNED, encoding="utf-8")
    proc = toolsearch("snapshot", _source(tmp_path, {"threshold_pct": 8}), "-o", "mine.yaml",
                      "--force", cwd=tmp_path)
    assert "was replaced by the SOURCEs' block; the previous file is in mine.yaml.bak" \
        in proc.stderr
    assert (tmp_path / "mine.yaml.bak").read_text(encoding="utf-8") == TUNED


def test_same_block_or_none_needs_no_backup(tmp_path: Path) -> None:
    out = tmp_path / "mine.yaml"
    out.write_text(TUNED.replace("tool_search: {threshold_pct: 3, listing_max_tokens: 900}\n",
                                 ""), encoding="utf-8")
    proc = toolsearch("snapshot", _source(tmp_path), "-o", "mine.yaml", "--force",
                      cwd=tmp_path)
    assert proc.stderr == "" and not (tmp_path / "mine.yaml.bak").exists()
    out.write_text(TUNED, encoding="utf-8")
    proc = toolsearch("snapshot", _source(tmp_path, {"threshold_pct": 3,
                                                     "listing_max_tokens": 900}),
                      "-o", "mine.yaml", "--force", cwd=tmp_path)
    assert proc.stderr == "" and not (tmp_path / "mine.yaml.bak").exists()
