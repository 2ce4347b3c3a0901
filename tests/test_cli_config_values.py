"""A ``tool_search`` value in a SOURCE that Hermes does not read as written is still read as
Hermes reads it (clamped, or the default), and the CLI says so once, beside the file's other
warnings, as ``--set`` does for a value typed on the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
CATALOG = {
    "name": "values",
    "toolsets": [
        {"name": "hermes-core", "kind": "core", "tools": [
            {"name": "terminal", "description": "Run a shell command."}]},
        {"name": "github", "kind": "mcp", "tools": [
            {"name": "create_issue", "description": "Open a new issue in a GitHub repository."}]},
    ],
}


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "toolsearch", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr
    return proc


def warnings(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.strip()]


def catalog(tmp_path: Path, block: dict[str, object] | None) -> Path:
    path = tmp_path / "cat.yaml"
    data = CATALOG if block is None else {**CATALOG, "tool_search": block}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


COMMANDS = {
    "assemble": ["assemble", "cat.yaml"],
    "search": ["search", "cat.yaml", "-q", "issue"],
    "explain": ["explain", "cat.yaml", "mcp__github__create_issue"],
    "call": ["call", "cat.yaml", "tool_search", '{"query": "issue"}'],
    "tune": ["tune", "cat.yaml", "--set", "listing_max_tokens=900"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_value_hermes_defaults_is_warned_once_and_still_defaulted(command: str,
                                                                     tmp_path: Path) -> None:
    """`tool_search: {threshold_pct: abc}` was read as 5 without a word, while `--set
    threshold_pct=abc` warned."""
    catalog(tmp_path, {"threshold_pct": "abc"})
    proc = run(*COMMANDS[command], cwd=tmp_path)
    assert warnings(proc) == [
        "toolsearch: warning: cat.yaml: tool_search: threshold_pct='abc' is not a number: "
        "read as the default 5"]
    assembled = json.loads(run("assemble", "cat.yaml", "--json", cwd=tmp_path).stdout)
    assert assembled["config"]["threshold_pct"] == 5  # Hermes' reading is kept


def test_each_key_is_named_with_its_value_and_its_reading(tmp_path: Path) -> None:
    catalog(tmp_path, {"listing_max_tokens": 10 ** 400, "max_search_limit": 3.7,
                       "search_default_limit": 9, "enabled": "maybe", "listing": "off",
                       "threshold_pct": 2.5})
    proc = run("assemble", "cat.yaml", "--json", cwd=tmp_path)
    said = warnings(proc)
    assert said == [
        "toolsearch: warning: cat.yaml: tool_search: " + note for note in (
            f"listing_max_tokens=1{'0' * 58}… is outside 200-60,000: clamped to 60000",
            "max_search_limit=3.7 is read as 3",
            "search_default_limit=9 is outside 1-3 (max_search_limit): clamped to 3",
            "enabled='maybe' is not auto, on or off: read as auto")], said
    config = json.loads(proc.stdout)["config"]
    assert config["listing_max_tokens"] == 60000 and config["search_default_limit"] == 3


def test_a_hermes_config_warns_beside_its_duplicate_keys(tmp_path: Path) -> None:
    """Through the same path as the file's other warnings, in the same words: the file, then
    where in it."""
    config = tmp_path / "config.yaml"
    config.write_text("mcp_servers: {}\ntools:\n  tool_search:\n    threshold_pct: 1\n"
                      "    threshold_pct: abc\n    listing: sometimes\n", encoding="utf-8")
    catalog(tmp_path, None)  # the first SOURCE with a block is the one read
    proc = run("assemble", "cat.yaml", "config.yaml", cwd=tmp_path)
    assert warnings(proc) == [
        "toolsearch: warning: config.yaml: duplicate key 'threshold_pct' (line 5): only the "
        "last one is read",
        "toolsearch: warning: config.yaml: tools.tool_search: threshold_pct='abc' is not a "
        "number: read as the default 5",
        "toolsearch: warning: config.yaml: tools.tool_search: listing='sometimes' is not auto, "
        "on or off: read as auto"]


def test_a_key_set_on_the_command_line_is_not_the_files_to_answer_for(tmp_path: Path) -> None:
    catalog(tmp_path, {"threshold_pct": "abc", "listing_max_tokens": 5})
    proc = run("assemble", "cat.yaml", "--set", "threshold_pct=7", cwd=tmp_path)
    assert warnings(proc) == [
        "toolsearch: warning: cat.yaml: tool_search: listing_max_tokens=5 is outside "
        "200-60,000: clamped to 200"]
    tuned = run("tune", "cat.yaml", "--set", "threshold_pct=abc", cwd=tmp_path)
    assert warnings(tuned)[0].startswith("toolsearch: warning: cat.yaml: tool_search: "
                                         "listing_max_tokens=5 ")
    assert warnings(tuned)[1:] == [
        "toolsearch: warning: --set threshold_pct='abc' is not a number: read as the default 5"]


def test_a_value_that_looks_like_a_secret_is_not_shown(tmp_path: Path) -> None:
    catalog(tmp_path, {"threshold_pct": "ghp_" + "a1B2" * 9})
    proc = run("assemble", "cat.yaml", cwd=tmp_path)
    assert warnings(proc) == ["toolsearch: warning: cat.yaml: tool_search: threshold_pct='***' "
                              "is not a number: read as the default 5"]


def test_values_read_as_written_say_nothing(tmp_path: Path) -> None:
    catalog(tmp_path, {"threshold_pct": 10, "listing": "on", "enabled": True,
                       "listing_max_tokens": "900", "defer": ["x"]})
    assert warnings(run("assemble", "cat.yaml", "--profile", "latest", cwd=tmp_path)) == []


def test_the_gateway_warns_as_the_other_commands_do(tmp_path: Path) -> None:
    """`toolsearch serve` read `threshold_pct: abc` as 5 without a word (it warned of `--set`
    only), while every other command said so."""
    catalog(tmp_path, {"threshold_pct": "abc", "listing_max_tokens": 5})
    proc = run("serve", "cat.yaml", "--events", "ev.jsonl", "--set", "listing_max_tokens=900",
               cwd=tmp_path)  # stdin at its end: the gateway answers nothing and stops
    said = [line for line in warnings(proc) if "warning" in line]
    assert said == ["toolsearch serve: warning: cat.yaml: tool_search: threshold_pct='abc' is "
                    "not a number: read as the default 5"], proc.stderr
