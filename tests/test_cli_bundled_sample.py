"""Saving or snapshotting over the bundled sample file, reached by its path, is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolsearch.cli import main
from toolsearch.sources.samples import bundled_sample, sample_path


def test_tune_save_over_the_bundled_sample_by_path_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    path = sample_path("seed-demo")
    assert path is not None
    before = path.read_bytes()
    try:
        code = main(["tune", str(path), "--set", "threshold_pct=5", "--save"])
        assert code != 0
        assert "bundled sample" in capsys.readouterr().err
    finally:
        if path.read_bytes() != before:  # never leave the shipped file changed
            path.write_bytes(before)
        Path(f"{path}.bak").unlink(missing_ok=True)
    assert not Path(f"{path}.bak").exists()


def test_a_copy_of_a_sample_is_not_the_bundled_sample(tmp_path: Path) -> None:
    path = sample_path("seed-demo")
    assert path is not None
    copy = tmp_path / "seed-demo.yaml"
    copy.write_bytes(path.read_bytes())
    assert bundled_sample(str(copy)) is None
    assert bundled_sample(str(path)) == "seed-demo"
    assert bundled_sample("seed-demo") == "seed-demo"


def test_snapshot_over_the_bundled_sample_file_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = sample_path("quickstart")
    assert path is not None
    before = path.read_bytes()
    copy = tmp_path / "q.yaml"
    copy.write_bytes(before)
    try:
        code = main(["snapshot", str(copy), "-o", str(path), "--force"])
        assert code != 0
        assert "bundled sample" in capsys.readouterr().err
    finally:
        if path.read_bytes() != before:  # never leave the shipped file changed
            path.write_bytes(before)
        Path(f"{path}.bak").unlink(missing_ok=True)
    assert not Path(f"{path}.bak").exists()
