"""The gateway's events file: one JSON line per bridge call, plus the current assembly.

Two record types, told apart by ``type``:

* ``call``: ``time`` (ISO 8601, UTC), ``client`` (the MCP client's name), ``bridge``
  (``tool_search`` / ``tool_describe`` / ``tool_call``, or ``direct`` for a visible tool),
  ``tool`` (the underlying tool or null; a name the client gave past 400 characters is
  clipped, ``…`` marking the cut, and escapes in it are shown as text), ``outcome`` (the
  bridge's outcomes), ``ms``, ``arg_bytes``, ``result_bytes``, ``arguments`` (secrets
  redacted, long values clipped) and ``summary``.
* ``assembly``: what the clients currently receive: ``profile``, ``context_length``,
  ``config``, ``scope``, ``tier``, ``listing_form``, ``budget``, ``visible``,
  ``deferred_count``, ``tools`` (the names offered), ``toolsets`` (name, status, error,
  tools), ``clients``, ``serving`` and ``catalog`` (a snapshot catalog file of the
  gateway's sources, written beside the events file, that ``tui --follow`` loads).

Nothing secret is written: argument keys that look secret are masked, every string goes
through :func:`~toolsearch.sources.redact.redact_text` with the servers' own secret values.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from toolsearch.sources.catalog_file import read_document
from toolsearch.sources.errors import SourceError
from toolsearch.sources.filesafe import open_regular
from toolsearch.sources.redact import REDACTED, is_sensitive_name, redact_text
from toolsearch.sources.snapshot import check_output
from toolsearch.textsafe import shown as text_shown

log = logging.getLogger("toolsearch.gateway")

MAX_STRING = 400
GATEWAY_CATALOG_NAME = "gateway"
READ_CHUNK = 16 * 1024 * 1024
"""The most :func:`read_records` reads at once (the caller comes back for the rest)."""
MAX_ARGUMENTS = 4000
NAME_SHOWN = 200
"""The most of a tool's (or server's) name the gateway's own words to a client or on stderr
show; the routing key is never clipped."""
REASON_SHOWN = 400
"""The most of an upstream's failure a stderr line shows."""
ROTATE_BYTES = 64 * 1024 * 1024
"""The events file's size at which the gateway moves it to ``FILE.1`` (replacing an older
one) and starts ``FILE`` again, its current assembly line first: a gateway that serves for
months keeps at most about twice this on disk."""


def display_text(text: str, limit: int, secrets: Iterable[str] = ()) -> str:
    """*text* as the gateway shows or records it: secrets masked (the known ones and
    anything that looks like one), control characters and bidi overrides escaped, one line,
    and at most *limit* characters (``…`` ends a clipped one). Only a little past *limit*
    is ever read: a 10,000-character name costs nothing."""
    head = text[: limit + 100]  # room for a secret or an escape straddling the cut
    safe = text_shown(redact_text(head, secrets), one_line=True)
    if len(text) <= limit and len(safe) <= limit:
        return safe
    return safe[: limit - 1] + "…"


def catalog_problem(path: Path, sources: Sequence[str]) -> str:
    """Why the gateway must not write its snapshot catalog at *path* ("" when it may): the
    file there is one of its SOURCEs, or anything but a catalog a gateway wrote (named
    ``gateway``): the operator's files are never replaced by the gateway's snapshot."""
    if not os.path.lexists(path):
        return ""
    try:
        check_output(path, sources)
        data, _, _ = read_document(path)
    except SourceError as exc:
        return str(exc).split(";")[0].replace("of this snapshot", "of this gateway")
    if isinstance(data, Mapping) and data.get("name") == GATEWAY_CATALOG_NAME:
        return ""
    return f"{path}: exists and is not a catalog a gateway wrote"


