"""``toolsearch tui SOURCE --serve PORT``: uvicorn's own log lines (the HTTP server the gateway
runs on) went to a stderr handler of uvicorn's, which the app's screen swallowed: a request
uvicorn refused (``Invalid HTTP request received.``) was never seen, in the app or after it.
They now go through the log as the gateway's warnings do: a notification while the app runs,
the line on stderr once it has closed, and no traceback for the app's own stop (uvicorn's
cancelled lifespan). The real command on a pty, a real socket sending bytes that are no HTTP."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from gateway_helpers import serve_argv, upstream_entry, write_config
from test_gateway_app_warnings import _pty_run

pytestmark = pytest.mark.live

REFUSED = "Invalid HTTP request received."


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_uvicorns_line_is_a_notification_then_a_line_at_exit(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    port = _free_port()
    argv = [*serve_argv([str(config)])[:3], "tui", str(config), "--serve", f"127.0.0.1:{port}",
            "--events", str(tmp_path / "events.jsonl")]
    sent = [0.0]

    def seen(text: str) -> bool:
        if "http://127.0.0.1" in text and time.monotonic() - sent[0] > 2:  # serving: poke it
            sent[0] = time.monotonic()
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=2) as poke:
                    poke.sendall(b"\x00\x01 not http at all\r\n\r\n")
                    poke.recv(1024)
            except OSError:
                pass
        return "Gateway warning" in text

    text = _pty_run(argv, seen)
    running, _, after = text.partition("\n<<<EXIT>>>\n")
    assert "Gateway warning" in running, running[-2000:]
    assert f"WARNING: {REFUSED}" not in running, running[-2000:]  # never raw on the screen
    assert REFUSED in after, after[-2000:]
    assert "Traceback" not in after and "CancelledError" not in after, after[-2000:]
