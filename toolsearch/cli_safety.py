"""The CLI's failure model: one line and exit status 1 for every error (argparse's too),
checked numbers, ``ARGS_JSON`` without non-finite numbers, SIGTERM that stops a command as
Ctrl-C does (in a line and exit status of its own), and output streams that can print
anything a source holds (escaped, never raw, never a crash)."""

from __future__ import annotations

import argparse
import json
import logging
import math
import re
import signal
import sys
from collections.abc import Callable
from typing import IO, Any, NoReturn

from .textsafe import shown

#: Digits kept from a ``--set`` number: more would only be clamped (and Python refuses to
#: parse integers of over 4,300 digits).
MAX_SET_DIGITS = 18


#: Applied to every usage error before it is printed: the CLI installs its redaction here
#: (this module imports no engine module, so it cannot import the redaction itself).
SCRUB: list[Callable[[str], str]] = []


#: The command every warning line names: ``toolsearch``, or ``toolsearch serve`` while the
#: gateway runs (its other lines read ``toolsearch serve: ...``); see :func:`speak_as`.
_speaker = "toolsearch"


def speak_as(command: str) -> None:
    """Warnings from here on name *command* (``toolsearch serve``): the gateway's log
    warnings, its sources' and its own read ``toolsearch serve: warning: <text>``, like its
    other lines, where they read ``toolsearch: WARNING: ...`` and ``toolsearch: warning:``."""
    global _speaker
    _speaker = command


def warning_line(text: str) -> str:
    """The one shape of every warning the CLI prints: ``toolsearch: warning: <text>``
    (``toolsearch serve: warning: <text>`` from the gateway)."""
    return f"{_speaker}: warning: {text}"


def warn(text: str) -> None:
    """Print one warning on stderr, in :func:`warning_line`'s shape (one write: never
    interleaved with another line)."""
    sys.stderr.write(warning_line(text) + "\n")


class _LogLines(logging.Formatter):
    """A log record at WARNING, from the engine, the sources, the gateway or the HTTP server
    under it (uvicorn: ``Invalid HTTP request received.``), reads as every other warning (it
    read ``toolsearch: WARNING: ...``); other records as before."""

    def format(self, record: logging.LogRecord) -> str:
        if record.levelno == logging.WARNING:
            return warning_line(record.getMessage())
        return super().format(record)


