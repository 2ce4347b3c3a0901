"""``toolsearch tui SOURCE --serve PORT`` hosts the gateway in the app; the gateway's warnings
read ``toolsearch tui: warning: ...``, naming the command the operator ran, as ``toolsearch
serve`` says ``toolsearch serve: warning: ...``. They read ``toolsearch: warning: ...``.
While the app runs they are notifications in it; the lines are printed once it has closed
(``test_gateway_app_warnings.py``)."""

from __future__ import annotations

import os
import pty
import select
import signal
import time
from pathlib import Path

import pytest
from gateway_helpers import env, serve_argv, upstream_entry, write_config

pytestmark = pytest.mark.live

SAID = "the gateway's catalog snapshot is not written"


def test_the_tui_hosted_gateway_names_the_tui_in_its_warnings(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "events.jsonl"
    (tmp_path / "events.catalog.json").write_text('{"mine": true}\n')  # the operator's file
    argv = [*serve_argv([str(config)])[:3], "tui", str(config), "--serve", "127.0.0.1:0",
            "--events", str(events)]
    pid, fd = pty.fork()
    if pid == 0:  # the app on a terminal of its own
        os.execvpe(argv[0], argv, {**env(), "TERM": "xterm", "COLUMNS": "100", "LINES": "30"})
    out = b""
    try:
        deadline = time.monotonic() + 40
        while b"Gateway warning" not in out and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
    finally:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if os.waitpid(pid, os.WNOHANG)[0]:
                break
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    out += os.read(fd, 65536)  # the lines printed once the app closed
                except OSError:
                    pass
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    text = out.decode(errors="replace")
    assert SAID in text, text[-2000:]
    assert f"toolsearch tui: warning: {SAID}" in text, text[-2000:]
    assert "toolsearch: warning:" not in text, text[-2000:]
