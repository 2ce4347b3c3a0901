"""The gateway's stdio transport: the client's pipes read and written on the event loop.

The ``mcp`` SDK's ``stdio_server`` wraps stdin and stdout in worker threads: every line read
and every reply written (and flushed) is a hop to a thread and back, and the hops contend
for the GIL with the gateway's own work; measured on the gateway, that was about 0.3 ms of
median and 2 ms of p95 per call. When stdin and stdout are pipes or sockets (what an MCP
client gives its server), this transport reads and writes them without blocking, on the
event loop. Any other stdin (a terminal, a file) is read by a daemon thread, and any other
stdout written with blocking writes: the SDK's ``stdio_server`` reads stdin in a worker
thread that cannot be cancelled, so Ctrl-C or SIGTERM in a terminal left the gateway (and
its upstream servers) running until the next Enter, and the interpreter waited for that
thread at exit.

Like the SDK's, it keeps the real descriptors for itself while serving and points fd 0 at
the null device and fd 1 at stderr, so nothing else (a library's ``print``, a child process)
can write into the protocol stream; both are put back on exit.

At the end of stdin (``cat requests | toolsearch serve``: a client that writes its requests
and closes its end), the requests already read are answered before the gateway ends: the
SDK's serving loop cancels whatever is running when its read stream ends, so the read stream
is held open until every request read has its reply (or the client cancelled it), for at
most *drain* seconds (the gateway gives its longest upstream call timeout, and a bit). A
client that closed stdout too has left: nothing is waited for.

A line that is not JSON is answered with JSON-RPC's parse error (-32700, id null), and JSON
that is not a JSON-RPC message with its invalid request (-32600, the message's id when one
can be read): the SDK dropped both without a word, so a client waited for a reply that never
came. The line itself is never echoed back; the lines after it are served as usual.
"""

from __future__ import annotations

import asyncio
import os
import select
import stat
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel

READ_CHUNK = 1 << 16
DRAIN_SECONDS = 30.0
_GONE = select.POLLERR | select.POLLHUP | select.POLLNVAL
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
MAX_LINE = 64 << 20
"""The longest line read from the client (64 MiB, the bound on every file and ARGS_JSON the
CLI reads; a 50 MB tool_call argument is served): a longer one is answered with a parse
error as soon as it passes this, and the rest of it, up to its newline, is skipped unread
(a client writing 100 MB with no newline grew the gateway by as much, and more)."""
REASON_SHOWN = 200
"""At most this many characters of the reason a bad line was refused (never the line)."""
LISTEN = "subscriptions/listen"
"""The 2026 wire's request for change notifications: it is answered only when its stream
ends, so at the end of stdin it is not waited for (it held the gateway for the whole drain,
65 s by default, then got "Connection closed" anyway)."""


def _reader_gone(out_fd: int) -> bool:
    """Whether the client closed its end of *out_fd* (a pipe or socket): nobody reads."""
    poller = select.poll()
    poller.register(out_fd, 0)  # errors and hang-ups are reported without asking
    return any(events & _GONE for _, events in poller.poll(0))


