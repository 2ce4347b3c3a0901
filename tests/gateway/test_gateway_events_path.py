"""``serve --events PATH``: a folder the gateway makes for the file is said in the line that
echoes the path; a path it cannot write is one line naming the events file, exit 1, before
any upstream server starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gateway_helpers import env, serve_argv, upstream_entry, write_config


def _serve(tmp_path: Path, events: str, *servers: tuple[str, dict[str, object]]
           ) -> subprocess.CompletedProcess[str]:
    config = write_config(tmp_path / "servers.json", dict(servers))
    return subprocess.run(serve_argv([str(config)], "--events", events), cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120, env=env())


def _starter(flag: Path) -> tuple[str, dict[str, object]]:
    """A server entry that leaves *flag* behind the moment the gateway starts it."""
    return "starter", {"command": sys.executable,
                       "args": ["-c", f"open({str(flag)!r}, 'w').close()"]}


def test_a_folder_made_for_the_events_file_is_said(tmp_path: Path) -> None:
    done = _serve(tmp_path, "nodir/deeper/ev.jsonl", ("up", upstream_entry("up")))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "nodir" / "deeper" / "ev.jsonl").is_file()
    lines = done.stderr.splitlines()
    assert "toolsearch serve: events -> nodir/deeper/ev.jsonl (folder nodir created)" in lines


def test_an_existing_folder_is_not_said_to_be_made(tmp_path: Path) -> None:
    (tmp_path / "there").mkdir()
    done = _serve(tmp_path, "there/ev.jsonl", ("up", upstream_entry("up")))
    assert done.returncode == 0, done.stderr
    assert "toolsearch serve: events -> there/ev.jsonl" in done.stderr.splitlines()


def _refused(tmp_path: Path, events: str, expected: str) -> None:
    flag = tmp_path / "started"
    done = _serve(tmp_path, events, _starter(flag))
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"toolsearch: error: {expected}"]
    assert not flag.exists(), "an upstream was started before the events file was refused"


def test_a_path_under_a_file_is_one_line(tmp_path: Path) -> None:
    """It read ``toolsearch: error: afile: File exists``, naming neither the events file nor
    what was wrong."""
    (tmp_path / "afile").write_text("mine\n")
    _refused(tmp_path, "afile/sub/ev.jsonl", "events file afile/sub/ev.jsonl: afile is not "
                                             "a folder")
    assert (tmp_path / "afile").read_text() == "mine\n"


def test_a_folder_or_a_fifo_or_a_device_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    _refused(tmp_path, "d", "events file d: is a directory; give the path of a regular file")
    os.mkfifo(tmp_path / "ff")
    _refused(tmp_path, "ff", "events file ff: is a FIFO (named pipe); give the path of a "
                             "regular file")
    if Path("/dev/full").exists():
        _refused(tmp_path, "/dev/full", "events file /dev/full: is not a regular file; give "
                                        "the path of a regular file")


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs a sysfs at /sys")
def test_a_place_no_file_can_be_made_is_one_line(tmp_path: Path) -> None:
    """sysfs refuses a new file even to root: it read ``toolsearch: error: /sys/ev.jsonl:
    Permission denied``, which did not say it was the events file."""
    _refused(tmp_path, "/sys/ev.jsonl", "events file /sys/ev.jsonl: cannot open it to append "
                                        "(Permission denied)")
    _refused(tmp_path, "/sys/nodir/ev.jsonl", "events file /sys/nodir/ev.jsonl: cannot "
                                              "create its folder /sys/nodir (Operation not "
                                              "permitted)")