def log_to_stderr() -> None:
    """Log records at WARNING and above go to stderr, warnings through :func:`warning_line`
    (like ``logging.basicConfig``, nothing changes when logging is set up already)."""
    handler = logging.StreamHandler()
    handler.setFormatter(_LogLines("toolsearch: %(levelname)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 1 (never the
    multi-line usage dump and status 2)."""

    def error(self, message: str) -> NoReturn:
        where = self.prog.removeprefix("toolsearch").strip()
        hint = f" (see toolsearch {where + ' ' if where else ''}--help)"
        text = shown(message, one_line=True)
        for scrub in SCRUB:  # an argument echoed back may hold a secret
            text = scrub(text)
        sys.stderr.write(f"toolsearch: error: {text}{hint}\n")
        sys.exit(1)


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1 (``--context``)."""
    try:
        value = int(text.strip()) if len(text) < 40 else None
    except ValueError:
        value = None
    if value is None:
        raise argparse.ArgumentTypeError(f"not an integer: {shown(text[:40], one_line=True)!r}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {value})")
    return value


def finite_seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds (``--timeout``)."""
    try:
        value = float(text) if len(text) < 40 else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"must be a positive number of seconds (got {shown(text[:40], one_line=True)!r})")
    return value


_LONG_NUMBER = re.compile(r"^(\s*[+-]?)(\d[\d_]*)(\.\d*)?(\s*)$")


def bounded_assignment(text: str) -> str:
    """``KEY=VALUE`` with an over-long number cut to :data:`MAX_SET_DIGITS` digits of nines,
    so the value clamps as ``--set`` promises instead of failing to parse."""
    key, sep, value = text.partition("=")
    match = _LONG_NUMBER.match(value)
    if not sep or not match or len(match.group(2).replace("_", "")) <= MAX_SET_DIGITS:
        return text
    return f"{key}={match.group(1)}{'9' * MAX_SET_DIGITS}{match.group(4)}"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (non-finite numbers are refused)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:20]}… is out of range (non-finite numbers are refused)"
                         if len(text) > 20 else
                         f"number {text} is out of range (non-finite numbers are refused)")
    return value


def parse_args_json(raw: str) -> Any:
    """``json.loads`` that refuses ``NaN``/``Infinity``, out-of-range floats, integers of over
    4,300 digits and nesting too deep to handle; raises ValueError with one line."""
    try:
        return json.loads(raw, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
                         ) from None
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError as exc:
        raise ValueError(str(exc).splitlines()[0] if str(exc) else "invalid number") from None


class EscapingStream:
    """A text stream that escapes control characters and lone surrogates before writing
    (for human-readable output; JSON output is already escaped by ``json.dumps``)."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(shown(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def harden_streams(*, escape_stdout: bool) -> Callable[[], None]:
    """Never crash printing (a lone surrogate prints as ``\\udxxx``) and never pass a
    terminal escape through: stderr always, stdout for text output. Returns a function that
    puts the original streams back."""
    saved = (sys.stdout, sys.stderr)

    def restore() -> None:
        sys.stdout, sys.stderr = saved

    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # pragma: no cover - a detached stream
                pass
    if not isinstance(sys.stderr, EscapingStream):
        sys.stderr = EscapingStream(sys.stderr)
    if escape_stdout and not isinstance(sys.stdout, EscapingStream):
        sys.stdout = EscapingStream(sys.stdout)
    return restore


#: The exit status of a command SIGTERM stopped (every command but ``serve``, for which
#: SIGTERM is the ordinary way to stop): 128 + 15, what a shell reports for a process the
#: signal ended, so a supervisor or script sees the work was cut short (Ctrl-C keeps 130).
SIGTERM_STATUS = 128 + signal.SIGTERM


def sigterm_line(command: str) -> str:
    """The one line a command SIGTERM stopped prints: ``toolsearch snapshot: stopped
    (SIGTERM)`` (``toolsearch: stopped (SIGTERM)`` before the command is known)."""
    return f"toolsearch {command}".strip() + ": stopped (SIGTERM)"


_terminated = False
"""Whether SIGTERM (not Ctrl-C) raised the current interrupt; see :func:`took_sigterm`."""

_stopping = False
"""Whether a SIGTERM is being acted on (repeats are ignored); see :func:`_terminate`."""


def took_sigterm() -> bool:
    """Whether the interrupt being handled came from SIGTERM (a supervisor stopping the
    command), not Ctrl-C; reading it clears it."""
    global _terminated
    was, _terminated = _terminated, False
    return was


def _terminate(signum: int, frame: Any) -> None:
    del signum, frame
    global _terminated, _stopping
    if _stopping:  # a repeat (`kill` twice, a supervisor's second try) while the first stops
        return  # the command: it raised KeyboardInterrupt in the middle of that cleanup
    _terminated = _stopping = True
    # The same path as Ctrl-C: the event loop cancels, every started server is stopped.
    if callable(signal.getsignal(signal.SIGINT)):
        signal.raise_signal(signal.SIGINT)
    else:  # SIGINT ignored (a background job): interrupt directly
        raise KeyboardInterrupt


def handle_sigterm() -> None:
    """SIGTERM stops the command like SIGINT does (servers reaped), once: a second SIGTERM
    while it stops is ignored. The command then says so in :func:`sigterm_line` and exits
    with :data:`SIGTERM_STATUS`."""
    global _terminated, _stopping
    _terminated = _stopping = False
    try:
        signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # pragma: no cover - not the main thread
        pass
