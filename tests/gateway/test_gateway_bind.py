"""The HTTP gateway's port: taken by another program, out of range, or 0 (any free one). A
port in use is one error line before any upstream server starts, in ``serve`` and in
``tui --serve``; the app hosting a gateway never says "serving" before it listens."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from gateway_helpers import UPSTREAM, env, read_events, serve_argv, stop, write_config
from mcp import Client

from tui.follow import ServeApp

pytestmark = pytest.mark.live


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port another program listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield int(sock.getsockname()[1])


def _config(tmp_path: Path) -> tuple[Path, Path]:
    """A config whose one upstream leaves a file behind when it is started."""
    started = tmp_path / "upstream-started"
    entry = {"command": "sh", "args": ["-c", f'touch "{started}"; exec "{sys.executable}" '
                                             f'"{UPSTREAM}" --name up']}
    return write_config(tmp_path / "servers.json", {"up": entry}), started


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


def test_serve_on_a_taken_port_is_one_line_before_any_upstream(tmp_path: Path,
                                                               taken_port: int) -> None:
    config, started = _config(tmp_path)
    done = subprocess.run(serve_argv([str(config)], "--transport", "http", "--port",
                                     str(taken_port), "--events", str(tmp_path / "e.jsonl")),
                          capture_output=True, text=True, env=env(), timeout=60)
    assert done.returncode == 1
    assert _error_lines(done.stderr) == [
        f"toolsearch: error: cannot listen on 127.0.0.1:{taken_port}: Address already in use"]
    assert not started.exists()  # failed before starting the upstream servers


def test_tui_serve_on_a_taken_port_is_one_line_and_no_app(tmp_path: Path,
                                                          taken_port: int) -> None:
    config, started = _config(tmp_path)
    # the app's own driver, as under `textual serve`: no terminal needed, so the port is
    # what refuses (without a terminal that is refused first: test_cli_tui_gateway_gaps)
    done = subprocess.run([sys.executable, "-m", "toolsearch", "tui", str(config), "--serve",
                           str(taken_port), "--events", str(tmp_path / "e.jsonl")],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          env={**env(), "TEXTUAL_DRIVER": "textual.drivers.headless_driver:"
                                                          "HeadlessDriver"})
    assert done.returncode == 1
    assert _error_lines(done.stderr) == [
        f"toolsearch: error: cannot listen on 127.0.0.1:{taken_port}: Address already in use"]
    assert not started.exists()


@pytest.mark.parametrize(("argv", "said"), [
    (["serve", "--transport", "http", "--port", "99999"], "a port is 0 to 65535, not 99999"),
    (["serve", "--transport", "http", "--port", "-1"], "a port is 0 to 65535, not -1"),
    (["serve", "--transport", "http", "--port", "http"], "not a port: 'http'"),
    (["tui", "--serve", "127.0.0.1:70000"], "a port is 0 to 65535"),
])
def test_a_port_out_of_range_is_refused_in_words(tmp_path: Path, argv: list[str],
                                                 said: str) -> None:
    config, started = _config(tmp_path)
    command, *options = argv
    done = subprocess.run([sys.executable, "-m", "toolsearch", command, str(config), *options],
                          capture_output=True, text=True, env=env(), timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    assert said in done.stderr and "Traceback" not in done.stderr
    assert "OverflowError" not in done.stderr
    assert not started.exists()


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "1e400"])
def test_a_call_timeout_that_is_not_a_positive_number_is_refused(tmp_path: Path,
                                                                 value: str) -> None:
    """``--call-timeout`` took any float: -1 timed every call out at once ("within -1 s"),
    0 silently meant 60 s, nan failed on the first call with a Python error line, and inf
    let a hung upstream hold the gateway at the end of stdin for good."""
    config, started = _config(tmp_path)
    done = subprocess.run(serve_argv([str(config)], f"--call-timeout={value}", "--events",
                                     str(tmp_path / "e.jsonl")),
                          capture_output=True, text=True, env=env(), timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert _error_lines(done.stderr) == [
        f"toolsearch: error: argument --call-timeout: must be a positive number of seconds "
        f"(got {value!r}) (see toolsearch serve --help)"]
    assert not started.exists()


@pytest.mark.parametrize("token", ["s3cret-token\n", " s3cret-token", "s3cret\r\nX-Admin: 1",
                                   "s3cret\x1b[0mtoken"], ids=["newline", "space", "crlf", "escape"])
@pytest.mark.parametrize("command", ["serve", "tui"])
def test_a_token_no_client_can_send_is_refused(tmp_path: Path, token: str,
                                               command: str) -> None:
    """HTTP strips whitespace at the ends of a header and no header holds a newline: a token
    read from a file with its newline left on was taken, and every client then got a 401
    with nothing said. It is refused in one line, without showing it."""
    config, started = _config(tmp_path)
    options = ["--transport", "http", "--port", "0"] if command == "serve" else \
        ["--serve", "0"]
    done = subprocess.run([sys.executable, "-m", "toolsearch", command, str(config), *options,
                           "--token-env", "TS_BAD_TOKEN", "--events", str(tmp_path / "e.jsonl")],
                          capture_output=True, text=True, env={**env(), "TS_BAD_TOKEN": token},
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert _error_lines(done.stderr) == [
        "toolsearch: error: --token-env TS_BAD_TOKEN: the token has whitespace at an end or a "
        "control character (a newline?): no client can send it in an Authorization header"]
    assert "s3cret" not in done.stderr
    assert not started.exists()


@pytest.mark.parametrize("host", [(), ("--host", "[::1]")])
async def test_port_zero_announces_the_port_it_found(tmp_path: Path,
                                                     host: tuple[str, ...]) -> None:
    """Also with ``--host [::1]``, an IPv6 address as a URL writes it: it was refused as
    "non-loopback host '[::1]'"."""
    config, _started = _config(tmp_path)
    shown = re.escape(host[1]) if host else r"127\.0\.0\.1"
    proc = subprocess.Popen(serve_argv([str(config)], "--transport", "http", "--port", "0",
                                       *host, "--events", str(tmp_path / "e.jsonl")),
                            env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        url = ""
        with anyio.fail_after(60):
            while not url:
                line = (await anyio.to_thread.run_sync(proc.stderr.readline)).decode()
                assert line, "the gateway ended before listening"
                found = re.search(rf"listening on (http://{shown}:(\d+)/mcp)", line)
                if found:
                    assert int(found.group(2)) != 0
                    url = found.group(1)
        async with Client(url, mode="legacy", cache=None) as client:
            names = {t.name for t in (await client.list_tools()).tools}
        assert names == {"tool_search", "tool_describe", "tool_call"}
        # the events file (what `tui --follow` shows) names the same URL, not port 0
        assemblies = [r for r in read_events(tmp_path / "e.jsonl") if r["type"] == "assembly"]
        assert assemblies and {r["serving"] for r in assemblies} == {url}
    finally:
        stop(proc)


async def test_the_app_never_says_serving_when_the_port_is_taken(tmp_path: Path,
                                                                 taken_port: int) -> None:
    """Taken after the command line's check (no socket handed over): the header says the
    gateway is not serving, and why."""
    config, _started = _config(tmp_path)
    app = ServeApp([str(config)], host="127.0.0.1", port=taken_port,
                   events=tmp_path / "e.jsonl")
    titles: list[str] = []

    def seen() -> Any:
        titles.append(app.sub_title)
        return app.stopped

    async with app.run_test(size=(120, 40)) as pilot:
        with anyio.fail_after(60):
            while not seen():
                await pilot.pause(0.05)
        await pilot.pause()
        assert app.serving == ""
        assert f"gateway NOT serving: cannot listen on 127.0.0.1:{taken_port}" in app.sub_title
    assert not any("serving on" in title for title in titles)