class _Awaited:
    """The ids of the requests read from the client that have no reply written yet (with
    how many: a client may reuse an id while its first request runs); a
    ``subscriptions/listen`` is never awaited."""

    def __init__(self, out_fd: int | None = None, left: anyio.Event | None = None) -> None:
        """*out_fd*: the client's stdout when it is a pipe or socket (checked for a client
        that went away while its requests are awaited); *left*: set once the client is
        known gone (its stdout closed), before the calls still running are cancelled."""
        import mcp_types as types

        self.out_fd = out_fd
        self.left = left if left is not None else anyio.Event()
        self.ids: dict[Any, int] = {}
        self._changed = anyio.Event()
        self._request, self._notification = types.JSONRPCRequest, types.JSONRPCNotification
        self._replies = (types.JSONRPCResponse, types.JSONRPCError)

    def read(self, message: Any) -> None:
        if isinstance(message, self._request) and message.method != LISTEN:
            self.ids[message.id] = self.ids.get(message.id, 0) + 1
        elif isinstance(message, self._notification) and \
                message.method == "notifications/cancelled":
            params = message.params if isinstance(message.params, dict) else {}
            self._answered(params.get("requestId"))  # a cancelled request gets no reply

    def expect(self, request_id: str | int | None) -> None:
        """A reply to *request_id* is owed that no request read asked for (an error reply
        to a line that was not a JSON-RPC message): it is awaited like a request's."""
        self.ids[request_id] = self.ids.get(request_id, 0) + 1

    def written(self, message: Any) -> None:
        if isinstance(message, self._replies):
            self._answered(message.id)

    def _answered(self, request_id: Any) -> None:
        try:
            left = self.ids.get(request_id, 0) - 1
        except TypeError:  # an unhashable id was never a request's
            return
        if left > 0:
            self.ids[request_id] = left
        else:
            self.ids.pop(request_id, None)
        self._changed.set()

    async def drained(self, limit: float) -> None:
        """Back once every request read has been answered, or the client closed its end of
        stdout, or after *limit* seconds."""
        out_fd = self.out_fd
        with anyio.move_on_after(limit):
            while self.ids:
                if out_fd is not None and _reader_gone(out_fd):
                    self.left.set()  # the calls cancelled next are the client's leaving
                    return
                self._changed = anyio.Event()
                with anyio.move_on_after(0.1):
                    await self._changed.wait()


