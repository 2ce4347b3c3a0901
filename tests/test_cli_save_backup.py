"""``tune --save`` twice: the ``.bak`` holds the file before the last save (one backup,
replaced by each save), and the saved line says so."""

from __future__ import annotations

from pathlib import Path

from tests.test_cli import run

HERMES_CONFIG = """\
model: gpt-4o  # keep me
tools:
  tool_search:
    threshold_pct: 5
"""


def test_each_save_says_its_backup_is_the_file_before_it(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(HERMES_CONFIG, encoding="utf-8")
    backup = tmp_path / "config.yaml.bak"
    out = run("tune", str(config), "--set", "threshold_pct=2", "--save").stdout
    assert f"(backup of the file before this save: {backup}, replaced by each save)" in out
    assert backup.read_text(encoding="utf-8") == HERMES_CONFIG
    first = config.read_text(encoding="utf-8")
    out = run("tune", str(config), "--set", "threshold_pct=3", "--save").stdout
    assert f"(backup of the file before this save: {backup}, replaced by each save)" in out
    assert backup.read_text(encoding="utf-8") == first

