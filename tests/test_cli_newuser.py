"""The command line as a new user meets it: ``--help`` on every command, progress while long
work runs (on a terminal only), and Ctrl+C that ends a long command at once, in one line,
with exit status 130 and no server left running. Real processes, real terminals (a pty)."""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.sources.source_helpers import alive
from toolsearch.cli import build_parser
from toolsearch.progress import Progress

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = REPO / "tests" / "gateway" / "servers" / "upstream_server.py"


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "toolsearch", *args]


# --------------------------------------------------------------------------- --help


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """Every (sub)parser: the top, each COMMAND, each ``bench KIND``."""
    found: list[tuple[str, argparse.ArgumentParser]] = []

    def walk(name: str, parser: argparse.ArgumentParser) -> None:
        found.append((name, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    walk(f"{name} {sub_name}".strip(), sub)

    walk("", build_parser())
    return found


def test_every_command_and_bench_kind_is_walked() -> None:
    names = {name for name, _ in _parsers()}
    assert {"", "tui", "assemble", "snapshot", "serve", "bench", "bench recall",
            "bench tui", "bench gateway"} <= names


@pytest.mark.parametrize("name,parser", _parsers(), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_every_positional_and_option_says_what_it_is_and_its_default(
        name: str, parser: argparse.ArgumentParser) -> None:
    if name:  # every command's own --help opens with what it does, in one sentence
        assert parser.description and parser.description.endswith("."), name
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        what = "/".join(action.option_strings) or action.metavar or action.dest
        assert action.help and action.help != argparse.SUPPRESS, f"{name} {what}: no help"
        takes_value = action.option_strings and action.nargs != 0 and not action.required
        if takes_value:
            assert "default" in action.help.lower(), f"{name} {what}: no default said"


JARGON = re.compile(r"\(G\d\)|\bG[1-3]\b|REFERENCE §|§\d")


@pytest.mark.parametrize("name,parser", _parsers(), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_help_has_no_internal_jargon(name: str, parser: argparse.ArgumentParser) -> None:
    text = parser.format_help()
    assert not JARGON.search(text), (name, JARGON.findall(text))


def test_profile_help_says_which_hermes_in_plain_words() -> None:
    done = subprocess.run(_argv("assemble", "--help"), capture_output=True, text=True,
                          env={**_env(), "COLUMNS": "400"}, timeout=60)
    assert "seed: Hermes as in the seed article" in done.stdout
    assert "latest: later Hermes" in done.stdout


# --------------------------------------------------------------------------- progress


def _pty_reader(master: int) -> tuple[threading.Thread, list[bytes]]:
    """A started thread that reads the pty *master* into the list it returns, to its end."""
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the last writer closed the terminal
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    return reader, chunks


def _run_on_pty(argv: list[str], timeout: float = 120) -> tuple[int, str, str]:
    """Run with stderr a terminal (a pty) and stdout a pipe: (status, stdout, stderr)."""
    master, slave = pty.openpty()
    reader, chunks = _pty_reader(master)
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=slave,
                                stdin=subprocess.DEVNULL, env=_env(), cwd=REPO)
        os.close(slave)
        out, _ = proc.communicate(timeout=timeout)
        reader.join(10)
    finally:
        os.close(master)
    return proc.returncode, out.decode(), b"".join(chunks).decode(errors="replace")


def _run_piped(argv: list[str], timeout: float = 120) -> tuple[int, str, str]:
    done = subprocess.run(argv, capture_output=True, text=True, env=_env(), cwd=REPO,
                          stdin=subprocess.DEVNULL, timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def test_progress_lines_class_is_silent_off_a_terminal_and_throttled_on_one() -> None:
    class Tty:
        def __init__(self, tty: bool) -> None:
            self.text, self.tty = "", tty

        def isatty(self) -> bool:
            return self.tty

        def write(self, text: str) -> int:
            self.text += text
            return len(text)

        def flush(self) -> None:
            pass

    piped = Tty(False)
    Progress("bench x", piped)("working")
    assert piped.text == ""
    now = [0.0]
    tty = Tty(True)
    shown = Progress("bench x", tty, clock=lambda: now[0])
    shown("searching")
    for done in range(1, 101):  # 100 items in 10 s: a line every 2 s, and the last
        now[0] = done / 10
        shown.count(done, 100, "queries")
    lines = tty.text.splitlines()
    assert lines[0] == "toolsearch bench x: searching..."
    assert lines[1] == "toolsearch bench x: queries: 20 of 100"
    assert lines[-1] == "toolsearch bench x: queries: 100 of 100"
    assert len(lines) == 1 + 5
    shown("a quick step")  # done within 2 s: its one line, no count
    now[0] += 1
    shown.count(3, 3, "queries")
    assert tty.text.splitlines()[-1] == "toolsearch bench x: a quick step..."


def _servers_config(tmp_path: Path, count: int, marker: str = "") -> Path:
    extra = ["--marker", marker] if marker else []
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {
        f"up{i}": {"command": sys.executable, "args": [str(UPSTREAM), "--name", f"up{i}",
                                                       *extra]}
        for i in range(count)}}))
    return config


@pytest.mark.live
def test_live_servers_show_progress_on_a_terminal_and_nothing_on_a_pipe(tmp_path: Path) -> None:
    config = _servers_config(tmp_path, 2)
    argv = _argv("assemble", str(config))
    status, out_tty, err_tty = _run_on_pty(argv)
    assert status == 0, err_tty
    assert re.search(r"toolsearch: server up[01]: \d+ tools \(1 of 2 servers listed\)", err_tty)
    assert "(2 of 2 servers listed)" in err_tty
    status, out_pipe, err_pipe = _run_piped(argv)
    assert status == 0, err_pipe
    assert "servers listed" not in err_pipe and err_pipe == ""
    assert out_pipe == out_tty  # stdout is the same, byte for byte


def test_bench_reach_and_recall_show_progress_on_a_terminal_only() -> None:
    argv = _argv("bench", "reach", "five-servers")
    status, out_tty, err_tty = _run_on_pty(argv)
    assert status == 0, err_tty
    assert re.search(r"toolsearch bench reach: two searches for each of [\d,]+ tools\.\.\.",
                     err_tty)
    status, out_pipe, err_pipe = _run_piped(argv)
    assert status == 0 and err_pipe == ""
    timing = re.compile(r"\d+\.\d+s")  # the only line that differs run to run
    assert timing.sub("", out_pipe) == timing.sub("", out_tty)

    queries = str(REPO / "queries" / "five-servers.jsonl")
    argv = _argv("bench", "recall", "five-servers", "--queries", queries, "--json")
    status, out_tty, err_tty = _run_on_pty(argv)
    assert status == 0, err_tty
    assert re.search(r"toolsearch bench recall: [\d,]+ queries over [\d,]+ tools\.\.\.", err_tty)
    status, out_pipe, err_pipe = _run_piped(argv)
    assert status == 0 and err_pipe == ""
    assert json.loads(out_pipe).keys() == json.loads(out_tty).keys()


def test_bench_speed_shows_each_catalog_on_a_terminal_even_with_json(tmp_path: Path) -> None:
    argv = _argv("bench", "speed", "--catalogs", str(tmp_path / "none"), "--sizes", "40,60",
                 "--json")
    status, out_tty, err_tty = _run_on_pty(argv)
    assert status == 0, err_tty
    assert "toolsearch bench speed: generated catalog of 40 tools (catalog 1 of 2)..." in err_tty
    assert "toolsearch bench speed: generated catalog of 60 tools (catalog 2 of 2)..." in err_tty
    status, out_pipe, err_pipe = _run_piped(argv)
    # piped: no progress lines, only the one warning that the named folder is missing
    assert status == 0
    assert err_pipe == (f"toolsearch: warning: --catalogs {tmp_path / 'none'}: no such folder: "
                        "generated catalogs only\n")
    assert json.loads(out_pipe).keys() == json.loads(out_tty).keys()


# --------------------------------------------------------------------------- Ctrl+C


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            tasks = list(Path(f"/proc/{current}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            for child in children:
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""


def _none_left(proc: subprocess.Popen[bytes], seen: set[int]) -> None:
    """Kill *proc* if it still runs; then none of the processes *seen* under it may be left
    running (each gets 5 s to go)."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 5
    while any(alive(p) for p in seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = {p: _cmdline(p) for p in seen if alive(p)}
    assert not left, f"left running: {left}"


def _ctrl_c(argv: list[str], ready: Callable[[set[int]], bool], *, wait: float = 120,
            settle: float = 0.5, sig: int = signal.SIGINT
            ) -> tuple[int, str, float, set[int]]:
    """Start *argv* in a process group of its own (as a shell runs a command in a terminal),
    wait until ``ready(descendants seen)``, then send SIGINT to the whole group, as a
    terminal's Ctrl+C does (or *sig*). Returns (status, stderr, seconds to end, descendants seen)."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=_env(), cwd=REPO,
                            start_new_session=True)
    seen: set[int] = set()
    try:
        deadline = time.monotonic() + wait
        while not ready(seen):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"never ready (status {proc.poll()}): "
                            f"{proc.stderr.read().decode() if proc.stderr else ''}")
            seen |= _descendants(proc.pid)
            time.sleep(0.1)
        time.sleep(settle)
        seen |= _descendants(proc.pid)
        started = time.monotonic()
        os.killpg(proc.pid, sig)
        status = proc.wait(timeout=30)
        took = time.monotonic() - started
        assert proc.stderr is not None
        err = proc.stderr.read().decode(errors="replace")
    finally:
        _none_left(proc, seen)
    return status, err, took, seen


def _one_interrupted_line(status: int, err: str) -> None:
    assert status == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.rstrip().endswith("toolsearch: interrupted"), err


@pytest.mark.live
def test_ctrl_c_during_a_snapshot_of_live_servers(tmp_path: Path) -> None:
    config = _servers_config(tmp_path, 3)
    status, err, took, seen = _ctrl_c(
        _argv("snapshot", str(config), "-o", str(tmp_path / "out.yaml")),
        lambda seen: len(seen) >= 3, settle=0.2)
    _one_interrupted_line(status, err)
    assert took < 5
    assert not (tmp_path / "out.yaml").exists()


def _spinner_running(seen: set[int]) -> bool:
    return any("while True: pass" in _cmdline(p) for p in seen if alive(p))


@pytest.mark.live
def test_ctrl_c_during_bench_tui_prints_no_traceback_from_its_busy_core_spinner() -> None:
    """The busy-core first paints keep a spinning interpreter in the bench's process group:
    a terminal's Ctrl+C reached it too, and its KeyboardInterrupt traceback followed the one
    'interrupted' line."""
    status, err, _took, _seen = _ctrl_c(_argv("bench", "tui"), _spinner_running, wait=180)
    _one_interrupted_line(status, err)


def _big_dumps(folder: Path, servers: int = 12, tools: int = 600) -> Path:
    """A folder of tool dumps big enough that a gateway takes a while to load it."""
    folder.mkdir()
    for s in range(servers):
        (folder / f"server{s}.json").write_text(json.dumps({"server": f"server{s}", "tools": [
            {"name": f"tool_{s}_{t}", "description": f"Do thing {t} of kind {s} with care.",
             "inputSchema": {"type": "object", "properties": {
                 "target": {"type": "string", "description": "what to act on"}}}}
            for t in range(tools)]}))
    return folder


def _big_gateway_loading(seen: set[int]) -> bool:
    """The bench's upstream, floor and both gateways are started (the big one loading)."""
    return sum(1 for p in seen if "toolsearch serve" in _cmdline(p) and alive(p)) >= 2


@pytest.mark.live
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_during_bench_gateway_stops_its_servers_at_once(tmp_path: Path,
                                                               sig: int) -> None:
    """The mcp SDK closes each server's stdin and waits for it, one server after another: a
    gateway still loading its catalogs reads no stdin, and Ctrl+C waited for the load and
    then 2 s more per server (4 to 6 s here). The bench now stops them all at once. The
    gateways it stops said 'toolsearch: interrupted' too: the user read it three times."""
    status, err, took, _seen = _ctrl_c(
        _argv("bench", "gateway", "--catalogs", str(_big_dumps(tmp_path / "dumps"))),
        _big_gateway_loading, settle=0.3, sig=sig)
    if sig == signal.SIGTERM:  # SIGTERM says so in a line of its own (tests/test_cli_sigterm.py)
        assert status == 143 and "Traceback" not in err, err
        assert err.rstrip().splitlines()[-1] == "toolsearch bench gateway: stopped (SIGTERM)"
        assert err.count("stopped (SIGTERM)") == 1, err
    else:
        _one_interrupted_line(status, err)
        assert err.count("toolsearch: interrupted") == 1, err
    assert took < 2.5, f"{took:.1f} s to stop"
    # the gateways' normal start lines are not relayed either (they read as the bench's own)
    assert "toolsearch serve:" not in err, err


@pytest.mark.live
def test_ctrl_c_during_serve_over_http_stops_its_upstream_servers(tmp_path: Path) -> None:
    config = _servers_config(tmp_path, 2)
    status, err, took, _seen = _ctrl_c(
        _argv("serve", str(config), "--transport", "http", "--port", "0", "--events",
              str(tmp_path / "events.jsonl")),
        lambda seen: sum(1 for p in seen if "upstream_server" in _cmdline(p)) >= 2, settle=1.5)
    assert status == 130, err  # the gateway says it stopped, in its own words
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.rstrip().endswith("toolsearch serve: stopped (Ctrl+C)"), err
    assert took < 5


def _after(seconds: float) -> Callable[[set[int]], bool]:
    started = time.monotonic()
    return lambda _seen: time.monotonic() - started >= seconds


@pytest.mark.parametrize("argv", [
    ("bench", "speed", "--sizes", "3000,3000,3000,3000", "--catalogs", "/nonexistent"),
    ("bench", "recall"),  # the whole suite
    ("bench", "reach", "cloudflare-scale"),
], ids=["speed", "recall-suite", "reach"])
def test_ctrl_c_during_a_bench_ends_it_in_one_line(argv: tuple[str, ...]) -> None:
    status, err, took, _seen = _ctrl_c(_argv(*argv), _after(3), settle=0)
    _one_interrupted_line(status, err)
    assert took < 3


def test_theme_help_names_the_bundled_themes_and_the_default() -> None:
    from toolsearch.cli_help import THEME_HELP
    from tui.themes import DEFAULT_THEME, load_themes

    names = {theme.name for theme in load_themes().themes}
    assert names and all(name in THEME_HELP for name in names)
    assert f"(default: {DEFAULT_THEME})" in THEME_HELP
