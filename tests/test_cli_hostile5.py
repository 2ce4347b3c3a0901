"""Query files as a new user writes them by hand, read by ``toolsearch bench recall
--queries``: a UTF-8 BOM (Notepad) was refused with JSON's own words; a ``query`` that is not
a string (``5``, ``["..."]``) and ``gold`` names that are not strings (``[1, null]``) or none
at all were accepted, read as the tools '1' and 'None', and the query skipped without a word.
Now the BOM is read past, and the others are one line naming the file, line and key, exit
status 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _recall(tmp_path: Path, content: bytes) -> subprocess.CompletedProcess[str]:
    queries = tmp_path / "q.jsonl"
    queries.write_bytes(content)
    return subprocess.run([sys.executable, "-m", "toolsearch", "bench", "recall", "seed-demo",
                           "--queries", str(queries), "--json"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)


def test_a_byte_order_mark_is_read_past(tmp_path: Path) -> None:
    proc = _recall(tmp_path, b'\xef\xbb\xbf{"query": "list files", "gold": ["x"]}\r\n')
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(("line", "message"), [
    ('{"query": 5, "gold": ["x"]}', "'query' is 5; expected a string"),
    ('{"query": ["list files"], "gold": ["x"]}',
     """'query' is ["list files"]; expected a string"""),
    ('{"query": "list files", "gold": [1, null]}',
     "'gold' holds 1; expected tool names (strings)"),
    ('{"query": "list files", "gold": ["x", null]}',
     "'gold' holds null; expected tool names (strings)"),
    ('{"query": "list files", "gold": []}', "'gold' is empty; expected tool names"),
    ('{"query": "list files", "gold_tools": [""]}',
     """'gold_tools' holds ""; expected tool names (strings)"""),
])
def test_a_mistyped_query_line_is_one_error_line(tmp_path: Path, line: str,
                                                 message: str) -> None:
    proc = _recall(tmp_path, f'{{"query": "read", "gold": ["y"]}}\n{line}\n'.encode())
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [f"toolsearch: error: {tmp_path / 'q.jsonl'}:2: {message}"]
    assert proc.stdout == ""


@pytest.mark.parametrize("sources", [[], ["seed-demo"]])
def test_an_empty_queries_argument_is_an_error_not_the_whole_suite(
        tmp_path: Path, sources: list[str]) -> None:
    """``--queries "$QFILE"`` with QFILE unset: with no SOURCE it ran the whole recall suite
    (every profile on every query set, minutes) as if --queries were not given."""
    proc = subprocess.run([sys.executable, "-m", "toolsearch", "bench", "recall", *sources,
                           "--queries", ""], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        "toolsearch: error: argument --queries: empty; expected a query file or a bundled "
        "set's name (see toolsearch bench recall --help)"]