def _pollable(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@asynccontextmanager
async def stdio_streams(drain: float = DRAIN_SECONDS, left: anyio.Event | None = None
                        ) -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` for ``Server.run`` over this process's stdio; at the
    end of stdin, the requests read are answered (for at most *drain* seconds) before the
    read stream ends. *left* is set when the client is found gone (its end of stdout
    closed) with requests unanswered."""
    in_poll, out_poll = _pollable(0), _pollable(1)
    in_fd, out_fd = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    if in_poll:
        os.set_blocking(in_fd, False)
    if out_poll:
        os.set_blocking(out_fd, False)
    try:
        async with _pipe_streams(in_fd, out_fd, in_poll, drain, out_poll,
                                 left) as streams:
            yield streams
    finally:
        for fd, polled in ((in_fd, in_poll), (out_fd, out_poll)):
            if polled:
                try:
                    os.set_blocking(fd, True)
                except OSError:
                    pass
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        # a thread blocked reading a terminal keeps its descriptor: closing it under the
        # thread could hand the number to another file the thread would then read
        for fd in (out_fd, saved_in, saved_out) if not in_poll else \
                (in_fd, out_fd, saved_in, saved_out):
            os.close(fd)


def _thread_chunks(in_fd: int) -> Any:
    """An ``asyncio.Queue`` fed by a daemon thread with blocking reads of *in_fd*: each chunk,
    then ``b""`` at end of file or on an error. The thread never holds up cancellation or the
    interpreter's exit."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes] = asyncio.Queue()

    def put(chunk: bytes) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, chunk)
        except RuntimeError:  # the loop is closed: nobody is reading any more
            raise SystemExit from None

    def pump() -> None:
        try:
            while True:
                try:
                    chunk = os.read(in_fd, READ_CHUNK)
                except OSError:
                    chunk = b""
                put(chunk)
                if not chunk:
                    return
        except SystemExit:
            return

    threading.Thread(target=pump, name="toolsearch stdin", daemon=True).start()
    return queue


async def _read_lines(in_fd: int, sink: Any, replies: Any, polled: bool = True,
                      awaited: _Awaited | None = None, drain: float = DRAIN_SECONDS) -> None:
    """Each line of *in_fd* as a ``SessionMessage`` into *sink*, and a line that is not a
    JSON-RPC message answered with its error on *replies* (the stream the replies are
    written from); read on the event loop when *polled*, else by a daemon thread. At the end
    of *in_fd*, *sink* stays open until the requests read (noted in *awaited*) have their
    replies."""
    chunks = None if polled else _thread_chunks(in_fd)
    lines = _Lines()
    async with sink:
        while True:
            if chunks is not None:
                chunk = await chunks.get()
            else:
                try:
                    chunk = os.read(in_fd, READ_CHUNK)
                except BlockingIOError:
                    await anyio.wait_readable(in_fd)
                    continue
                except OSError:
                    chunk = b""
            if not chunk:
                if lines.last:  # the last line, with no newline after it (the SDK's stdio
                    await _send_line(lines.last, sink, awaited, replies)  # answers it)
                if awaited is not None:
                    await awaited.drained(drain)
                return
            whole = lines.feed(chunk)
            if lines.refused:
                lines.refused = False
                await _refuse_long(replies, awaited)
            if not whole:
                await anyio.lowlevel.checkpoint()  # a long line read: others get their turn
            for raw in whole:
                await _send_line(raw, sink, awaited, replies)


class _Lines:
    """The client's bytes cut into lines. The line being read is kept in chunks, joined
    once at its end (a 50 MB line joined again at every chunk took 30 s of copying, the
    event loop held), and never past :data:`MAX_LINE`: a longer one is dropped
    (:attr:`refused` is set) and the rest of it, up to its newline, skipped."""

    def __init__(self) -> None:
        self.pending: list[bytes] = []
        self.size = 0
        self.skipping = False
        self.refused = False

    @property
    def last(self) -> bytes:
        """The line read so far (no newline after it yet)."""
        return b"" if self.skipping else b"".join(self.pending)

    def feed(self, chunk: bytes) -> list[bytes]:
        """The lines *chunk* completes."""
        *lines, tail = chunk.split(b"\n")
        if self.skipping:
            if not lines:
                return []
            self.skipping, lines[0] = False, b""  # the over-long line ends here
        if lines and self.pending:
            lines[0] = b"".join((*self.pending, lines[0]))
            self.pending, self.size = [], 0
        if tail:
            self.pending.append(tail)
            self.size += len(tail)
            if self.size > MAX_LINE:
                self.pending, self.size = [], 0
                self.skipping = self.refused = True
        return lines


async def _send_line(raw: bytes, sink: Any, awaited: _Awaited | None, replies: Any) -> None:
    """One line read from the client as a ``SessionMessage`` into *sink*; a blank line is
    skipped, and one that is not a JSON-RPC message answered with its error on *replies*."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    line = raw.decode("utf-8", errors="replace")
    if not line.strip():
        return
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as exc:  # noqa: BLE001 - any refusal is answered the same way
        await _refuse(line, exc, replies, awaited)
        return
    if isinstance(message, types.JSONRPCNotification) and _has_id(line):
        # a request whose id is no string or integer ({"a": 1}, 1.5, null): the SDK read it
        # as a notification (the id dropped) and ran it with no reply, the client waiting
        await _refuse(line, ValueError("the id is not a string or an integer"), replies,
                      awaited)
        return
    if awaited is not None:
        awaited.read(message)
    await sink.send(SessionMessage(message))


def _has_id(line: str) -> bool:
    """Whether the JSON object *line* has an ``id`` member (of any value)."""
    import pydantic_core

    try:
        data = pydantic_core.from_json(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "id" in data


_JSON_KINDS = {str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}


def _refusal(line: str, exc: Exception) -> tuple[str | int | None, int, str, str]:
    """The JSON-RPC error owed for *line*, which *exc* refused: (id, code, message,
    reason). The reason names what was wrong, never what the line holds."""
    import pydantic_core

    from .events import display_text

    try:
        data = pydantic_core.from_json(line)
    except (ValueError, RecursionError):
        errors = getattr(exc, "errors", None)
        reason = "the line is not valid JSON"
        if callable(errors):
            try:
                found = errors(include_input=False, include_url=False)
                reason = str(found[0].get("msg", reason)) if found else reason
            except Exception:  # noqa: BLE001 - the plain reason will do
                pass
        return None, PARSE_ERROR, "Parse error", display_text(reason, REASON_SHOWN)
    request_id = data.get("id") if isinstance(data, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)) or \
            isinstance(request_id, int) and abs(request_id) >= 1 << 63:
        request_id = None
    elif isinstance(request_id, str) and display_text(request_id, REASON_SHOWN) != request_id:
        request_id = None  # a huge id, or one holding a secret, is not echoed (and an id
        # changed would answer no request): as if it could not be read
    kind = ("a JSON array (JSON-RPC batches are not part of MCP)" if isinstance(data, list)
            else "a JSON object that is not a JSON-RPC 2.0 request, notification or response"
            if isinstance(data, dict) else f"a JSON {_JSON_KINDS.get(type(data), 'value')}, "
            "not an object")
    return request_id, INVALID_REQUEST, "Invalid Request", f"the line is {kind}"


async def _refuse(line: str, exc: Exception, replies: Any, awaited: _Awaited | None) -> None:
    """Answer *line* (refused by *exc*) with its JSON-RPC error on *replies*."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    request_id, code, text, reason = _refusal(line, exc)
    error = types.JSONRPCError(jsonrpc="2.0", id=request_id,
                               error=types.ErrorData(code=code, message=text, data=reason))
    if awaited is not None:
        awaited.expect(request_id)
    try:
        await replies.send(SessionMessage(error))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        if awaited is not None:  # the transport is closing: no reply is coming
            awaited.written(error)


async def _refuse_long(replies: Any, awaited: _Awaited | None) -> None:
    """Answer a line longer than :data:`MAX_LINE` (its id is never read: id null)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    error = types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
        code=PARSE_ERROR, message="Parse error",
        data=f"the line is longer than {MAX_LINE >> 20} MiB: not read"))
    if awaited is not None:
        awaited.expect(None)
    try:
        await replies.send(SessionMessage(error))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        if awaited is not None:
            awaited.written(error)


async def _write_lines(out_fd: int, source: Any, done: anyio.Event,
                       awaited: _Awaited | None = None) -> None:
    """Each message from *source* as one JSON line on *out_fd*."""
    try:
        async with source:
            async for session_message in source:
                text = session_message.message.model_dump_json(by_alias=True,
                                                               exclude_unset=True)
                data = memoryview((text + "\n").encode("utf-8"))
                while data:
                    try:
                        data = data[os.write(out_fd, data):]
                    except BlockingIOError:
                        await anyio.wait_writable(out_fd)
                    except OSError:  # the client went away
                        if awaited is not None:
                            awaited.left.set()
                        return
                if awaited is not None:
                    awaited.written(session_message.message)
    finally:
        done.set()


@asynccontextmanager
async def _pipe_streams(in_fd: int, out_fd: int,
                        in_polled: bool = True, drain: float = DRAIN_SECONDS,
                        out_polled: bool = True, left: anyio.Event | None = None
                        ) -> AsyncIterator[tuple[Any, Any]]:
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)
    written = anyio.Event()
    awaited = _Awaited(out_fd if out_polled else None, left)
    refusals = write_stream.clone()  # the errors answering bad lines, among the replies
    async with anyio.create_task_group() as tg:
        tg.start_soon(_read_lines, in_fd, read_writer, refusals, in_polled, awaited, drain)
        tg.start_soon(_write_lines, out_fd, write_reader, written, awaited)
        try:
            yield read_stream, write_stream
        finally:
            # the replies already handed over are written before the transport closes
            write_stream.close()
            refusals.close()
            with anyio.move_on_after(5, shield=True):
                await written.wait()
            tg.cancel_scope.cancel()
