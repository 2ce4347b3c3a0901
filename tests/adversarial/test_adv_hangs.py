"""Hangs (issue 9, 1-5): every command finishes within its limits, with one clear line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from adv_helpers import (
    PYTHON,
    REPO,
    SLACK,
    cli,
    no_leftovers,
    one_error_line,
    raw_server,
    write_yaml_config,
)

BOMB = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9) if prev else ', '.join(['lol'] * 9)}]\n"
    for prev, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
)


@pytest.mark.parametrize("shape", ["catalog", "hermes", "client"])
def test_alias_bomb_is_refused_in_one_line(tmp_path: Path, shape: str) -> None:
    tail = {
        "catalog": "toolsets:\n  - name: x\n    tools: [{name: t, description: *i}]\n",
        "hermes": "mcp_servers:\n  s: {command: x, args: *i}\n",
        "client": "mcpServers:\n  s: {command: x, args: *i}\n",
    }[shape]
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB + tail, encoding="utf-8")
    run = cli("assemble", str(path), timeout=60)
    line = one_error_line(run)
    assert "alias" in line and "bomb.yaml" in line


def test_cyclic_anchor_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cycle.yaml"
    path.write_text("a: &a [x, *a]\ntoolsets: []\n", encoding="utf-8")
    assert "cyclic" in one_error_line(cli("assemble", str(path)))


def test_server_timeouts_are_capped_by_the_command_timeout(tmp_path: Path, marker: str) -> None:
    entry = {**raw_server("ignore-term", marker), "connect_timeout": ".inf", "timeout": 1e308}
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers", {"slow": entry})
    config.write_text(config.read_text().replace('".inf"', ".inf"), encoding="utf-8")
    run = cli("assemble", str(config), "--timeout", "2", "--json", timeout=2 + SLACK + 10)
    assert run.returncode == 0, run
    assert run.seconds < 2 + SLACK, run.seconds
    row = next(t for t in run.json()["toolsets"]  # type: ignore[index]
               if t["name"] in ("slow", "mcp-slow"))  # a server's or its registry name
    assert row["error"] == "no answer within 2 s"
    assert "slow: failed: no answer within 2 s" in run.stderr
    no_leftovers(marker)


@pytest.mark.parametrize("mode", ["silent", "ignore-term", "slow-list"])
def test_silent_servers_end_within_the_timeout(tmp_path: Path, marker: str, mode: str) -> None:
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers",
                               {"s": raw_server(mode, marker)})
    run = cli("assemble", str(config), "--timeout", "3", timeout=3 + SLACK + 10)
    assert run.returncode == 0, run
    assert run.seconds < 3 + SLACK, run.seconds
    assert "no answer within 3 s" in run.stdout
    assert [ln for ln in run.stderr_lines()] == ["toolsearch: warning: s: failed: no answer "
                                                "within 3 s"]
    no_leftovers(marker)


def test_a_hung_tool_call_ends_within_the_timeout(tmp_path: Path, marker: str) -> None:
    config = write_yaml_config(tmp_path / "config.yaml", "mcpServers",
                               {"h": raw_server("hang-call", marker)})
    run = cli("call", str(config), "tool_call", json.dumps({"name": "mcp__h__wait"}),
              "--timeout", "3", "--set", "enabled=on", "--json", timeout=2 * (3 + SLACK))
    assert run.returncode == 0, run
    reply = run.json()
    assert reply["activity"]["outcome"] == "error", reply  # type: ignore[index]
    assert "no answer within 3 s" in json.dumps(reply)
    assert run.seconds < 2 * 3 + SLACK  # listing, then the call: each under the timeout
    no_leftovers(marker)


def test_catastrophic_pattern_fails_open_and_says_so(tmp_path: Path) -> None:
    catalog = tmp_path / "re.yaml"
    catalog.write_text(
        "toolsets:\n  - name: srv\n    tools:\n      - name: check\n"
        "        inputSchema: {type: object, properties: {code: {type: string, "
        "pattern: '(a+)+$'}}, required: [code]}\n", encoding="utf-8")
    args = json.dumps({"name": "mcp__srv__check", "arguments": {"code": "a" * 60 + "!"}})
    run = cli("call", str(catalog), "tool_call", args, "--profile", "latest", "--json",
              timeout=60)
    assert run.returncode == 0, run
    activity = run.json()["activity"]  # type: ignore[index]
    assert activity["outcome"] == "ok"
    assert "failed open" in activity["note"] and "(a+)+$" in activity["note"]
    # A short value is still checked (and a mismatch still rejected).
    short = json.dumps({"name": "mcp__srv__check", "arguments": {"code": "aa!"}})
    run = cli("call", str(catalog), "tool_call", short, "--profile", "latest", "--json")
    assert run.json()["activity"]["outcome"] == "invalid"  # type: ignore[index]


def test_pattern_properties_are_bounded_too(tmp_path: Path) -> None:
    from toolsearch.regex_guard import bounded_search, take_skipped_note

    started = time.monotonic()
    assert bounded_search("(a|aa)*c", "a" * 80) is None
    assert bounded_search("^[a-z]+$", "a" * 80) is True
    assert time.monotonic() - started < 5
    assert "quantified alternation" in take_skipped_note()
    assert take_skipped_note() == ""


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    yield path


def test_fifo_is_refused_without_blocking(fifo: Path) -> None:
    line = one_error_line(cli("assemble", str(fifo), timeout=30))
    assert "FIFO" in line


def test_dev_zero_is_refused_without_reading(tmp_path: Path) -> None:
    line = one_error_line(cli("assemble", "/dev/zero", timeout=30))
    assert "character device" in line


@pytest.mark.parametrize("target", ["fifo", "/dev/zero", "folder"])
def test_a_query_file_that_is_no_file_is_refused_in_one_line(
        fifo: Path, tmp_path: Path, target: str) -> None:
    """`bench recall --queries` read the file whole: a FIFO hung it, /dev/zero would fill
    memory, a folder printed Python's IsADirectoryError."""
    path = {"fifo": str(fifo), "/dev/zero": "/dev/zero", "folder": str(tmp_path)}[target]
    line = one_error_line(cli("bench", "recall", "seed-demo", "--queries", path, timeout=30))
    assert {"fifo": "is a FIFO (named pipe), not a file",
            "/dev/zero": "is a character device, not a file",
            "folder": "is a directory, not a query file"}[target] in line


