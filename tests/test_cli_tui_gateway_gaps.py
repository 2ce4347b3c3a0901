"""``tui --serve`` and ``tui --follow`` refusals as a user meets them: without a terminal the
app is refused before its gateway listens (it bound the port, then refused, and a port in
use was named instead of the missing terminal); a folder given to ``--follow`` is named a
folder (it read "no events file at DIR")."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.test_cli_refusals import one_error, run


def test_serve_without_a_terminal_is_refused_before_it_listens(tmp_path: Path) -> None:
    with socket.socket() as taken:  # a port in use: binding first would fail on it
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        said = one_error(run("tui", "seed-demo", "--serve", str(port), cwd=tmp_path))
    assert said.startswith("the app needs a terminal, and "), said
    assert "listen" not in said


def test_follow_a_folder_says_it_is_a_folder(tmp_path: Path) -> None:
    said = one_error(run("tui", "--follow", str(tmp_path), cwd=tmp_path))
    assert said == (f"--follow: {tmp_path} is a folder; name the events file in it "
                    "(the gateway's default is events.jsonl)"), said


def test_tune_set_help_says_it_is_required() -> None:
    """`tune --set` is required (tune refuses without one), yet its help read like the
    optional --set of other commands: "repeatable; default: ..."."""
    from tests.test_cli_newuser import _parsers

    parsers = dict(_parsers())
    tune = parsers["tune"]._option_string_actions["--set"].help or ""
    assert "at least one is required" in tune and "default:" not in tune.split("; keys:")[0]
    assemble = parsers["assemble"]._option_string_actions["--set"].help or ""
    assert "(repeatable; default: " in assemble


HERMES = "model: gpt-4o\ntools:\n  tool_search:\n    threshold_pct: 5\n"


@pytest.mark.parametrize(("name", "said"), [
    ("config.yaml.bak", "config.yaml.bak: is a backup (.bak) of a Hermes config.yaml; refusing "
                        "to write into a backup (save into config.yaml itself)"),
    ("config.txt", "config.txt: is a Hermes config.yaml, but its name has no .yaml or .yml "
                   "ending; refusing to write a tool_search block into it (--save writes only "
                   "a Hermes config.yaml or a YAML catalog)"),
])
def test_tune_save_into_a_backup_or_a_yaml_named_otherwise_says_which(
        tmp_path: Path, name: str, said: str) -> None:
    """`tune --save --config config.yaml.bak` said "a Hermes config.yaml in .bak format, not
    YAML": the file is YAML, it is a backup; and a .txt one is YAML too, named otherwise."""
    target = tmp_path / name
    target.write_text(HERMES, encoding="utf-8")
    got = one_error(run("tune", "seed-demo", "--set", "threshold_pct=2", "--save", "--config",
                        name, cwd=tmp_path))
    assert got == said, got
    assert target.read_text(encoding="utf-8") == HERMES
