"""``snapshot`` of SOURCEs whose every server failed (all down, offline, a typo in a URL)
wrote a catalog of failures, status 0, over the operator's good catalog: its tools were
gone, with no backup. Now nothing is written: one line, status 1, the file as it was."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.test_cli_refusals import run


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_snapshot_of_only_failed_servers_leaves_the_catalog_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "catalog.yaml"
    assert run("snapshot", "seed-demo", "-o", str(out), cwd=tmp_path).returncode == 0
    good = out.read_bytes()
    url = f"down=http://127.0.0.1:{_closed_port()}/mcp"
    done = run("snapshot", url, "-o", str(out), "--timeout", "5", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == (f"toolsearch: error: nothing written: every "
                                            f"server failed (down); {out} is left as it was")
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert out.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalog.yaml"]
    done = run("snapshot", url, "-o", str(tmp_path / "new.yaml"), "--timeout", "5",
               cwd=tmp_path)
    assert done.returncode == 1 and not (tmp_path / "new.yaml").exists()


def test_a_snapshot_with_a_failed_server_keeps_the_catalog_it_replaces(tmp_path: Path) -> None:
    """A server that fails this time is recorded without its tools: the catalog replaced may
    hold them (the last snapshot, when it answered), and was replaced outright."""
    out = tmp_path / "catalog.yaml"
    assert run("snapshot", "seed-demo", "-o", str(out), cwd=tmp_path).returncode == 0
    good = out.read_bytes()
    done = run("snapshot", "seed-demo", f"down=http://127.0.0.1:{_closed_port()}/mcp", "-o",
               str(out), "--timeout", "5", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "(1 failed: down)" in done.stdout
    assert (f"toolsearch: warning: {out} replaced while down failed (recorded without tools); "
            f"its previous content is in {out}.bak") in done.stderr.splitlines()
    assert (tmp_path / "catalog.yaml.bak").read_bytes() == good
    assert out.read_bytes() != good


def test_the_help_of_output_says_when_a_backup_is_kept_and_when_nothing_is_written() -> None:
    from tests.test_cli_newuser import _parsers

    said = dict(_parsers())["snapshot"]._option_string_actions["-o"].help or ""
    assert "or a server failed" in said and "nothing is written when every server failed" in said
