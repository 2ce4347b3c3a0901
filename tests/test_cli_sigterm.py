"""SIGTERM, as a supervisor, ``timeout`` or ``kill`` sends it, stops every command but
``serve`` the same way: one line ``toolsearch <command>: stopped (SIGTERM)`` on stderr, exit
status 143 (128 + 15: the work was cut short), no traceback, no server it started left
running, no output file half written; the app gives the terminal back first. (``serve``
treats SIGTERM as its ordinary stop: tests/gateway/test_gateway_sigterm.py.)

Real processes, signalled by pid alone (a supervisor's ``kill PID``, where a terminal's
Ctrl+C reaches the whole process group)."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.sources.source_helpers import alive
from tests.test_cli_newuser import (
    REPO,
    _argv,
    _cmdline,
    _descendants,
    _env,
    _none_left,
    _pty_reader,
    _servers_config,
)

#: A stdio "server" that never answers and ignores SIGTERM (stopping it takes the SIGKILL
#: that follows a grace period: time for a second SIGTERM to arrive mid-cleanup).
STUBBORN = ("import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "while True: time.sleep(1)\n")


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _sigterm(argv: list[str], ready: Callable[[set[int]], bool], *, times: int = 1,
             settle: float = 0.3, wait: float = 60, background: bool = False
             ) -> tuple[int, str, set[int]]:
    """Start *argv*, wait until ``ready(descendants seen)``, send SIGTERM *times* times to its
    pid only; (status, stderr, descendants seen), after checking none of them is left.
    *background*: started as a shell starts a background job (``cmd &``), SIGINT ignored."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=_env(), cwd=REPO,
                            start_new_session=True,
                            preexec_fn=_ignore_sigint if background else None)
    seen: set[int] = set()
    try:
        deadline = time.monotonic() + wait
        while not ready(seen):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"never ready (status {proc.poll()})")
            seen |= _descendants(proc.pid)
            time.sleep(0.05)
        time.sleep(settle)
        seen |= _descendants(proc.pid)
        for _ in range(times):
            proc.send_signal(signal.SIGTERM)
            time.sleep(0.03)
        status = proc.wait(timeout=30)
        assert proc.stderr is not None
        err = proc.stderr.read().decode(errors="replace")
    finally:
        _none_left(proc, seen)
    return status, err, seen


def _one_stopped_line(status: int, err: str, command: str) -> None:
    assert status == 143, (status, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "interrupted" not in err, err  # nobody pressed Ctrl+C
    assert err.rstrip().splitlines()[-1] == f"toolsearch {command}: stopped (SIGTERM)", err
    assert err.count("stopped (SIGTERM)") == 1, err


def _servers_up(count: int, word: str) -> Callable[[set[int]], bool]:
    return lambda seen: sum(1 for p in seen if word in _cmdline(p) and alive(p)) >= count


@pytest.mark.live
def test_sigterm_during_a_snapshot_stops_it_in_one_line_and_writes_nothing(
        tmp_path: Path) -> None:
    config = _servers_config(tmp_path, 3)
    out = tmp_path / "out" / "catalog.yaml"
    out.parent.mkdir()
    status, err, _seen = _sigterm(_argv("snapshot", str(config), "-o", str(out)),
                                  _servers_up(3, "upstream_server"), settle=0.2)
    _one_stopped_line(status, err, "snapshot")
    assert list(out.parent.iterdir()) == []  # no catalog, no temporary file


def test_sigterm_during_a_bench_names_the_bench() -> None:
    started = time.monotonic()
    status, err, _seen = _sigterm(
        _argv("bench", "speed", "--sizes", "3000,3000,3000,3000", "--catalogs", "/nonexistent"),
        lambda _seen: time.monotonic() - started > 2.5, settle=0)
    _one_stopped_line(status, err, "bench speed")


@pytest.mark.live
def test_sigterm_to_a_background_command_starting_servers_is_one_line(tmp_path: Path) -> None:
    """`toolsearch assemble servers.json &` from a script, then `kill $!` as its servers
    start: SIGINT is ignored there, so SIGTERM interrupts at once, inside a task starting a
    server, and the task group's exception group came out as a traceback, status 1."""
    config = _servers_config(tmp_path, 20)
    status, err, _seen = _sigterm(_argv("assemble", str(config)), lambda seen: bool(seen),
                                  settle=0, background=True)
    _one_stopped_line(status, err, "assemble")


@pytest.mark.live
def test_a_second_sigterm_does_not_cut_the_stop_short(tmp_path: Path) -> None:
    """SIGTERM, then two more while the command stops its servers (a `kill` repeated, a
    supervisor trying again): the repeats raised KeyboardInterrupt in the middle of that
    cleanup, or killed the process outright (status -15, after its line)."""
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {
        f"s{i}": {"command": sys.executable, "args": ["-c", STUBBORN, "cli-sigterm-stubborn"]}
        for i in range(3)}}))
    status, err, _seen = _sigterm(_argv("assemble", str(config), "--timeout", "60"),
                                  _servers_up(3, "cli-sigterm-stubborn"), times=3)
    _one_stopped_line(status, err, "assemble")


@pytest.mark.live
def test_sigterm_closes_the_app_gives_the_terminal_back_and_says_so() -> None:
    """The app quit on SIGTERM as on its quit key: status 0 and not a word, so a script
    could not tell a stopped app from one the user closed."""
    master, slave = pty.openpty()
    reader, chunks = _pty_reader(master)
    modes = termios.tcgetattr(slave)
    env = {**_env(), "TERM": "xterm-256color"}
    env.pop("TEXTUAL_DRIVER", None)
    proc = subprocess.Popen(_argv("tui"), stdin=slave, stdout=slave, stderr=slave, env=env,
                            cwd=REPO, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while b"seed-demo" not in b"".join(chunks):  # the app has drawn its servers
            assert proc.poll() is None and time.monotonic() < deadline, b"".join(chunks)[-500:]
            time.sleep(0.1)
        time.sleep(1)
        drawn = len(b"".join(chunks))
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(timeout=30)
        time.sleep(0.3)
        after = termios.tcgetattr(slave)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(slave)
    reader.join(5)
    os.close(master)
    tail = b"".join(chunks)[drawn:]
    assert after == modes  # echo and line editing back
    assert b"\x1b[?1049l" in tail  # the screen the shell had is back
    assert status == 143, tail
    text = tail.decode(errors="replace")
    assert "Traceback" not in text and "toolsearch tui: stopped (SIGTERM)" in text, text
