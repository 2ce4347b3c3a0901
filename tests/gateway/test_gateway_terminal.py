"""``toolsearch serve`` as a new user first meets it: typed in a terminal (stdin a tty, not a
client's pipe), then stopped with Ctrl-C; or run with stdin a pipe left open and stdout a
file, then stopped with SIGTERM. Either way the gateway and its real upstream servers stop
at once (the SDK's stdio reader used to hold the process until the next line on stdin)."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import time
from pathlib import Path

import pytest
from gateway_helpers import env, inspector, serve_argv, text_of, upstream_entry, write_config

from tests.sources.source_helpers import alive

pytestmark = pytest.mark.live


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(c) for c in (task / "children").read_text().split()]
    return out


def _serve_until_ready(tmp_path: Path, everything_bin: Path, stdin: int, stdout: int
                       ) -> tuple[subprocess.Popen[bytes], list[int], list[str]]:
    config = write_config(tmp_path / "servers.json", {
        "up": upstream_entry("up"),
        "everything": {"command": str(everything_bin), "args": []},
    })
    proc = subprocess.Popen(serve_argv([str(config)], "--events",
                                       str(tmp_path / "events.jsonl")),
                            env=env(), stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                            cwd=tmp_path)
    assert proc.stderr is not None
    lines: list[str] = []
    while not any("tools offered" in line for line in lines):
        line = proc.stderr.readline().decode(errors="replace")
        if not line:
            proc.kill()
            pytest.fail("the gateway exited before it served:\n" + "".join(lines))
        lines.append(line)
    upstreams = _children(proc.pid)
    assert len(upstreams) == 2, lines
    time.sleep(1.5)  # "tools offered" comes just before stdin is read: let the read begin
    return proc, upstreams, lines


def _stopped(proc: subprocess.Popen[bytes], upstreams: list[int], sig: int) -> str:
    os.kill(proc.pid, sig)
    try:
        rc = proc.wait(timeout=8)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"signal {sig} did not stop the gateway within 8 s")
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    assert rc == (0 if sig == signal.SIGTERM else 130), err  # SIGTERM: a clean stop
    assert "Traceback" not in err
    deadline = time.monotonic() + 5
    while any(alive(p) for p in upstreams) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in upstreams), "upstream servers left running"
    return err


def test_ctrl_c_in_a_terminal_stops_the_gateway_and_its_upstreams(
        tmp_path: Path, everything_bin: Path) -> None:
    master, slave = pty.openpty()
    try:
        proc, upstreams, lines = _serve_until_ready(tmp_path, everything_bin, slave, slave)
        err = _stopped(proc, upstreams, signal.SIGINT)
        assert err.splitlines()[-1] == "toolsearch serve: stopped (Ctrl+C)", err
        assert "waiting for an MCP client on stdin" in "".join(lines) + err
    finally:
        os.close(slave)
        os.close(master)


def test_sigterm_with_stdin_open_and_stdout_a_file_stops_the_gateway(
        tmp_path: Path, everything_bin: Path) -> None:
    read_end, write_end = os.pipe()  # a client that never closes its end
    with open(tmp_path / "stdout.txt", "wb") as out:
        try:
            proc, upstreams, _ = _serve_until_ready(tmp_path, everything_bin, read_end,
                                                    out.fileno())
            err = _stopped(proc, upstreams, signal.SIGTERM)
        finally:
            os.close(read_end)
            os.close(write_end)
    assert (tmp_path / "stdout.txt").read_bytes() == b""
    assert "waiting for an MCP client" not in err  # a pipe is a client's: no hint


def test_http_only_options_without_transport_http_are_refused(tmp_path: Path) -> None:
    """`serve SRC --port 9000` used to serve stdio and ignore the port (a terminal user saw it
    start, then nothing listening on 9000)."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    for extra, named in ((("--port", "9000"), "--port"), (("--host", "0.0.0.0"), "--host"),
                         (("--token-env", "HOME"), "--token-env")):
        done = subprocess.run(serve_argv([str(config)], *extra), capture_output=True,
                              text=True, env=env(), timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 1, done.stderr
        assert f"{named}: only with --transport http" in done.stderr
        assert "tools offered" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("argv", [("serve", "--transport", "http", "--host", "0.0.0.0"),
                                  ("tui", "--serve", "0.0.0.0:0")])
def test_non_loopback_refusal_is_readable(tmp_path: Path, argv: tuple[str, ...]) -> None:
    """The refusal said "without a bearer ***": the redaction of echoed secrets took the word
    after "bearer" for one."""
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    command, *rest = argv
    done = subprocess.run([*serve_argv([str(config)])[:3], command, str(config), *rest],
                          capture_output=True, text=True, env=env(), timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert "refusing to listen on non-loopback host '0.0.0.0'" in done.stderr
    assert "***" not in done.stderr and "pass --token-env VAR" in done.stderr


def test_scope_and_detach_take_registry_names_as_help_says(
        need_inspector: Path, tmp_path: Path, everything_bin: Path) -> None:
    """`--scope mcp-up` (the registry name every output shows, and the one --help gives as the
    example) was refused: the gateway only knew bare server names."""
    config = write_config(tmp_path / "servers.json", {
        "up": upstream_entry("up"),
        "everything": {"command": str(everything_bin), "args": []},
    })
    events = ("--events", str(tmp_path / "e.jsonl"))
    for extra in (("--scope", "mcp-up"), ("--detach", "mcp-everything"),
                  ("--scope", "up,mcp-up")):
        listed = inspector([str(config)], "--method", "tools/list",
                           serve_args=(*events, *extra))
        description = next(t for t in listed["tools"]
                           if t["name"] == "tool_search")["description"]
        assert "mcp__up__add" in description and "mcp__everything__" not in description
        echo = inspector([str(config)], "--method", "tools/call", "--tool-name", "tool_call",
                         "--tool-arg", "name=mcp__everything__echo",
                         'arguments={"message": "x"}', serve_args=(*events, *extra))
        assert echo["isError"] is True and "Echo: x" not in text_of(echo)
    for extra, said in ((("--scope", "mcp-nosuch"), "no toolset named 'mcp-nosuch'"),
                        (("--scope", ""), "--scope: names no toolset")):
        done = subprocess.run(serve_argv([str(config)], *events, *extra), capture_output=True,
                              text=True, env=env(), timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 1 and said in done.stderr, done.stderr
        assert "have: mcp-everything, mcp-up" in done.stderr


def test_a_server_that_cannot_start_is_said_once(tmp_path: Path) -> None:
    """Its reason was printed twice at start: a log warning, then the gateway's error row."""
    config = write_config(tmp_path / "servers.json", {
        "up": upstream_entry("up"),
        "broken": {"command": str(tmp_path / "no-such-server"), "args": []},
    })
    proc = subprocess.Popen(serve_argv([str(config)], "--events", str(tmp_path / "e.jsonl")),
                            env=env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None
    time.sleep(0.1)
    lines: list[str] = []
    assert proc.stderr is not None
    while not any("tools offered" in line for line in lines):
        line = proc.stderr.readline().decode(errors="replace")
        assert line, "".join(lines)
        lines.append(line)
    proc.stdin.close()  # the client goes: the gateway ends
    assert proc.wait(timeout=30) == 0
    err = "".join(lines) + proc.stderr.read().decode(errors="replace")
    assert err.count("no-such-server") == 1, err
    assert "broken: cannot start" in err


@pytest.mark.parametrize("text", ['{"mcpServers": {}}', "model: x\n"])
def test_a_source_with_no_server_is_warned_about(tmp_path: Path, text: str) -> None:
    """A client config with no server, or a Hermes config.yaml without mcp_servers, served
    nothing without a word."""
    source = tmp_path / ("servers.json" if text.startswith("{") else "config.yaml")
    source.write_text(text)
    done = subprocess.run(serve_argv([str(source)], "--events", str(tmp_path / "e.jsonl")),
                          capture_output=True, text=True, env=env(), timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and done.stdout == ""
    assert "warning: the SOURCEs name no MCP server" in done.stderr, done.stderr


@pytest.mark.parametrize("source", ["nope.yaml", ""])
def test_a_missing_source_is_one_line_before_anything_is_said(tmp_path: Path,
                                                               source: str) -> None:
    """``serve nope.yaml`` said where its events go, then that the file is missing."""
    done = subprocess.run(serve_argv([source], "--events", str(tmp_path / "e.jsonl")),
                          capture_output=True, text=True, env=env(), timeout=60,
                          stdin=subprocess.DEVNULL, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("toolsearch: error: ")
    assert not (tmp_path / "e.jsonl").exists()
