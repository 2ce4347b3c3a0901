"""How a stdio upstream's exit is told: the watch that gives up a server whose own process
exited names a process holding its stdout only when one does."""

from __future__ import annotations

import os
import subprocess
import sys

import anyio
import pytest

from toolsearch.sources import live

SLEEPER = "import subprocess, sys, time; {spawn}time.sleep(0.5)"


async def _watch(code: str) -> str:
    process = await anyio.open_process([sys.executable, "-c", code],
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        entry = live._Spawned(process, live._fd_link(process.pid, 1))
        assert entry.stdout_pipe.startswith("pipe:")
        with pytest.raises(live.ServerExited) as raised:
            with anyio.fail_after(10):
                await live._watch_exit([entry], anyio.Event(), [])
        return str(raised.value)
    finally:
        for pid in live._stdout_writers(entry.stdout_pipe):
            os.kill(pid, 9)
        await process.aclose()


async def test_a_server_that_simply_exited_is_not_said_to_leave_its_stdout_held(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "EXITED_GRACE", 0.2)
    said = await _watch(SLEEPER.format(spawn=""))
    assert said == "server exited with code 0"


async def test_a_server_whose_child_holds_its_stdout_is_said_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "EXITED_GRACE", 0.2)
    said = await _watch(SLEEPER.format(spawn="subprocess.Popen(['sleep', '30']); "))
    assert "kept its stdout open" in said
