"""The operator's files (issue 9, 15-19): nothing lost, nothing clobbered; changed only where
asked, owner, group and mode kept; never through a symlink; no temp file left behind."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
import yaml
from adv_helpers import cli, one_error_line, snapshot_files

HERMES = "# the operator's own config\nmodel: anthropic/claude\nmcp_servers: {}\n" \
         "tools:\n  tool_search:\n    threshold_pct: 5   # keep this comment\n"


@pytest.fixture
def hermes(tmp_path: Path) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(HERMES, encoding="utf-8")
    return path


def test_snapshot_refuses_to_overwrite_its_own_source(hermes: Path) -> None:
    before = snapshot_files(hermes.parent)
    line = one_error_line(cli("snapshot", str(hermes), "-o", str(hermes)))
    assert "is one of the SOURCEs" in line and "--force" in line
    assert snapshot_files(hermes.parent) == before


def test_snapshot_refuses_an_existing_non_catalog_file(tmp_path: Path) -> None:
    other = tmp_path / "notes.yaml"
    other.write_text("shopping: [milk, eggs]\n", encoding="utf-8")
    before = snapshot_files(tmp_path)
    assert "not a catalog" in one_error_line(cli("snapshot", "seed-demo", "-o", str(other)))
    assert snapshot_files(tmp_path) == before


def test_snapshot_force_keeps_a_backup(hermes: Path) -> None:
    os.chmod(hermes, 0o640)
    run = cli("snapshot", str(hermes), "-o", str(hermes), "--force")
    assert run.returncode == 0, run
    backup = hermes.with_name("config.yaml.bak")
    assert backup.read_text(encoding="utf-8") == HERMES
    assert stat.S_IMODE(hermes.stat().st_mode) == 0o640
    assert "previous content is in" in run.stderr
    assert sorted(p.name for p in hermes.parent.iterdir()) == ["config.yaml", "config.yaml.bak"]


def test_snapshot_over_an_older_catalog_needs_no_force(tmp_path: Path) -> None:
    out = tmp_path / "cat.yaml"
    assert cli("snapshot", "quickstart", "-o", str(out)).returncode == 0
    run = cli("snapshot", "seed-demo", "-o", str(out))
    assert run.returncode == 0, run
    assert yaml.safe_load(out.read_text())["name"] == "seed-demo"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cat.yaml"]


def test_tune_save_refuses_a_client_config(tmp_path: Path, hermes: Path) -> None:
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(json.dumps({"mcpServers": {"a": {"command": "x"}}}, indent=2))
    plain = tmp_path / "plain.txt"
    plain.write_text("just some notes\n")
    before = snapshot_files(tmp_path)
    for target in (claude, plain):
        line = one_error_line(cli("tune", str(hermes), "--set", "threshold_pct=7", "--save",
                                  "--config", str(target)))
        assert "refusing to write" in line or "not a Hermes config" in line, line
    assert snapshot_files(tmp_path) == before


def test_tune_save_into_a_catalog_writes_its_own_block(tmp_path: Path) -> None:
    catalog = tmp_path / "cat.yaml"
    assert cli("snapshot", "quickstart", "-o", str(catalog)).returncode == 0
    before = yaml.safe_load(catalog.read_text())
    run = cli("tune", str(catalog), "--set", "threshold_pct=8", "--save")
    assert run.returncode == 0, run
    assert "tool_search (the catalog's own, top level)" in run.stdout
    after = yaml.safe_load(catalog.read_text())
    assert after["tool_search"]["threshold_pct"] == 8 and "tools" not in after
    assert {k: v for k, v in after.items() if k != "tool_search"} == \
        {k: v for k, v in before.items() if k != "tool_search"}


def test_a_symlinked_backup_is_replaced_never_followed(hermes: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    hermes.with_name("config.yaml.bak").symlink_to(victim)
    run = cli("tune", str(hermes), "--set", "threshold_pct=7", "--save")
    assert run.returncode == 0, run
    assert victim.read_text() == "precious\n"
    backup = hermes.with_name("config.yaml.bak")
    assert not backup.is_symlink() and backup.read_text() == HERMES
    assert "threshold_pct: 7   # keep this comment" in hermes.read_text()


def test_a_backup_path_that_is_a_folder_is_refused(hermes: Path) -> None:
    folder = hermes.with_name("config.yaml.bak")
    folder.mkdir()
    before = snapshot_files(hermes.parent)
    line = one_error_line(cli("tune", str(hermes), "--set", "threshold_pct=7", "--save"))
    assert "config.yaml.bak" in line and "not a file" in line
    assert snapshot_files(hermes.parent) == before
    assert list(folder.iterdir()) == []


def test_a_symlinked_config_is_written_through(hermes: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.yaml"
    link.symlink_to(hermes)
    run = cli("tune", str(link), "--set", "threshold_pct=7", "--save")
    assert run.returncode == 0, run
    assert link.is_symlink() and "threshold_pct: 7" in hermes.read_text()


def test_read_only_config_is_refused(hermes: Path) -> None:
    os.chmod(hermes, 0o444)
    before = snapshot_files(hermes.parent)
    line = one_error_line(cli("tune", str(hermes), "--set", "threshold_pct=7", "--save"))
    assert "read-only" in line
    assert snapshot_files(hermes.parent) == before


def test_owner_group_and_mode_are_kept(hermes: Path) -> None:
    os.chmod(hermes, 0o664)
    if os.geteuid() == 0:  # as root, a config owned by another user keeps its owner
        os.chown(hermes, 65534, 65534)
    info = hermes.stat()
    run = cli("tune", str(hermes), "--set", "threshold_pct=7", "--save")
    assert run.returncode == 0, run
    after = hermes.stat()
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == \
        (info.st_uid, info.st_gid, 0o664)
    assert info.st_ino != after.st_ino  # replaced atomically, not edited in place
    backup = hermes.with_name("config.yaml.bak").stat()
    assert stat.S_IMODE(backup.st_mode) == 0o664


def test_nothing_to_change_writes_nothing(hermes: Path) -> None:
    before = snapshot_files(hermes.parent)
    run = cli("tune", str(hermes), "--set", "threshold_pct=5", "--save")
    assert run.returncode == 0, run
    assert "nothing changed" in run.stdout and "backup: None" not in run.stdout
    assert snapshot_files(hermes.parent) == before


def test_failed_writes_leave_no_temp_file(tmp_path: Path) -> None:
    from toolsearch.sources.errors import SourceError
    from toolsearch.sources.snapshot import atomic_write_text

    out = tmp_path / "cat.yaml"
    with pytest.raises(SourceError, match="not valid Unicode"):
        atomic_write_text(out, "toolsets: []\nname: \ud800\n")
    assert list(tmp_path.iterdir()) == []
