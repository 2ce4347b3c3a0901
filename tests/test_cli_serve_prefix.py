"""``toolsearch serve`` names itself in its warnings (``toolsearch serve: warning: ...``); run
in-process and returned, the next command's warnings read ``toolsearch: warning: ...`` again."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolsearch.cli import main


def test_serve_gives_the_warning_prefix_back(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    # refused before any server starts: a SOURCE that is not there
    assert main(["serve", str(tmp_path / "nope.yaml")]) == 1
    assert "toolsearch: error: " in capsys.readouterr().err
    assert main(["assemble", "seed-demo", "--set", "threshold_pct=abc"]) == 0
    err = capsys.readouterr().err
    assert "toolsearch: warning: --set threshold_pct='abc' is not a number" in err, err
