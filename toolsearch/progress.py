"""Progress lines for commands that take a while (a bench, many live servers): on stderr, and
only when stderr is a terminal, so piped or redirected output is exactly what it was.

A progress line says what is being done and, for a loop, how far it is (``n of N``). Lines,
never a redrawn status: stdout may be the same terminal, and a line is never overwritten by
it. A loop reports at most once every :data:`EVERY_S` seconds, so a benchmark is not slowed.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO

#: The fewest seconds between two ``n of N`` lines of one loop.
EVERY_S = 2.0


class Progress:
    """Say what a command is doing: ``progress("loading")``, ``progress.count(n, total)``."""

    def __init__(self, label: str, stream: IO[str] | None = None, *,
                 enabled: bool | None = None, clock: Callable[[], float] = time.monotonic,
                 ) -> None:
        self.label = label
        self._stream = stream
        self.enabled = _is_terminal(self.stream) if enabled is None else enabled
        self._clock = clock
        self._what = ""
        self._last = -EVERY_S
        self._counted = False

    @property
    def stream(self) -> IO[str]:
        return self._stream if self._stream is not None else sys.stderr

    def __call__(self, what: str) -> None:
        """Start a step: one line ``toolsearch LABEL: WHAT...``."""
        if not self.enabled:
            return
        self._what = what
        self._last = self._clock()
        self._counted = False
        self._write(f"{what}...")

    def count(self, done: int, total: int, what: str | None = None) -> bool:
        """``done`` of ``total`` items of the current step: a line when :data:`EVERY_S` have
        passed since the last one, and for the last item when a count was shown before (a
        quick step stays one line). Returns True (a ``tick`` for loops that stop when it
        returns False)."""
        if not self.enabled:
            return True
        now = self._clock()
        if now - self._last < EVERY_S and (done < total or not self._counted):
            return True
        self._last = now
        self._counted = True
        self._write(f"{what or self._what}: {done:,} of {total:,}")
        return True

    def say(self, text: str) -> None:
        """One line as it is (no ``...``): a step's outcome."""
        self._write(text)

    def _write(self, text: str) -> None:
        if not self.enabled:
            return
        try:
            where = f"toolsearch {self.label}" if self.label else "toolsearch"
            self.stream.write(f"{where}: {text}\n")
            self.stream.flush()
        except (OSError, ValueError):  # a closed terminal: progress is never worth a crash
            self.enabled = False


def _is_terminal(stream: IO[str] | None) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (OSError, ValueError, AttributeError):
        return False


def progress(label: str) -> Progress:
    """A :class:`Progress` on stderr, on only when stderr is a terminal."""
    return Progress(label)


#: A progress that never prints (a caller that was handed none).
SILENT = Progress("", enabled=False)
