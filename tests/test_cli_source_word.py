"""`toolsearch SOURCE` (no command): a missing file or an unknown word is one line, exit 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolsearch", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("word", ["nope.yaml", "{tmp}/nope.yaml", "./nope", "serch"])
def test_a_missing_source_or_unknown_word_exits_1_with_one_line(word: str,
                                                                 tmp_path: Path) -> None:
    proc = run(word.format(tmp=tmp_path))
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("toolsearch: error: ")
    assert "usage:" not in proc.stderr and proc.stdout == ""
    name = Path(word.format(tmp=tmp_path)).name if "/" in word else word
    assert name in proc.stderr
    if word == "serch":
        assert "not a command" in proc.stderr and "search" in proc.stderr
    else:
        assert "no such file" in proc.stderr


@pytest.mark.parametrize(("args", "said"), [
    (["--theme", "nope"], "--theme: no theme 'nope'"),
    (["--follow", "{tmp}/none.jsonl"], "--follow: no events file"),
    (["--profile", "bm25f", "{tmp}/nope.yaml"], "nope.yaml: no such file"),
])
def test_options_without_a_command_are_the_apps(args: list[str], said: str,
                                                tmp_path: Path) -> None:
    # The help says the command defaults to tui: `toolsearch --theme T` is `toolsearch tui
    # --theme T`, not "invalid choice" for the option's value.
    proc = run(*(a.format(tmp=tmp_path) for a in args))
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and said in proc.stderr, proc.stderr


def test_top_level_options_stay_top_level() -> None:
    assert run("--version").stdout.startswith("toolsearch ")
    for word in ("-h", "--help", "--he"):
        proc = run(word)
        assert proc.returncode == 0 and proc.stdout.startswith("usage: toolsearch [-h]")