def default_events_path() -> Path:
    """``$XDG_STATE_HOME/toolsearch/events.jsonl`` (``~/.local/state`` when unset)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "toolsearch" / "events.jsonl"


def catalog_path_for(events: Path) -> Path:
    """The snapshot catalog written beside an events file."""
    return events.with_name(events.stem + ".catalog.json")


def redact_value(value: Any, secrets: Iterable[str] = ()) -> Any:
    """*value* with secret-looking keys masked and every string scrubbed and clipped."""
    secrets = tuple(secrets)
    if isinstance(value, Mapping):
        return {str(k): REDACTED if is_sensitive_name(str(k)) else redact_value(v, secrets)
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v, secrets) for v in value]
    if isinstance(value, str):
        # clip first (with room for a secret that straddles the cut): events stay small
        text = redact_text(value[: MAX_STRING + 100], secrets)
        return text if len(value) <= MAX_STRING else text[:MAX_STRING] + "…"
    if value is None or isinstance(value, bool | int | float):
        return value
    return redact_text(str(value)[: MAX_STRING + 100], secrets)[:MAX_STRING]


def sent_secrets(value: Any) -> list[str]:
    """The strings *value* (a call's arguments) holds under a secret-looking name, at any
    depth: masked wherever the record repeats them (an upstream's error quoting the input
    back, ``input_value={'session': '...'}``), not only under their name."""
    found: list[str] = []

    def walk(v: Any, hidden: bool, depth: int) -> None:
        if depth > 64 or len(found) > 256:
            return
        if isinstance(v, Mapping):
            for key, item in v.items():
                walk(item, hidden or is_sensitive_name(str(key)), depth + 1)
        elif isinstance(v, list | tuple):
            for item in v:
                walk(item, hidden, depth + 1)
        elif hidden and v is not None and not isinstance(v, bool):
            found.append(str(v)[: MAX_STRING * 4])

    walk(value, False, 0)
    return found


def call_record(*, client: str, bridge: str, tool: str | None, outcome: str, ms: float,
                arguments: Any, arg_bytes: int, result_bytes: int, summary: str = "",
                secrets: Iterable[str] = ()) -> dict[str, Any]:
    """A call as the gateway records and shows it (the events file's ``call`` line but its
    ``type`` and ``time``, and the app's Activity feed): secrets redacted, long values
    clipped, the client's words made visible."""
    secrets = (*secrets, *sent_secrets(arguments))
    shown = redact_value(arguments, secrets)
    text = json.dumps(shown, ensure_ascii=False, default=str)
    if len(text) > MAX_ARGUMENTS:
        shown = {"_clipped": f"{arg_bytes} bytes", "preview": text[:200]}
    # the names are the client's words (an unknown tool's name is its ``bridge``): a
    # 10,000-character name or one holding escapes is clipped and made visible here
    return {
        "client": display_text(client, NAME_SHOWN, secrets),
        "bridge": display_text(bridge, MAX_STRING, secrets),
        "tool": display_text(tool, MAX_STRING, secrets) if tool is not None else None,
        "outcome": outcome, "ms": round(ms, 3),
        "arg_bytes": arg_bytes, "result_bytes": result_bytes, "arguments": shown,
        "summary": text_shown(redact_text(summary[:MAX_STRING + 100], secrets)[:MAX_STRING]),
    }


def _now(at: float | None = None) -> str:
    when = datetime.now(UTC) if at is None else datetime.fromtimestamp(at, UTC)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


def rotated_path(events: Path) -> Path:
    """Where a full events file is moved (``FILE.1``): see :data:`ROTATE_BYTES`."""
    return events.with_name(events.name + ".1")


def _check_events_path(path: Path) -> None:
    """A regular file: opening a FIFO to append blocks until some reader opens it, so the
    gateway hung before it listened; a folder was a Python error; ``/dev/null`` put the
    snapshot catalog written beside the events file into ``/dev``."""
    try:
        info = os.stat(path)
    except OSError:
        return  # not there yet: created on open
    if stat.S_ISREG(info.st_mode):
        return
    kind = "a directory" if stat.S_ISDIR(info.st_mode) else \
        "a FIFO (named pipe)" if stat.S_ISFIFO(info.st_mode) else "not a regular file"
    raise SourceError(f"events file {path}: is {kind}; give the path of a regular file")


def _make_folder(path: Path) -> Path | None:
    """Make the events file's missing folders; the first one made (None when all were
    there). A path under a file, or a folder that cannot be made, is one SourceError naming
    the events file ("afile: File exists" said neither)."""
    missing: Path | None = None
    folder = path.parent
    while not os.path.lexists(folder) and folder != folder.parent:
        missing, folder = folder, folder.parent
    if not folder.is_dir():
        raise SourceError(f"events file {path}: {folder} is not a folder")
    if missing is None:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SourceError(f"events file {path}: cannot create its folder {missing} "
                          f"({exc.strerror or exc})") from None
    return missing


class EventLog:
    """Appends records to the events file (thread-safe). Each line, or each batch a caller
    ends with :meth:`flush`, goes out in one ``write`` to a file opened for appending, so a
    reader following the file meets whole lines (a partial last line only while the write
    is in progress, which :func:`read_records` leaves for its next read)."""

    def __init__(self, path: Path | str, secrets: Iterable[str] = (),
                 max_bytes: int = ROTATE_BYTES) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        """Rotated to ``FILE.1`` once it holds this many bytes (0: never)."""
        _check_events_path(self.path)
        self.created = _make_folder(self.path)
        """The folder made for the file (the first one missing), or None: said at start."""
        self._secrets = tuple(secrets)
        self._lock = threading.Lock()
        try:
            self._file: IO[bytes] | None = self.path.open("ab", buffering=0)
        except OSError as exc:  # one line naming the events file ("/sys/ev.jsonl: Permission
            raise SourceError(f"events file {self.path}: cannot open it to append "  # denied")
                              f"({exc.strerror or exc})") from None
        info = os.fstat(self._file.fileno())
        self._identity = _identity(info)
        self._size = info.st_size
        self._assembly = b""
        """The last assembly line: the first line of a file started again."""
        self._pending: list[bytes] = []
        self._torn = False
        """A write failed part-way: the file may end in half a line."""
        self._said: set[str] = set()
        self._claim(self._file.fileno())

    def add_secrets(self, secrets: Iterable[str]) -> None:
        """Values to scrub from every record (the upstream servers' own secrets)."""
        self._secrets = tuple({*self._secrets, *(s for s in secrets if s)})

    def _write(self, record: Mapping[str, Any], flush: bool = True) -> None:
        line = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        with self._lock:
            if record.get("type") == "assembly":
                self._assembly = line
            if self._file is not None:
                self._pending.append(line)
                if flush:
                    self._write_pending()

    def _write_pending(self) -> None:
        """Write what is pending in one call (the lock is held). Never raises: a full disk
        drops the records, and the file deleted or replaced while serving is noticed; each
        is said once on stderr, the gateway keeps serving."""
        if self._file is None or not self._pending:
            return
        data = b"".join(self._pending)
        self._pending.clear()
        self._follow_path()
        if self._torn:  # end the half line a failed write left, so the next one parses
            data = b"\n" + data
        view = memoryview(data)
        try:
            while view:  # a regular file takes it all at once; a short write is finished here
                written = self._file.write(view) or 0
                if written <= 0:
                    break
                view = view[written:]
        except OSError as exc:
            self._torn = self._torn or len(view) < len(data)
            self._say("write", f"cannot write ({exc.strerror or exc}); records are dropped "
                               "while it cannot")
        else:
            self._torn = False
        self._size += len(data) - len(view)
        if self.max_bytes and self._size >= self.max_bytes:
            self._rotate()

    def _rotate(self) -> None:
        """Move the full file to ``FILE.1`` and start ``FILE`` again (the lock is held). A
        file at the path that is not ours is left alone; a rotation that fails is said once
        and the file goes on growing."""
        older = rotated_path(self.path)
        try:
            if _identity(os.stat(self.path)) != self._identity:
                return  # replaced while serving: _follow_path has said so
            os.replace(self.path, older)
        except OSError as exc:
            self._say("rotate", f"cannot move it to {older.name} ({exc.strerror or exc}); "
                                "it goes on growing")
            self.max_bytes = 0
            return
        why = self._start_again()  # on failure the path stays empty: the next write retries
        if why:
            self._say("rotate", f"moved to {older.name}, and cannot be created again ({why});"
                                " records go on to the moved file")

    def _start_again(self) -> str:
        """Create the file at the path anew (never opened over something else) and go on
        there, the last assembly line first so that an app opening it knows the gateway.
        Why it could not ("" when it could)."""
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o666)
        except OSError as exc:
            return str(exc.strerror or exc)
        assert self._file is not None
        self._file.close()
        self._file = os.fdopen(fd, "ab", buffering=0)
        self._identity = _identity(os.fstat(fd))
        self._torn = False
        self._size = 0
        self._claim(fd)
        if self._assembly:
            try:
                self._size = self._file.write(self._assembly) or 0
            except OSError:
                pass
        return ""

    def _claim(self, fd: int) -> None:
        """An advisory lock on the file, held while the gateway serves: a second gateway
        given the same file says so (both go on appending whole lines)."""
        try:
            import fcntl
        except ImportError:  # not POSIX: no advisory locks to tell by
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._say("shared", "another process (a second gateway?) appends to it too; both "
                                "go on writing whole lines, and an app following it sees both")
        except OSError:
            pass

    def _say(self, what: str, message: str) -> None:
        """*message* about the events file on stderr, once per kind of problem."""
        if what not in self._said:
            self._said.add(what)
            log.warning("events file %s: %s", self.path, message)

    def _follow_path(self) -> None:
        """The file at the path is still the one open: deleted while serving, it is started
        again (created, never opened over something else); replaced by another file, that
        file is left alone and records go on to the file first opened."""
        try:
            now = _identity(os.stat(self.path))
        except FileNotFoundError:
            if "rotate" in self._said:  # our own rotation, whose new file could not be made
                self._start_again()
            elif why := self._start_again():
                self._say("deleted", f"deleted while serving and cannot be created again "
                                     f"({why}); records are lost")
            else:
                self._say("deleted", "deleted while serving; started again")
            return
        except OSError:
            return
        if now != self._identity:
            self._say("replaced", "replaced by another file while serving; that file is left "
                                  "alone and records go on to the file first opened")

    def flush(self) -> None:
        with self._lock:
            self._write_pending()

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values scrubbed from every record (:meth:`add_secrets`)."""
        return self._secrets

    def call(self, *, at: float | None = None, flush: bool = True, **fields: Any) -> None:
        """One ``call`` line (*fields*: :func:`call_record`'s); ``at`` is when the call was
        made (``time.time()``, default now)."""
        self.write_call(call_record(**fields, secrets=self._secrets), at=at, flush=flush)

    def write_call(self, shown: Mapping[str, Any], *, at: float | None = None,
                   flush: bool = True) -> None:
        """One ``call`` line from a record :func:`call_record` made."""
        self._write({"type": "call", "time": _now(at), **shown}, flush)

    def assembly(self, record: Mapping[str, Any]) -> None:
        self._write({"type": "assembly", "time": _now(), **record})

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._write_pending()
                self._file.close()
                self._file = None


def read_records(path: Path | str, offset: int = 0, limit: int = READ_CHUNK
                 ) -> tuple[list[dict[str, Any]], int]:
    """Complete JSON lines of *path* from byte *offset*, at most *limit* bytes of them (and
    never more than :data:`READ_CHUNK`): (records, the next offset). A partial last line is
    left for the next read; a garbled line is skipped."""
    records: list[dict[str, Any]] = []
    limit = max(0, min(limit, READ_CHUNK))
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return records, offset  # swapped for a FIFO or a device: never opened
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read(limit)  # a long-lived gateway's file: read in bounds
    except OSError:
        return records, offset
    end = data.rfind(b"\n")
    if end < 0:
        # a line longer than a whole chunk is no event of ours: skip it, not re-read forever
        return records, offset + (len(data) if len(data) >= READ_CHUNK else 0)
    for raw in data[: end + 1].splitlines():
        try:
            record = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(record, dict):
            records.append(record)
    return records, offset + end + 1


HISTORY_LINES = 300
"""How many of an events file's last lines the app following it shows as history."""
HISTORY_BYTES = 2 * 1024 * 1024
"""The most of an events file's end read for that history."""
_TAIL_BLOCK = 64 * 1024


def history_range(path: Path | str, lines: int = HISTORY_LINES,
                  max_bytes: int = HISTORY_BYTES) -> tuple[int, int]:
    """``(start, end)``: the byte range of *path*'s last *lines* complete lines, read
    backwards from the end and never more than *max_bytes* of it (a long-lived gateway's
    file is large); ``start`` is a line's start, ``end`` the file's size. ``(0, 0)`` when
    the file is missing or not a regular file."""
    try:
        opened = open_regular(path)
        if opened is None:
            return 0, 0
        with opened as handle:
            size = os.fstat(handle.fileno()).st_size
            floor = max(0, size - max(0, max_bytes))
            pos, seen, earliest = size, 0, size
            while pos > floor:
                begin = max(floor, pos - _TAIL_BLOCK)
                handle.seek(begin)
                data = handle.read(pos - begin)
                at = len(data)
                while (at := data.rfind(b"\n", 0, at)) >= 0:
                    seen += 1  # the end of the last complete line is the first one seen
                    if seen > lines:
                        return begin + at + 1, size
                    earliest = begin + at + 1
                pos = begin
    except OSError:
        return 0, 0
    return (0 if floor == 0 else earliest), size


_BACK_BLOCK = 1024 * 1024


def last_record(path: Path | str, kind: str) -> dict[str, Any] | None:
    """The last complete JSON line of *path* whose ``type`` is *kind*, found by reading the
    file backwards from its end: a long-lived gateway's file holds a million calls after its
    one ``assembly`` line, and reading it from the start took 12 s at 255 MB. None when there
    is none, or the file is missing or not a regular file."""
    needle = json.dumps(kind).encode()
    try:
        opened = open_regular(path)
        if opened is None:
            return None
        with opened as handle:
            pos, carry = os.fstat(handle.fileno()).st_size, b""  # carry: the start of a line read last time
            while True:
                begin = max(0, pos - _BACK_BLOCK)
                handle.seek(begin)
                data = handle.read(pos - begin) + carry
                if begin > 0:  # the block's first line may have begun in an earlier block
                    cut = data.find(b"\n") + 1
                    if not cut:  # all of it is one line's middle
                        carry, pos = data, begin
                        continue
                    data, carry = data[cut:], data[:cut]
                at = len(data)
                while (hit := data.rfind(needle, 0, at)) >= 0:
                    start, end = data.rfind(b"\n", 0, hit) + 1, data.find(b"\n", hit)
                    at = start
                    if end < 0:
                        continue  # the file's last line, still being written
                    try:
                        record = json.loads(data[start:end])
                    except ValueError:
                        continue
                    if isinstance(record, dict) and record.get("type") == kind:
                        return record
                if begin == 0:
                    return None
                pos = begin
    except OSError:
        return None
