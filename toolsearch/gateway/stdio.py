"""The gateway's stdio transport: the client's pipes read and written on the event loop.

The ``mcp`` SDK's ``stdio_server`` wraps stdin and stdout in worker threads: every line read
and every reply written (and flushed) is a hop to a thread and back, and the hops contend
for the GIL with the gateway's own work; measured on the gateway, that was about 0.3 ms of
median and 2 ms of p95 per call. When stdin and stdout are pipes or sockets (what an MCP
client gives its server), this transport reads and writes them without blocking, on the
event loop; otherwise (a terminal, a file) it hands over to the SDK's ``stdio_server``.

Like the SDK's, it keeps the real descriptors for itself while serving and points fd 0 at
the null device and fd 1 at stderr, so nothing else (a library's ``print``, a child process)
can write into the protocol stream; both are put back on exit.
"""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc

READ_CHUNK = 1 << 16


def _pollable(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` for ``Server.run`` over this process's stdio."""
    if not (_pollable(0) and _pollable(1)):
        from mcp.server.stdio import stdio_server

        async with stdio_server() as streams:
            yield streams
        return
    in_fd, out_fd = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    os.set_blocking(in_fd, False)
    os.set_blocking(out_fd, False)
    try:
        async with _pipe_streams(in_fd, out_fd) as streams:
            yield streams
    finally:
        for fd in (in_fd, out_fd):
            try:
                os.set_blocking(fd, True)
            except OSError:
                pass
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        for fd in (in_fd, out_fd, saved_in, saved_out):
            os.close(fd)


async def _read_lines(in_fd: int, sink: Any) -> None:
    """Each line of *in_fd* as a ``SessionMessage`` (or the parse error) into *sink*."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    pending = b""
    async with sink:
        while True:
            try:
                chunk = os.read(in_fd, READ_CHUNK)
            except BlockingIOError:
                await anyio.wait_readable(in_fd)
                continue
            except OSError:
                return
            if not chunk:
                return
            *lines, pending = (pending + chunk).split(b"\n")
            for raw in lines:
                line = raw.decode("utf-8", errors="replace")
                if not line.strip():
                    continue
                try:
                    message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except Exception as exc:  # noqa: BLE001 - the SDK reports it as a value
                    await sink.send(exc)
                    continue
                await sink.send(SessionMessage(message))


async def _write_lines(out_fd: int, source: Any, done: anyio.Event) -> None:
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
                        return
    finally:
        done.set()


@asynccontextmanager
async def _pipe_streams(in_fd: int, out_fd: int) -> AsyncIterator[tuple[Any, Any]]:
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)
    written = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(_read_lines, in_fd, read_writer)
        tg.start_soon(_write_lines, out_fd, write_reader, written)
        try:
            yield read_stream, write_stream
        finally:
            # the replies already handed over are written before the transport closes
            write_stream.close()
            with anyio.move_on_after(5, shield=True):
                await written.wait()
            tg.cancel_scope.cancel()
