"""The app following a gateway finds the gateway's last ``assembly`` line by reading the events
file backwards: the answer is the one a read from the start gives, whatever the block size."""

from __future__ import annotations

import json
import os
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from toolsearch.gateway import events
from toolsearch.gateway.events import last_record


def _forward(path: Path, kind: str) -> dict[str, Any] | None:
    """Every complete line from the start: the slow answer to compare with."""
    found = None
    data = path.read_bytes()
    for raw in data[: data.rfind(b"\n") + 1].splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") == kind:
            found = record
    return found


def _within(seconds: float, call: Any) -> Any:
    """*call()*'s answer, failing (not hanging) when it takes longer than *seconds*: a plain
    open of a FIFO waits for a writer for good."""
    answer: list[Any] = []
    worker = threading.Thread(target=lambda: answer.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert answer, f"no answer within {seconds} s"
    return answer[0]


def _line(rng: random.Random, n: int) -> bytes:
    kind = rng.choice(["call", "call", "call", "assembly"])
    summary = rng.choice(["", "assembly", '"type": "assembly"', "x" * rng.randint(0, 300)])
    text = json.dumps({"type": kind, "n": n, "summary": summary}) + "\n"
    if rng.random() < 0.05:
        text = text[: len(text) // 2] + "\n"  # a garbled line
    return text.encode()


@pytest.mark.parametrize("block", [7, 64, 1000])
def test_the_backward_read_agrees_with_a_forward_read(tmp_path, monkeypatch, block):
    monkeypatch.setattr(events, "_BACK_BLOCK", block)
    rng = random.Random(block)
    for trial in range(60):
        path = tmp_path / f"e{trial}.jsonl"
        body = b"".join(_line(rng, n) for n in range(rng.randint(0, 40)))
        if rng.random() < 0.3:  # the gateway is writing its last line
            body += b'{"type": "assembly", "n": -1'
        path.write_bytes(body)
        assert last_record(path, "assembly") == _forward(path, "assembly"), body


def test_a_line_longer_than_many_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(events, "_BACK_BLOCK", 16)
    path = tmp_path / "e.jsonl"
    long = json.dumps({"type": "assembly", "catalog": "c" * 500}) + "\n"
    path.write_text(long + json.dumps({"type": "call", "summary": "y" * 200}) + "\n")
    assert last_record(path, "assembly") == json.loads(long)


def test_no_file_or_not_a_file(tmp_path):
    assert last_record(tmp_path / "missing.jsonl", "assembly") is None
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert _within(5.0, lambda: last_record(fifo, "assembly")) is None  # no writer: no wait
    assert last_record(tmp_path, "assembly") is None


def test_a_large_file_is_read_from_its_end(tmp_path, monkeypatch):
    """A million calls after the one assembly line (255 MB) took 12 s read from the start;
    an assembly line near the end is found without reading the rest (figure, not a target)."""
    path = tmp_path / "big.jsonl"
    call = (json.dumps({"type": "call", "summary": "x" * 100}) + "\n").encode()
    with open(path, "wb") as handle:
        handle.write(b'{"type": "assembly", "n": 1}\n')
        handle.write(call * 200_000)
        handle.write(b'{"type": "assembly", "n": 2}\n')
        handle.write(call * 10)
    read: list[int] = []
    real_open = events.open_regular

    class Counting:
        def __init__(self, handle: Any) -> None:
            self.handle = handle

        def __enter__(self) -> Counting:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def read(self, size: int) -> bytes:
            data = self.handle.read(size)
            read.append(len(data))
            return data

        def __getattr__(self, name: str) -> Any:
            return getattr(self.handle, name)

    monkeypatch.setattr(events, "open_regular", lambda p: Counting(real_open(p)))
    started = time.perf_counter()
    assert last_record(path, "assembly") == {"type": "assembly", "n": 2}
    print(f"found in {1000 * (time.perf_counter() - started):.1f} ms")
    assert sum(read) <= events._BACK_BLOCK < path.stat().st_size // 10


def test_the_history_range_of_a_fifo_is_empty_without_waiting(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert _within(5.0, lambda: events.history_range(fifo)) == (0, 0)
