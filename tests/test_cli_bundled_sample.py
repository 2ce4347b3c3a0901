"""Saving or snapshotting over the bundled sample file, reached by its path, is refused."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from toolsearch.cli import main
from toolsearch.sources.samples import bundled_sample, sample_path


@pytest.fixture
def shipped() -> Iterator[Callable[[str], Path]]:
    """The path of a packaged sample file; after the test, the file must be as shipped and
    have no ``.bak`` beside it (restored either way, so a failure never leaves it changed)."""
    kept: dict[Path, bytes] = {}

    def take(name: str) -> Path:
        path = sample_path(name)
        assert path is not None
        kept[path] = path.read_bytes()
        return path

    yield take
    problems = []
    for path, before in kept.items():
        backup = Path(f"{path}.bak")
        if path.read_bytes() != before:
            problems.append(f"{path} changed")
            path.write_bytes(before)
        if backup.exists():
            problems.append(f"{backup} written")
            backup.unlink()
    assert not problems


def test_tune_save_over_the_bundled_sample_by_path_is_refused(
        shipped: Callable[[str], Path], capsys: pytest.CaptureFixture[str]) -> None:
    path = shipped("seed-demo")
    code = main(["tune", str(path), "--set", "threshold_pct=5", "--save"])
    assert code != 0
    assert "bundled sample" in capsys.readouterr().err


def test_a_copy_of_a_sample_is_not_the_bundled_sample(tmp_path: Path) -> None:
    path = sample_path("seed-demo")
    assert path is not None
    copy = tmp_path / "seed-demo.yaml"
    copy.write_bytes(path.read_bytes())
    assert bundled_sample(str(copy)) is None
    assert bundled_sample(str(path)) == "seed-demo"
    assert bundled_sample("seed-demo") == "seed-demo"


def test_snapshot_over_the_bundled_sample_file_is_refused(
        shipped: Callable[[str], Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = shipped("quickstart")
    copy = tmp_path / "q.yaml"
    copy.write_bytes(path.read_bytes())
    code = main(["snapshot", str(copy), "-o", str(path), "--force"])
    assert code != 0
    assert "bundled sample" in capsys.readouterr().err
