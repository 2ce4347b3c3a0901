"""``tune --save`` twice: the ``.bak`` holds the file before the last save (one backup,
replaced by each save), and the saved line says so."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

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



def test_an_edit_made_while_tune_runs_is_kept(tmp_path: Path) -> None:
    """The config is edited after tune read it (here by its own MCP server as it starts, as an
    editor or Hermes would): the save re-reads the file and changes only the --set key."""
    upstream = Path(__file__).parent / "gateway" / "servers" / "upstream_server.py"
    config = tmp_path / "config.yaml"
    edit = (f"sed -i 's/^model: gpt-4o.*/model: claude  # edited/' '{config}'; "
            f"exec '{sys.executable}' '{upstream}' --name up")
    config.write_text(HERMES_CONFIG + "mcp_servers:\n  up:\n    command: sh\n    args:\n"
                      f"      - -c\n      - {json.dumps(edit)}\n", encoding="utf-8")
    read_before = config.read_text(encoding="utf-8")
    out = run("tune", str(config), "--set", "threshold_pct=2", "--save").stdout
    assert "saved tools.tool_search" in out
    text = config.read_text(encoding="utf-8")
    assert "model: claude  # edited" in text  # the edit is kept
    assert yaml.safe_load(text)["tools"]["tool_search"] == {"threshold_pct": 2}
    backup = (tmp_path / "config.yaml.bak").read_text(encoding="utf-8")
    assert "model: claude  # edited" in backup and backup != read_before