@pytest.mark.parametrize("target", ["fifo", "/dev/null", "folder"])
def test_an_events_file_that_is_no_file_is_refused_before_serving(
        fifo: Path, tmp_path: Path, target: str) -> None:
    """`serve --events FIFO` blocked in open() until a reader came, before it listened;
    `/dev/null` wrote the snapshot catalog beside it, into /dev; a folder was a Python error."""
    path = {"fifo": str(fifo), "/dev/null": "/dev/null", "folder": str(tmp_path)}[target]
    line = one_error_line(cli("serve", "seed-demo", "--transport", "http", "--port", "0",
                              "--events", path, timeout=30))
    assert f"events file {path}: is " in line and "give the path of a regular file" in line


def test_files_the_app_reads_are_refused_without_blocking(fifo: Path, tmp_path: Path) -> None:
    """The app's other readers: a theme file, the Recall tab's query file, the save dialog's
    diff of a path the operator typed, a followed events file. Each once opened a FIFO (a
    hang) or read /dev/zero (memory); the diff also parsed YAML unbounded (an alias bomb)."""
    from toolsearch.gateway.events import read_records
    from toolsearch.session import SessionState
    from toolsearch.sources import load_sources
    from tui.recall_view import recall_run
    from tui.save_diff import block_of, on_disk
    from tui.themes import load_themes

    (tmp_path / "themes").mkdir()
    os.mkfifo(tmp_path / "themes" / "pipe.yaml")
    loaded = _within(load_themes, tmp_path / "themes")
    assert not loaded.themes and any("FIFO" in e for e in loaded.errors), loaded.errors

    state = SessionState.from_workspace(load_sources(["quickstart"]))
    view = _within(recall_run, state, str(fifo), ("seed",))
    assert view.error and "FIFO" in view.error

    bomb = tmp_path / "config.yaml"
    bomb.write_text(BOMB + "tools:\n  tool_search: {threshold_pct: 7}\n", encoding="utf-8")
    for path in (fifo, Path("/dev/zero"), bomb):
        assert _within(lambda p: block_of(on_disk(p)), path) == {}
    assert _within(read_records, fifo, 0) == ([], 0)
    assert _within(read_records, Path("/dev/zero"), 0) == ([], 0)


def _within(fn: Callable[..., Any], *args: Any, seconds: float = 20.0) -> Any:
    """*fn(*args)* in a daemon thread: a reader stuck on a FIFO fails the test, not the run."""
    import threading

    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(fn(*args)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert out, f"{getattr(fn, '__name__', fn)}{args!r} hung (over {seconds} s)"
    return out[0]


def test_a_followed_events_file_is_read_in_bounds(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from toolsearch.gateway import events

    monkeypatch.setattr(events, "READ_CHUNK", 64)
    path = tmp_path / "events.jsonl"
    lines = [json.dumps({"type": "call", "n": i}) for i in range(10)]
    path.write_text("x" * 200 + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    seen: list[int] = []
    offset = 0
    for _ in range(100):
        records, offset = events.read_records(path, offset)
        seen.extend(r["n"] for r in records)
        if offset == path.stat().st_size:
            break
    assert seen == list(range(10))  # a line longer than a chunk is skipped, not re-read forever


def test_sigterm_reaps_servers_like_sigint(tmp_path: Path, marker: str) -> None:
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers", {
        "a": raw_server("silent", marker), "b": raw_server("ignore-term", marker)})
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([PYTHON, "-m", "toolsearch", "assemble", str(config),
                             "--timeout", "60"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    try:
        from adv_helpers import processes_with, wait_until

        assert wait_until(lambda: len(processes_with(marker)) == 2, 30), "servers never started"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143  # SIGTERM's own line and status (tests/test_cli_sigterm.py)
    assert err.decode().strip() == "toolsearch assemble: stopped (SIGTERM)"
    no_leftovers(marker)


async def test_the_app_shows_a_bomb_as_a_load_error_and_quits(tmp_path: Path) -> None:
    """The app: a bomb is a one-line load error (no blank screen, no spin); Ctrl+Q quits."""
    import asyncio

    from tui.app import ToolSearchApp

    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB + "toolsets:\n  - name: x\n    tools: [{name: t, description: *i}]\n",
                    encoding="utf-8")
    app = ToolSearchApp([str(path)], exact=False)

    async def drive() -> list[str]:
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(200):
                await pilot.pause(0.05)
                if any("alias" in n.message for n in app._notifications):
                    break
            messages = [n.message for n in app._notifications]
            await pilot.press("ctrl+q")
            await pilot.pause(0.1)
            return messages

    messages = await asyncio.wait_for(drive(), 60)
    assert "nothing loaded" in app.sub_title
    assert any("alias" in m and "bomb.yaml" in m for m in messages), messages
    assert app.return_code in (0, None)
