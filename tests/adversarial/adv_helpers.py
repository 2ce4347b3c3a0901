"""Helpers for the adversarial suite: run the CLI as the operator does, start misbehaving
servers, and check the promises (bounded time, one line, no secret, no leftover)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.sources.source_helpers import (  # noqa: F401 - re-exported to the tests
    free_port,
    listening,
    processes_with,
    stop,
    wait_until,
)

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
REPO = HERE.parents[1]
PYTHON = sys.executable

#: A generous allowance over a command's own --timeout for interpreter start-up, the SDK's
#: shutdown of the servers and a loaded 2-core CI machine. The command itself promises
#: --timeout + 1 s; the tests only need to tell "bounded" from "hangs".
SLACK = 6.0


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def stderr_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]

    def json(self) -> object:
        return json.loads(self.stdout)


def cli(*args: str, timeout: float = 60.0, cwd: Path | None = None,
        env: dict[str, str] | None = None, stdin: bytes | None = None) -> Run:
    """``python -m toolsearch ARGS`` in a subprocess (the checked-out tree first on the path;
    *stdin* piped in when given); a run that outlives *timeout* fails the test as a hang."""
    environ = {**os.environ, **(env or {})}
    environ["PYTHONPATH"] = os.pathsep.join([str(REPO), environ.get("PYTHONPATH", "")])
    environ.setdefault("PYTHONIOENCODING", "utf-8")
    started = time.monotonic()
    try:
        proc = subprocess.run([PYTHON, "-m", "toolsearch", *args], capture_output=True,
                              timeout=timeout, cwd=cwd, env=environ, input=stdin)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"toolsearch {' '.join(args)} hung (over {timeout} s)") from exc
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"),
               proc.stderr.decode("utf-8", "replace"), time.monotonic() - started)


def one_error_line(run: Run) -> str:
    """The run failed with exactly one ``toolsearch: error:`` line and no traceback."""
    assert run.returncode == 1, run
    lines = run.stderr_lines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("toolsearch: error: "), lines
    assert "Traceback" not in run.output
    return lines[0]


def raw_server(mode: str, marker: str, *extra: str) -> dict[str, object]:
    """A config entry running ``servers/raw_server.py --mode MODE``."""
    return {"command": PYTHON,
            "args": [str(SERVERS / "raw_server.py"), "--mode", mode, "--marker", marker, *extra]}


def sdk_server(marker: str, *extra: str) -> dict[str, object]:
    return {"command": PYTHON, "args": [str(SERVERS / "sdk_server.py"), "--marker", marker,
                                        *extra]}




def no_leftovers(marker: str) -> None:
    """Every server process the command started is gone (a moment for the kernel to reap)."""
    assert wait_until(lambda: not processes_with(marker), 5.0), processes_with(marker)




def start(argv: Sequence[str], port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_until(lambda: listening(port) or proc.poll() is not None, 30.0) or \
            proc.poll() is not None:
        proc.kill()
        raise RuntimeError(f"test server {argv[1]} did not start")
    return proc


def snapshot_files(folder: Path) -> dict[str, tuple[bytes | str, int, int, int]]:
    """Every entry of *folder*: content (or a symlink's target), mode, uid, gid."""
    out: dict[str, tuple[bytes | str, int, int, int]] = {}
    for path in sorted(folder.iterdir()):
        info = path.lstat()
        if path.is_symlink():
            content: bytes | str = "-> " + os.readlink(path)
        elif path.is_dir():
            content = "<dir>"
        else:
            content = path.read_bytes()
        out[path.name] = (content, info.st_mode, info.st_uid, info.st_gid)
    return out


def write_yaml_config(path: Path, key: str, servers: dict[str, object]) -> Path:
    """A config file (``mcp_servers`` or ``mcpServers``) as JSON-compatible YAML."""
    path.write_text(json.dumps({key: servers}, indent=2) + "\n", encoding="utf-8")
    return path
