"""Small mistakes a new user makes on the command line, each answered in one clear line:
``search -q ''`` (an unset variable) searched for nothing and said "0 of 172 match ''"; a
folder named like a bundled query set hid the set (``--queries seed-demo`` said "is a
directory"); a catalog nested too deeply read "error: ... skipped: ...", as if it went on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _toolsearch(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolsearch", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_search_query_is_an_error(tmp_path: Path, query: str) -> None:
    proc = _toolsearch(tmp_path, "search", "seed-demo", "--query", query)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith("toolsearch: error: --query is empty"), proc.stderr
    assert len(proc.stderr.splitlines()) == 1


def test_a_folder_named_like_a_bundled_set_does_not_hide_it(tmp_path: Path) -> None:
    (tmp_path / "queries" / "seed-demo.jsonl").mkdir(parents=True)  # a folder, not the file
    proc = _toolsearch(tmp_path, "bench", "recall", "seed-demo", "--queries",
                       "queries/seed-demo.jsonl", "--json")
    assert proc.returncode == 0, proc.stderr
    assert '"recall_at_5"' in proc.stdout


def test_a_folder_not_named_like_a_set_is_still_refused(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    proc = _toolsearch(tmp_path, "bench", "recall", "seed-demo", "--queries", "mine")
    assert proc.returncode == 1
    assert "is a directory" in proc.stderr


def test_a_catalog_nested_too_deeply_is_not_said_skipped(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000)
    proc = _toolsearch(tmp_path, "assemble", str(deep))
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"toolsearch: error: {deep}: cannot be read: nested too deeply"
