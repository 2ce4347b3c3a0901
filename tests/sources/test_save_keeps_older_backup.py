"""A save that fails after its backup step: the backup step used to replace the older ``.bak``
first, so a write that then failed (a full disk, a file-size limit) left the original file
intact but its older backup gone. The older ``.bak`` now stays until the new content is in
place. The failure is real: the command runs under a file-size limit (``RLIMIT_FSIZE``)
between the old content's size (the backup copy fits) and the new content's (the write does
not)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OLDER = b"# the older backup, kept by an earlier save\n"
HERMES = b"""\
model: gpt-4o  # keep me
tools:
  tool_search:
    enabled: auto
mcp_servers: {}
"""


def _limited(size: int) -> Callable[[], None]:
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.getrlimit(
            resource.RLIMIT_FSIZE)[1]))
    return limit


def _cli(*args: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-m", "toolsearch", *args], capture_output=True,
                          text=True, env=env, timeout=120,
                          preexec_fn=_limited(limit) if limit is not None else None)


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("kind", ["hermes", "catalog", "snapshot"])
def test_a_failed_save_keeps_the_older_backup(tmp_path: Path, kind: str) -> None:
    if kind == "hermes":
        target = tmp_path / "config.yaml"
        target.write_bytes(HERMES)
        args = ["tune", str(target), "--set", "listing_max_tokens=1500", "--save"]
    elif kind == "catalog":
        target = tmp_path / "cat.yaml"
        assert _cli("snapshot", "quickstart", "-o", str(target)).returncode == 0
        args = ["tune", str(target), "--set", "threshold_pct=8", "--save"]
    else:
        target = tmp_path / "out.yaml"
        target.write_bytes(b"notes: not a catalog\n")
        args = ["snapshot", "quickstart", "-o", str(target), "--force"]
    (tmp_path / f"{target.name}.bak").write_bytes(OLDER)
    before = target.read_bytes()
    names = _names(tmp_path)

    run = _cli(*args, limit=len(before))
    assert run.returncode != 0, run.stdout
    assert "File too large" in run.stderr, run.stderr
    assert target.read_bytes() == before
    assert (tmp_path / f"{target.name}.bak").read_bytes() == OLDER
    assert _names(tmp_path) == names  # no temporary file left behind

    run = _cli(*args)  # without the limit the save goes through, and backs up what it replaced
    assert run.returncode == 0, run.stderr
    assert target.read_bytes() != before
    assert (tmp_path / f"{target.name}.bak").read_bytes() == before
    assert _names(tmp_path) == names
