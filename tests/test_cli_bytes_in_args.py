"""An argument that is not UTF-8 (a byte a shell passes as is, such as Latin-1 typed in a
non-UTF-8 terminal) written into a file: ``snapshot --name`` failed after its servers ran,
as ``UnicodeEncodeError: 'utf-8' codec can't encode character '\\udcff' ...``. Now one line
naming the option and the byte, before anything starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli_refusals import REPO, one_error


def test_a_snapshot_name_that_is_not_utf8_is_refused_first(tmp_path: Path) -> None:
    out = tmp_path / "out.yaml"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "toolsearch", "snapshot", "seed-demo", "-o",
                           str(out).encode(), "--name", b"n\xffm"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
                          timeout=60)
    said = one_error(done)
    assert said == "--name: not UTF-8 text (it holds the byte 0xff); give it in UTF-8", said
    assert not out.exists()


@pytest.mark.parametrize(("argv", "option"), [
    (["search", "seed-demo", "--query", b"scr\xffape", "--json"], "--query"),
    (["explain", "seed-demo", b"mcp__fire\xff", "--json"], "TOOL"),
    (["call", "seed-demo", "tool_call", b'{"name": "x\xff"}', "--json"], "ARGS_JSON"),
    (["call", "seed-demo", "tool_search", b'{"query": "x\xff"}'], "ARGS_JSON"),
    (["assemble", "seed-demo", "--set", b"listing=\xff", "--json"], "--set"),
    (["tune", "seed-demo", "--set", b"defer=[x\xff]", "--profile", "latest"], "--set"),
    (["serve", "seed-demo", "--set", b"listing=\xff"], "--set"),
])
def test_a_text_argument_that_is_not_utf8_is_refused_in_one_line(
        tmp_path: Path, argv: list[str | bytes], option: str) -> None:
    """--json printed such a query or name as "\\udcff", which strict JSON parsers reject; the
    text output echoed it the same way; a --set value was read (or saved) with it."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "toolsearch", *argv], capture_output=True,
                          text=True, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
                          timeout=60)
    said = one_error(done)
    assert said == f"{option}: not UTF-8 text (it holds the byte 0xff); give it in UTF-8", said
