"""A dump folder holding a FIFO or a loop of symlinks: the entry is never opened (a FIFO would
hang the read), and the operator is told which entry was skipped and why. Through the CLI,
under a timeout, so a hang fails the test instead of stalling it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")

DUMP = {"server": "docs", "tools": [{"name": "lookup", "description": "Look a page up.",
                                     "inputSchema": {"type": "object"}}]}


def toolsearch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolsearch", *args], capture_output=True,
                          text=True, timeout=60)


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "dumps"
    (folder / "more").mkdir(parents=True)
    (folder / "docs.json").write_text(json.dumps(DUMP), encoding="utf-8")
    return folder


def _loaded(proc: subprocess.CompletedProcess[str]) -> list[str]:
    assert proc.returncode == 0, proc.stderr
    return [row["name"] for row in json.loads(proc.stdout)["toolsets"]]


def test_fifo_is_skipped_with_a_warning_never_opened(folder: Path) -> None:
    os.mkfifo(folder / "more" / "pipe.json")
    proc = toolsearch("assemble", str(folder), "--json")
    assert _loaded(proc) == ["mcp-docs"]
    assert ("toolsearch: warning: more/pipe.json: skipped: is a FIFO (named pipe), not a "
            "file; not opened\n") in proc.stderr


def test_symlink_loop_is_skipped_with_a_warning(folder: Path) -> None:
    os.symlink("b.json", folder / "a.json")
    os.symlink("a.json", folder / "b.json")
    os.symlink("self.json", folder / "more" / "self.json")
    proc = toolsearch("assemble", str(folder), "--json")
    assert _loaded(proc) == ["mcp-docs"]
    for name in ("a.json", "b.json", "more/self.json"):
        assert f"toolsearch: warning: {name}: skipped: a symlink loop; nothing to read\n" \
            in proc.stderr


def test_dangling_symlink_is_named(folder: Path) -> None:
    os.symlink("gone.json", folder / "old.json")
    proc = toolsearch("assemble", str(folder), "--json")
    assert _loaded(proc) == ["mcp-docs"]
    assert "old.json: skipped: a symlink to 'gone.json', which does not exist" in proc.stderr


def test_a_folder_named_like_a_dump_is_walked_not_warned(folder: Path) -> None:
    (folder / "old.json").mkdir()
    (folder / "old.json" / "inner.json").write_text(
        json.dumps({**DUMP, "server": "inner"}), encoding="utf-8")
    proc = toolsearch("assemble", str(folder), "--json")
    assert sorted(_loaded(proc)) == ["mcp-docs", "mcp-inner"]
    assert "skipped" not in proc.stderr


def test_folder_links_are_named_never_followed(folder: Path) -> None:
    """A link back up (``more/up -> ..``) would walk for ever if followed; a link to another
    folder was skipped without a word. Both are named, neither is walked."""
    os.symlink("..", folder / "more" / "up")
    os.symlink("more", folder / "alias")
    proc = toolsearch("assemble", str(folder), "--json")
    assert _loaded(proc) == ["mcp-docs"]
    lines = proc.stderr.splitlines()
    assert "toolsearch: warning: more/up: skipped: a symlink back to a folder above it (a " \
           "loop); not followed" in lines
    assert "toolsearch: warning: alias: skipped: a symlink to a folder; not followed" in lines
