"""``toolsearch tui SOURCE --serve PORT``: the hosted gateway's warnings were written onto the
terminal under the app's screen (``toolsearch tui: warning: ...`` mixed into its drawing, and
gone with the screen at exit). While the app runs they are notifications in the app, and
nothing is written to the terminal; once the app has closed they are printed on stderr.
Pilot with a real upstream (the ``mcp`` SDK), and the real command on a pty."""

from __future__ import annotations

import logging
import os
import pty
import select
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from gateway_helpers import env, serve_argv, upstream_entry, write_config

from toolsearch.cli_safety import log_to_stderr, speak_as
from toolsearch.gateway.server import listen_socket
from tui.follow import ServeApp

pytestmark = pytest.mark.live

SAID = "the gateway's catalog snapshot is not written"


@contextmanager
def cli_logging() -> Iterator[None]:
    """The log set up as the command line does (its stderr handler, warnings named
    ``toolsearch tui``), beside pytest's own handlers."""
    root = logging.getLogger()
    saved = root.handlers[:]
    root.handlers = []
    log_to_stderr()
    added = root.handlers[:]
    root.handlers = saved + added
    speak_as("toolsearch tui")
    try:
        yield
    finally:
        speak_as("toolsearch")
        for handler in added:
            root.removeHandler(handler)


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    (tmp_path / "events.catalog.json").write_text('{"mine": true}\n')  # the operator's file
    return config, tmp_path / "events.jsonl"


async def test_a_gateway_warning_is_shown_in_the_app_not_on_the_terminal(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    config, events = _setup(tmp_path)
    with cli_logging():
        app = ServeApp([str(config)], host="127.0.0.1", port=0, events=events,
                       sock=listen_socket("127.0.0.1", 0))
        async with app.run_test(size=(120, 40)) as pilot:
            with anyio.fail_after(30):
                while not any(SAID in n.message for n in app._notifications):
                    await pilot.pause(0.1)
            shown = [n for n in app._notifications if SAID in n.message]
            assert shown[0].title == "Gateway warning" and shown[0].severity == "warning"
            out, err = capfd.readouterr()
            assert SAID not in out + err and "warning" not in out + err, (out, err)
        assert [r.getMessage() for r in app.warned if SAID in r.getMessage()]
        with anyio.fail_after(30):  # the gateway's worker ends (it was cancelled)
            while not all(worker.is_finished for worker in app.workers):
                await anyio.sleep(0.05)
        # the log's stderr handler is back once the gateway stopped
        logging.getLogger("toolsearch.gateway.server").warning("after the app")
        assert "toolsearch tui: warning: after the app" in capfd.readouterr().err


def _pty_run(argv: list[str], seen: Any, seconds: float = 40) -> str:
    """*argv* on a pty of its own: read until *seen(text)*, then SIGTERM; all it wrote."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(argv[0], argv, {**env(), "TERM": "xterm", "COLUMNS": "100", "LINES": "30"})
    out = b""
    try:
        deadline = time.monotonic() + seconds
        while not seen(out.decode(errors="replace")) and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
        running = out
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    out += os.read(fd, 65536)
                    continue
                except OSError:
                    pass
            if os.waitpid(pid, os.WNOHANG)[0]:
                pid = 0
                break
    finally:
        if pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    return running.decode(errors="replace") + "\n<<<EXIT>>>\n" + \
        out[len(running):].decode(errors="replace")


def test_on_a_terminal_the_warning_is_a_notification_then_a_line_at_exit(
        tmp_path: Path) -> None:
    config, events = _setup(tmp_path)
    argv = [*serve_argv([str(config)])[:3], "tui", str(config), "--serve", "127.0.0.1:0",
            "--events", str(events)]
    text = _pty_run(argv, lambda t: "Gateway warning" in t)
    running, _, after = text.partition("\n<<<EXIT>>>\n")
    assert "Gateway warning" in running, running[-2000:]
    assert "toolsearch tui: warning:" not in running, running[-2000:]
    assert f"toolsearch tui: warning: {SAID}" in after, after[-2000:]
