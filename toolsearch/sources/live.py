"""Live MCP servers through the official ``mcp`` SDK: stdio and streamable HTTP.

Every server is listed in its own task, all in parallel, each under its own timeout. A server
that cannot start, crashes, hangs, writes garbage on stdout or answers with something the SDK
rejects becomes an ``ERROR`` toolset with a one-line, redacted reason; the others still load.
The SDK's stdio transport kills the server's whole process group when its context exits,
which happens on success, on error, on timeout and on cancellation (Ctrl-C) alike.
"""

from __future__ import annotations

import contextvars
import logging
import os
import re
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, cast

import anyio
from anyio.streams.text import TextReceiveStream

if TYPE_CHECKING:
    import mcp_types as types
    from mcp import Client

from toolsearch.textsafe import shown
from toolsearch.toolsets import Toolset, ToolsetStatus, ToolSpec

from .redact import (
    REDACTED,
    arg_secrets,
    is_sensitive_name,
    looks_secret,
    mask_mapping,
    mentions_known,
    redact_args,
    redact_text,
    redact_url,
    scrub_known,
    url_secrets,
)

#: The log lines the SDK wrote while one server was being listed or called (set per task).
_SERVER_LOG: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "toolsearch_server_log", default=None)
#: SDK log records kept per server (the rest are only counted).
MAX_LOG_LINES = 20
#: The stdio server processes the SDK started in this context (see :func:`_tracked_spawn`).
_SPAWNED: contextvars.ContextVar[list[_Spawned] | None] = contextvars.ContextVar(
    "toolsearch_spawned", default=None)


class _SdkLogRouter(logging.Handler):
    """The SDK logs transport faults (every garbage line, with a traceback holding the line,
    which may hold a secret) at ERROR. They never reach the terminal: the first line of each
    message (no traceback) goes to the server's own log, which its error row reports."""

    def emit(self, record: logging.LogRecord) -> None:
        sink = _SERVER_LOG.get()
        if sink is None:
            return
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken log record is dropped
            message = str(record.msg)
        sink.append(message.splitlines()[0][:200] if message else record.levelname)


def _not_about_a_reaped_server(record: logging.LogRecord) -> bool:
    """asyncio's child watcher reports a server process that died after its event loop closed
    (a SIGKILLed server); that is our own cleanup, not news for the operator."""
    return "that handles pid" not in str(record.msg)


logging.getLogger("asyncio").addFilter(_not_about_a_reaped_server)

for _name in ("mcp", "client"):  # the SDK's loggers ("client" is its session logger)
    _logger = logging.getLogger(_name)
    _logger.addHandler(_SdkLogRouter())
    _logger.propagate = False

DEFAULT_TIMEOUT = 15.0
#: A stdio server whose own process has exited while a process it started holds its stdout
#: (so no end of file says it is gone) is given up when that process has not answered
#: ``initialize`` within this long of the exit, or a ping within this long once open.
EXITED_GRACE = 5.0
#: After a server writes a non-JSON-RPC line, how long it still gets to answer.
GARBAGE_GRACE = 2.0
#: Shutdown of a stdio server: the SDK waits this long after closing stdin, then as long
#: again after SIGTERM before SIGKILL (its own defaults, 2 s each, would let a server that
#: ignores SIGTERM stretch a 3 s timeout to 7 s).
STDIN_CLOSE_GRACE = 0.2
SIGTERM_GRACE = 0.2
#: The longest line a stdio server may write (a 50 MB tool reply is a line): a server that
#: writes on with no line end is given up, not buffered until memory runs out.
MAX_LINE = 128 * 2**20
#: The last bytes of a stdio server's stderr kept while it is listed (they name a failure).
STDERR_KEPT = 65536
#: A tools/list walk that goes on longer than this is treated as a broken paginator.
MAX_PAGES = 1000
MAX_REASON = 240
TRANSPORTS = ("stdio", "http", "sse")


@dataclass(frozen=True)
class ServerConfig:
    """One MCP server entry, as a config file declares it. ``repr`` never shows secrets."""

    name: str
    transport: str = "stdio"
    command: str = ""
    args: tuple[str, ...] = field(default=(), repr=False)
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    url: str = field(default="", repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    connect_timeout: float | None = None
    call_timeout: float | None = None
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    source: str = ""
    problem: str = ""

    def secrets(self) -> tuple[str, ...]:
        """Every value that must never be shown: env and header values, URL credentials,
        token-like arguments."""
        found = [v for k, v in self.env.items() if is_sensitive_name(k) or looks_secret(v)]
        found.extend(s for v in self.env.values() if "://" in v for s in url_secrets(v))
        found.extend(self.headers.values())
        for value in self.headers.values():
            scheme, _, rest = value.partition(" ")
            if rest:
                found.append(rest)
        found.extend(url_secrets(self.url))
        found.extend(arg_secrets(self.args))
        return tuple(s for s in found if s)

    def redact(self, text: str) -> str:
        return redact_text(text, self.secrets())

    def describe(self) -> str:
        """A redacted one-line description: transport, command or URL, env/header names."""
        if self.transport == "stdio":
            words = " ".join([self.command, *redact_args(self.args)]).strip()
            text = f"stdio: {words}"
            if self.env:
                text += f" (env {mask_mapping(self.env)})"
        else:
            text = f"{self.transport}: {redact_url(self.url)}"
            if self.headers:
                text += f" (headers {mask_mapping(self.headers)})"
        if self.source:
            text += f" from {self.source}"
        return self.redact(text)

    def keeps(self, tool_name: str) -> bool:
        """The per-server ``tools.include`` / ``tools.exclude`` filter (include wins)."""
        if self.include is not None:
            return tool_name in self.include
        return tool_name not in self.exclude


@dataclass(frozen=True)
class ServerListing:
    """What listing one server produced: its toolset and any warnings about it."""

    toolset: Toolset
    warnings: tuple[str, ...] = ()
    seconds: float = 0.0


class _Garbage:
    """Collects non-JSON-RPC lines the transport reported, and signals the first one."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.seen = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.lines.append(_offending_line(message))
            self.seen.set()
        await anyio.lowlevel.checkpoint()


def _offending_line(exc: Exception) -> str:
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        for err in exc.errors():
            value = err.get("input")
            if isinstance(value, str):
                return value
    return str(exc)


def _one_line(text: str, limit: int = MAX_REASON) -> str:
    flat = shown(" ".join(str(text).split()), one_line=True)  # a server's escapes, escaped
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


_TELLING = re.compile(r"(?i)\b(?:\w*error|\w*exception|fatal|panic|cannot|can't|could not|"
                      r"couldn't|unable|failed|not found|denied|refused|no such|invalid|"
                      r"missing|unknown)\b")
"""A stderr line that says what went wrong."""
_NOISE = re.compile(r"^(?:at\s|Node\.js v\d|\W*$)")
"""A stderr line that never does: a JavaScript stack frame, node's version footer, or only
punctuation (a dumped object's closing brace)."""


class StderrTail:
    """A stdio server's stderr through a pipe of which only the last :data:`STDERR_KEPT`
    bytes are kept (its last lines name a failure). Read at most some 64 MB a second, the
    pipe holds back a server that floods stderr; written to a temporary file, such a server
    wrote ~400 MB a second to the disk until its timeout."""

    def __init__(self) -> None:
        self._read, write = os.pipe()
        os.set_blocking(self._read, False)
        self.writer: IO[bytes] = os.fdopen(write, "wb", buffering=0)  # the server's stderr
        self._kept = bytearray()

    def _take(self) -> bool:
        """Read what the pipe holds now; False once it holds nothing more."""
        try:
            data = os.read(self._read, 65536)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return False
        if not data:
            return False
        self._kept += data
        if len(self._kept) > STDERR_KEPT:
            del self._kept[:-STDERR_KEPT]
        return len(data) == 65536

    async def pump(self) -> None:
        while True:
            await anyio.wait_readable(self._read)
            if self._take():
                await anyio.sleep(0.001)  # a flood: read no faster than ~64 MB a second

    def text(self) -> str:
        """The kept tail (first read whatever the pipe still holds)."""
        for _ in range(64):
            if not self._take():
                break
        return self._kept.decode("utf-8", "replace")

    def close(self) -> None:
        self.writer.close()
        with suppress(OSError):
            os.close(self._read)


def stderr_tail(data: str) -> str:
    """The line of the server's last stderr output that best says why it failed: the last
    line naming an error (node's ``Error: Cannot find module 'x'`` above its stack and its
    ``Node.js v20`` footer; Python's last traceback line), else the last line with words."""
    data = data[-8192:]
    lines = [ln.strip() for ln in data.splitlines() if ln.strip()]
    worded = [ln for ln in lines if not _NOISE.match(ln)]
    telling = [ln for ln in worded if _TELLING.search(ln)]
    return (telling or worded or lines or [""])[-1]


def _leaves(exc: BaseException) -> list[BaseException]:
    """Every leaf of an exception group, each followed by its cause/context chain."""
    found: list[BaseException] = []
    stack = [exc]
    while stack and len(found) < 50:
        current = stack.pop(0)
        if isinstance(current, BaseExceptionGroup) and current.exceptions:
            stack[:0] = list(current.exceptions)
            continue
        chain: BaseException | None = current
        while chain is not None and chain not in found and len(found) < 50:
            found.append(chain)
            chain = chain.__cause__ or (None if chain.__suppress_context__ else
                                        chain.__context__)
    return found


def _leaf(exc: BaseException) -> BaseException:
    """The most telling failure: a server's own JSON-RPC error beats "connection closed".
    The SDK's own request timeout (its 10 s ``server/discover`` probe, after which it falls
    back to ``initialize``) is no server's word: when our deadline ended the wait, that is
    the failure ("no answer within N s", not "Request 'server/discover' timed out")."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

    leaves = _leaves(exc)
    timed_out = any(isinstance(leaf, TimeoutError) for leaf in leaves)
    for leaf in leaves:
        if isinstance(leaf, MCPError) and not _closed(leaf, CONNECTION_CLOSED) and not (
                timed_out and leaf.code == REQUEST_TIMEOUT):
            return leaf
    return leaves[0] if leaves else exc


def _closed(exc: Any, code: int) -> bool:
    """The SDK's own "Connection closed" (-32000, a code servers use for their errors too)."""
    return bool(exc.code == code and str(exc.message).strip().lower() == "connection closed")


def _start_failure(exc: OSError, config: ServerConfig) -> str:
    """Why a stdio server could not start: a missing working directory, command, ..."""
    if isinstance(exc, FileNotFoundError) and config.cwd and not os.path.isdir(config.cwd):
        return f"cannot start {config.command!r}: working directory {config.cwd!r} not found"
    if isinstance(exc, FileNotFoundError):
        return f"cannot start {config.command!r}: command not found"
    if isinstance(exc, PermissionError) and os.path.isdir(config.command):
        return f"cannot start {config.command!r}: it is a directory"
    if isinstance(exc, PermissionError):
        return f"cannot start {config.command!r}: permission denied"
    return f"cannot start {config.command!r}: {exc.strerror or exc}"


def describe_failure(exc: BaseException, config: ServerConfig, *, timeout: float,
                     stderr: str = "", garbage: Sequence[str] = (),
                     sdk_log: Sequence[str] = ()) -> str:
    """A one-line, redacted reason for a failed server (redacted before anything is cut)."""
    import httpx2
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED
    from pydantic import ValidationError

    exc = _leaf(exc)
    stderr = config.redact(stderr)
    if garbage:
        reason = f"wrote non-MCP output on stdout: {_one_line(config.redact(garbage[0]), 80)!r}"
    elif isinstance(exc, ServerExited | HttpStatus | LineTooLong):
        reason = str(exc)
    elif isinstance(exc, TimeoutError):
        reason = f"no answer within {timeout:g} s"
    elif isinstance(exc, OSError):
        reason = _start_failure(exc, config)
    elif isinstance(exc, MCPError):
        if _closed(exc, CONNECTION_CLOSED):
            reason = "server closed the connection" + (
                "" if stderr or config.transport != "stdio" else " (no stderr output)")
        else:
            reason = f"server error {exc.code}: {exc.message}"
    elif isinstance(exc, ValidationError):
        first: Mapping[str, Any] = exc.errors()[0] if exc.errors() else {}
        loc = ".".join(str(p) for p in first.get("loc", ()))
        reason = f"invalid reply from server ({exc.title}): {loc}: {first.get('msg', exc)}"
    elif isinstance(exc, httpx2.HTTPError):
        reason = f"HTTP error: {type(exc).__name__}: {exc}"
    else:
        reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if stderr and not garbage:
        reason += f"; stderr: {_one_line(stderr, 120)}"
    if sdk_log:
        reason += (f"; the MCP SDK logged {len(sdk_log)} message(s), first: "
                   f"{_one_line(config.redact(sdk_log[0]), 80)}")
    return _one_line(config.redact(reason))


class ServerExited(RuntimeError):
    """A stdio server's own process exited while its stdout stayed open."""


class HttpStatus(RuntimeError):
    """An HTTP server answered an MCP request with an error status (401, 500, ...), which the
    SDK reports only as "Server returned an error response"."""


_SDK_HTTP_STAND_IN = "server returned an error response"


@dataclass
class _Spawned:
    """A stdio server process, and the pipe its stdout writes to (``pipe:[inode]``, read from
    ``/proc`` at once; "" where there is no ``/proc``)."""

    process: Any
    stdout_pipe: str = ""
    #: A read end of that pipe of our own (opened through ``/proc``), read only once the SDK
    #: is done: at its end of file no process holds the pipe any more.
    probe: int = -1

    def has_writers(self) -> bool:
        """Whether some process may still hold the server's stdout (True when unsure)."""
        if self.probe < 0:
            return bool(self.stdout_pipe)
        try:
            for _ in range(16):
                if not os.read(self.probe, 65536):
                    return False
        except BlockingIOError:
            return True
        except OSError:
            return True
        return True

    def close(self) -> None:
        if self.probe >= 0:
            with suppress(OSError):
                os.close(self.probe)
            self.probe = -1


def _fd_link(pid: int | str, fd: int | str) -> str:
    try:
        return os.readlink(f"/proc/{pid}/fd/{fd}")
    except OSError:
        return ""


def _tracked_spawn() -> None:
    """The SDK's stdio client starts a server through a module function it looks up at each
    start; wrapped, every process it starts is recorded in the context's :data:`_SPAWNED`."""
    import mcp.client.stdio as sdk_stdio

    spawn = getattr(sdk_stdio, "_create_platform_compatible_process", None)
    if spawn is None or getattr(spawn, "_toolsearch_tracked", False):
        return

    async def tracked(*args: Any, **kwargs: Any) -> Any:
        process = await spawn(*args, **kwargs)
        sink = _SPAWNED.get()
        if sink is not None:
            pipe = _fd_link(process.pid, 1)
            entry = _Spawned(process, pipe if pipe.startswith("pipe:") else "")
            if entry.stdout_pipe:
                with suppress(OSError):
                    entry.probe = os.open(f"/proc/{process.pid}/fd/1",
                                          os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            sink.append(entry)
        return process

    tracked._toolsearch_tracked = True  # type: ignore[attr-defined]
    setattr(sdk_stdio, "_create_platform_compatible_process", tracked)  # noqa: B010


def _stdout_writers(pipe: str) -> list[int]:
    """Other processes holding the write end of the pipe *pipe* (``pipe:[inode]``)."""
    found: list[int] = []
    me = os.getpid()
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != me]
    except OSError:
        return found
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            if _fd_link(pid, fd) != pipe:
                continue
            try:
                with open(f"/proc/{pid}/fdinfo/{fd}", encoding="ascii") as info:
                    flags = next((int(ln.split()[1], 8) for ln in info
                                  if ln.startswith("flags:")), 0)
            except (OSError, ValueError, IndexError):
                continue
            if flags & os.O_ACCMODE == os.O_WRONLY:
                found.append(int(pid))
                break
    return found


def _reap_leftovers(spawned: Sequence[_Spawned]) -> None:
    """Once the SDK has stopped a stdio server: kill what the server left behind. The SDK
    kills the server's process group only when the server itself outlived the shutdown; a
    server that exited first leaves its children (a wrapper script's real server, a helper)
    running, and a child that started its own session escapes the group. Every process
    left in the group, and every process still holding the server's stdout, is killed."""
    for entry in spawned:
        with suppress(ProcessLookupError, PermissionError, OSError):
            os.killpg(entry.process.pid, signal.SIGKILL)  # the group's id is the server's pid
        if entry.stdout_pipe and entry.has_writers():  # the /proc walk only when needed
            for pid in _stdout_writers(entry.stdout_pipe):
                with suppress(ProcessLookupError, PermissionError, OSError):
                    os.kill(pid, signal.SIGKILL)
        entry.close()


async def _answers_ping(client: Any) -> bool:
    """Whether the server answers a ping within :data:`EXITED_GRACE` (an error it sends, as
    a server of the 2026 wire without ping does, is an answer too)."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

    with anyio.move_on_after(EXITED_GRACE):
        try:
            await client.session.send_ping()
        except MCPError as exc:
            return not _closed(exc, CONNECTION_CLOSED) and exc.code != REQUEST_TIMEOUT
        except Exception:  # noqa: BLE001 - no answer
            return False
        return True
    return False


async def _watch_exit(spawned: Sequence[_Spawned], closing: anyio.Event,
                      entered: list[Any]) -> None:
    """Give up a server whose own process exited while its session goes on, its stdout held
    open by a process it started, so no end of file ever says it is gone. A launcher may
    exit and leave its child serving: once the session is open, the child is pinged and
    kept if it answers; before that, it gets :data:`EXITED_GRACE` to answer ``initialize``.
    Once the session is closing (the server is told to exit), its exit is no news."""
    while not spawned or spawned[0].process.returncode is None:
        await anyio.sleep(0.1)
    entry = spawned[0]
    deadline = anyio.current_time() + EXITED_GRACE
    while not entered and anyio.current_time() < deadline:
        await anyio.sleep(0.1)
    if entered and await _answers_ping(entered[0]):
        return  # the server's child answers for it
    if closing.is_set():
        return
    if entry.stdout_pipe and not _stdout_writers(entry.stdout_pipe):
        # nothing holds its stdout: it simply exited (its end of file is on its way)
        raise ServerExited(f"server exited with code {entry.process.returncode}")
    raise ServerExited(f"server exited with code {entry.process.returncode} while a process it "
                       "started kept its stdout open, silent")


_HTTP_STATUSES: dict[int, list[str]] = {}
"""The latest error statuses of each open HTTP client's server, by the client's ``id`` (see
:func:`call_failure`); dropped as the client closes."""


def call_failure(exc: BaseException, client: Any) -> BaseException:
    """*exc*, a request on *client* (from :func:`open_client`) that failed, as
    :func:`describe_failure` best tells it: the HTTP status an HTTP server answered a call with
    (``HTTP 401 Unauthorized``: its token expired), not the SDK's stand-in ``server error
    -32603: Server returned an error response``."""
    status = _http_status(exc, _HTTP_STATUSES.get(id(client), ()))
    return HttpStatus(status) if status else exc


def _http_status(exc: BaseException, statuses: Sequence[str]) -> str:
    """The HTTP status behind the SDK's stand-in error for a non-2xx answer, if that is what
    *exc* is (a JSON-RPC error the server sent in the body is its own and is kept)."""
    from mcp.shared.exceptions import MCPError

    leaf = _leaf(exc)
    if statuses and isinstance(leaf, MCPError) and \
            str(leaf.message).strip().lower() == _SDK_HTTP_STAND_IN:
        return statuses[-1]
    return ""


@asynccontextmanager
async def open_client(config: ServerConfig, stderr: IO[bytes] | None = None,
                      message_handler: Callable[[Any], Awaitable[None]] | None = None,
                      ) -> AsyncIterator[Client]:
    """An initialised SDK :class:`Client` for *config*; the server stops when the block exits."""
    import httpx2
    import mcp_types as types
    from mcp import Client, StdioServerParameters
    from mcp.client.sse import sse_client
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client

    if config.problem:
        raise ValueError(config.problem)
    _bound_sdk_shutdown()
    _linear_sdk_stdout()
    _tracked_spawn()
    spawned: list[_Spawned] = []
    async with AsyncExitStack() as stack:
        transport: Any
        if config.transport == "stdio":
            # invalid UTF-8 on stdout becomes U+FFFD, as node clients decode it: strict, the
            # SDK's reader task died on it and the session waited out the whole timeout
            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=dict(config.env) or None,
                cwd=config.cwd, encoding_error_handler="replace",
            )
            errlog: Any = stderr if stderr is not None else stack.enter_context(
                open(os.devnull, "wb"))
            transport = stdio_client(params, errlog=errlog)
            stack.callback(_reap_leftovers, spawned)  # runs after the transport's own stop
        elif config.transport == "sse":
            transport = sse_client(config.url, headers=dict(config.headers) or None)
        elif config.transport == "http":
            statuses: list[str] = []

            async def note_status(response: httpx2.Response) -> None:
                if response.status_code >= 400:
                    statuses.append(f"HTTP {response.status_code} {response.reason_phrase}".strip())
                    del statuses[:-4]  # the latest say it; a long session keeps no more

            http = await stack.enter_async_context(httpx2.AsyncClient(
                headers=dict(config.headers), timeout=httpx2.Timeout(30.0, read=300.0),
                event_hooks={"response": [note_status]}, transport=_mending_transport()))
            transport = streamable_http_client(config.url, http_client=http)
        else:
            raise ValueError(f"unknown transport {config.transport!r}")
        client = Client(transport, cache=None, message_handler=cast(Any, message_handler),
                        client_info=types.Implementation(name="toolsearch", version="0.1.0"))
        if config.transport == "http":
            _HTTP_STATUSES[id(client)] = statuses
            stack.callback(_HTTP_STATUSES.pop, id(client), None)
            try:
                yield await stack.enter_async_context(client)
            except Exception as exc:
                status = _http_status(exc, statuses)
                if status:
                    raise HttpStatus(status) from None
                raise
            return
        if config.transport != "stdio":
            yield await stack.enter_async_context(client)
            return
        closing = anyio.Event()
        opened: list[Any] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(_watch_exit, spawned, closing, opened)
            token = _SPAWNED.set(spawned)  # the SDK starts the server as the client opens
            reset = False
            try:
                async with client as entered:
                    _SPAWNED.reset(token)
                    reset = True
                    opened.append(entered)
                    try:
                        yield entered
                    finally:
                        closing.set()
            finally:
                if not reset:
                    _SPAWNED.reset(token)
            tg.cancel_scope.cancel()


class LineTooLong(ValueError):
    """A stdio server wrote more than :data:`MAX_LINE` characters with no line end."""


_SURROGATE_HINT = re.compile(r"\\u[dD][89a-fA-F]")
_ESCAPED_SURROGATE = re.compile(r"(\\+)u([dD][89a-fA-F][0-9a-fA-F]{2})")


def _mend_bytes(data: bytes) -> bytes:
    if b"\\u" not in data and b"\\U" not in data:
        return data
    return mend_surrogates(data.decode("utf-8", "surrogateescape")).encode(
        "utf-8", "surrogateescape")


async def _mended_lines(body: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """*body* cut at line ends, each part's lone surrogate escapes mended (an escape never
    spans a line end, and a mended escape keeps its length: Content-Length still holds)."""
    held: list[bytes] = []
    async for chunk in body:
        cut = chunk.rfind(b"\n") + 1
        if not cut:
            held.append(chunk)
            continue
        held.append(chunk[:cut])
        yield _mend_bytes(b"".join(held))
        held = [chunk[cut:]] if cut < len(chunk) else []
    if held:
        yield _mend_bytes(b"".join(held))


def _mending_transport() -> Any:
    """An HTTP transport whose JSON and event-stream replies have their lone surrogate
    escapes mended before the SDK parses them, as :func:`mend_surrogates` does over stdio."""
    import httpx2

    class MendedStream(httpx2.AsyncByteStream):
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for part in _mended_lines(self._inner.__aiter__()):
                yield part

        async def aclose(self) -> None:
            await self._inner.aclose()

    class MendingTransport(httpx2.AsyncHTTPTransport):
        async def handle_async_request(self, request: Any) -> Any:
            response = await super().handle_async_request(request)
            kind = response.headers.get("content-type", "")
            if "json" in kind or "event-stream" in kind:
                response.stream = MendedStream(response.stream)
            return response

    return MendingTransport()


def mend_surrogates(text: str) -> str:
    """*text* (whole lines of JSON) with each escaped UTF-16 surrogate that is not half of a
    pair (``\\ud83d`` alone) made ``\\ufffd``. A JavaScript server that cuts a string in the
    middle of an emoji sends one; JSON.parse takes it, the SDK's parser refuses the whole
    message, and the request it answers waited out its whole timeout. Linear; a text with no
    such escape is returned as is."""
    if not _SURROGATE_HINT.search(text):
        return text
    escapes = [m for m in _ESCAPED_SURROGATE.finditer(text) if len(m.group(1)) % 2]
    parts: list[str] = []
    last = i = 0
    while i < len(escapes):
        m = escapes[i]
        if int(m.group(2), 16) < 0xDC00 and i + 1 < len(escapes):
            n = escapes[i + 1]
            if n.start() == m.end() and len(n.group(1)) == 1 and int(n.group(2), 16) >= 0xDC00:
                i += 2  # a high and a low surrogate: one character
                continue
        start = m.end() - 6  # the escape's own backslash
        parts += [text[last:start], "\\ufffd"]
        last = m.end()
        i += 1
    parts.append(text[last:])
    return "".join(parts)


class _WholeLines(TextReceiveStream):
    """A server's stdout as text handed over in whole lines (the part of a line read after
    the last line end is kept for the next call). The SDK's stdio reader joins each chunk it
    reads to the part of a line it holds, which is quadratic in the line: a 20 MB reply took
    18 s, and the gateway, its pings queued behind it, gave the server up as hung. Handed
    whole lines, it joins each line once; and each line's lone surrogates are mended
    (:func:`mend_surrogates`), which needs the whole line."""

    _rest: str = ""

    async def receive(self) -> str:
        parts: list[str] = [self._rest] if self._rest else []
        size = len(self._rest)
        self._rest = ""
        while True:
            try:
                text = await super().receive()
            except anyio.EndOfStream:
                if parts:
                    return mend_surrogates("".join(parts))
                raise
            end = text.rfind("\n")
            if end >= 0:
                parts.append(text[: end + 1])
                self._rest = text[end + 1:]
                return mend_surrogates("".join(parts))
            parts.append(text)
            size += len(text)
            if size > MAX_LINE:  # a line with no end: kept whole, it grew by GBs a minute
                # killed now: the SDK's reader drains stdout to its end before it gives up
                _reap_leftovers(_SPAWNED.get() or ())
                raise LineTooLong(f"wrote a line of over {MAX_LINE // 2**20} MB on stdout")


def _linear_sdk_stdout() -> None:
    """The SDK's stdio client reads a server's stdout through :class:`_WholeLines` (the name
    its reader looks up when a server starts)."""
    import mcp.client.stdio as sdk_stdio

    if getattr(sdk_stdio, "TextReceiveStream", None) is TextReceiveStream:
        setattr(sdk_stdio, "TextReceiveStream", _WholeLines)  # noqa: B010 - not exported


def _bound_sdk_shutdown() -> None:
    """Shorten the SDK's stdio shutdown waits (module settings it reads at each shutdown)."""
    import mcp.client.stdio as sdk_stdio

    for name, seconds in (("PROCESS_TERMINATION_TIMEOUT", STDIN_CLOSE_GRACE),
                          ("FORCE_KILL_TIMEOUT", SIGTERM_GRACE)):
        current = getattr(sdk_stdio, name, None)
        if isinstance(current, int | float) and current > seconds:
            setattr(sdk_stdio, name, seconds)


def capped_timeout(own: float | None, cap: float | None) -> float:
    """A server's own timeout, never above the command's (``--timeout`` caps every
    per-server value; a non-finite or non-positive value counts as unset)."""
    values = [v for v in (own, cap) if v is not None and 0 < v < float("inf")]
    return min(values) if values else DEFAULT_TIMEOUT


@dataclass(frozen=True)
class SkippedTool:
    """A tool entry of a ``tools/list`` reply that failed the SDK's checks and was skipped:
    its index over all pages, its name (when a string) and why; or, *mended*, one read
    leniently and kept (an ``inputSchema`` with no ``type``), and how."""

    index: int
    name: str | None
    reason: str
    mended: bool = False


OBJECT_SCHEMA_KEYWORDS = frozenset({
    "properties", "required", "additionalProperties", "patternProperties", "propertyNames",
    "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
    "unevaluatedProperties", "$schema", "$id", "$comment", "$defs", "definitions", "title",
    "description", "default", "examples", "deprecated", "readOnly", "writeOnly"})
"""The keywords of an object schema (and its annotations): an ``inputSchema`` with no
``type`` and nothing but these (``{}`` among them) is read as ``{"type": "object", ...}``."""
TYPELESS_SCHEMA = 'inputSchema has no "type": read as an object schema ({"type": "object"} ' \
    "added)"


def _lenient_schema(entry: Any) -> tuple[Any, bool]:
    """*entry* with a missing ``inputSchema`` defaulted to an empty object schema (SPEC §8)
    and one with no ``type`` but otherwise an object schema given ``"type": "object"``; and
    whether it was the latter (said in a warning)."""
    if not isinstance(entry, dict):
        return entry, False
    schema = entry.get("inputSchema")
    if schema is None:
        return {**entry, "inputSchema": {"type": "object", "properties": {}}}, False
    if isinstance(schema, dict) and "type" not in schema and \
            all(isinstance(k, str) and k in OBJECT_SCHEMA_KEYWORDS for k in schema):
        return {**entry, "inputSchema": {"type": "object", **schema}}, True
    return entry, False


async def _raw_tools_page(client: Client, cursor: str | None) -> dict[str, Any]:
    """One ``tools/list`` page as the server sent it. The SDK's ``send_request`` checks the
    whole reply against the negotiated revision's schema before any result model sees it, so
    one malformed tool failed the whole server; this sends the request the same way (its
    per-revision stamp, its read timeout) and returns the raw result. SDK-private:
    ``ClientSession._stamp``, ``._dispatcher`` and ``._session_read_timeout_seconds``."""
    import mcp_types as types

    session: Any = client.session
    request = types.ListToolsRequest(params=types.PaginatedRequestParams(cursor=cursor))
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    opts: dict[str, Any] = {}
    session._stamp(data, opts)
    timeout = getattr(session, "_session_read_timeout_seconds", None)
    if timeout is not None:
        opts["timeout"] = timeout
    raw = await session._dispatcher.send_raw_request(data["method"], data.get("params"), opts)
    if not isinstance(raw, dict):
        raise TypeError(f"tools/list result is not an object (got {type(raw).__name__})")
    ttl = raw.get("ttlMs")  # as the SDK does: a negative cache lifetime is read as 0
    if isinstance(ttl, int | float) and not isinstance(ttl, bool) and ttl < 0:
        raw["ttlMs"] = 0
    return raw


def _first_error(exc: Exception) -> str:
    from pydantic import ValidationError

    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        where = tuple(first.get("loc", ()))
        if where[:2] == ("tools", 0):  # the one-tool page each tool is checked in
            where = where[2:]
        loc = ".".join(str(p) for p in where)
        return f"{loc}: {first.get('msg', '')}" if loc else str(first.get("msg", ""))
    return f"{type(exc).__name__}: {exc}"


def _lenient_page(raw: dict[str, Any], version: str, start: int,
                  skipped: list[SkippedTool] | None) -> types.ListToolsResult:
    """A ``tools/list`` page with each tool checked alone: a tool with no ``inputSchema``
    gets an empty object schema (SPEC §8), one whose ``inputSchema`` has no ``type`` but is
    otherwise an object schema (``{}``) gets ``"type": "object"`` (noted in *skipped* as
    mended), any other that fails the negotiated revision's schema or the SDK's ``Tool`` is
    skipped (and noted in *skipped*, its index counted from *start*). A reply that fails
    without its tools (no ``tools`` list, a bad ``nextCursor``) fails as a whole, with the
    SDK's own error."""
    import mcp_types as types
    from mcp_types import methods
    from pydantic import ValidationError

    def surface(page: dict[str, Any]) -> None:
        with suppress(KeyError):  # no schema for the revision: the SDK checks none either
            methods.validate_server_result("tools/list", version, page)

    entries = raw.get("tools")
    if not isinstance(entries, list):
        surface(raw)
        return types.ListToolsResult.model_validate(raw, by_name=False)
    read = [_lenient_schema(e) for e in entries]
    entries = [entry for entry, _ in read]

    def mended(offset: int) -> None:
        if read[offset][1] and skipped is not None:
            name = entries[offset].get("name")
            skipped.append(SkippedTool(start + offset, name if isinstance(name, str) else None,
                                       TYPELESS_SCHEMA, mended=True))

    rest = {k: v for k, v in raw.items() if k != "tools"}
    cursor = raw.get("nextCursor")
    try:  # the whole page at once, as the SDK reads it (a well-formed page: the usual case)
        surface({**rest, "tools": entries})
        tools = [types.Tool.model_validate(e, by_name=False) for e in entries]
        for offset in range(len(entries)):
            mended(offset)
        return types.ListToolsResult(tools=tools, next_cursor=cursor)
    except ValidationError:
        surface({**rest, "tools": []})  # fails the page when it is not the tools that fail
    kept: list[types.Tool] = []
    for offset, entry in enumerate(entries):
        try:
            surface({**rest, "tools": [entry]})
            kept.append(types.Tool.model_validate(entry, by_name=False))
            mended(offset)
        except ValidationError as exc:  # one bad tool is skipped, not the whole server
            if skipped is not None:
                name = entry.get("name") if isinstance(entry, dict) else None
                skipped.append(SkippedTool(start + offset, name if isinstance(name, str)
                                           else None, _first_error(exc)))
    return types.ListToolsResult(tools=kept, next_cursor=cursor)


def lenient_listing_supported(client: Any) -> bool:
    """Whether the installed SDK has the private parts the per-tool listing uses
    (:func:`_raw_tools_page`, ``_absorb_tool_listing``). Without them (another ``mcp``
    release) the listing is the SDK's own, strict one: one malformed tool fails the server
    again, but every well-formed server still lists."""
    session = getattr(client, "session", None)
    dispatcher = getattr(session, "_dispatcher", None)
    return all(callable(getattr(dispatcher if on == "dispatcher" else session, name, None))
               for on, name in PRIVATE_LISTING_PARTS)


PRIVATE_LISTING_PARTS: tuple[tuple[str, str], ...] = (
    ("session", "_stamp"), ("dispatcher", "send_raw_request"),
    ("session", "_absorb_tool_listing"))
"""The SDK-private callables the per-tool listing needs, on the client's session or its
dispatcher."""


async def list_all_tools(client: Client, skipped: list[SkippedTool] | None = None, *,
                         until: str | None = None) -> list[types.Tool]:
    """``tools/list`` over every page, following ``nextCursor``, each tool checked alone: a
    malformed tool is skipped (and noted in *skipped*) while the others load. The SDK
    learns the kept tools as its own listing would teach it (a call's result is checked
    against its tool's ``outputSchema``; for a tool it never saw listed, ``call_tool``
    re-lists, strictly, and one malformed tool failed the call). *until*: stop after the
    page that lists the tool of that name (all a call needs the SDK to know)."""
    tools: list[types.Tool] = []
    cursor: str | None = None
    seen: set[str] = set()
    version = client.protocol_version or "2025-11-25"  # the SDK's own fallback
    start = 0
    lenient = lenient_listing_supported(client)
    for _ in range(MAX_PAGES):
        if not lenient:  # an SDK without the private parts: its own strict listing
            page = await client.list_tools(cursor=cursor)
        else:
            raw = await _raw_tools_page(client, cursor)
            page = _lenient_page(raw, version, start, skipped)
            start += len(raw["tools"]) if isinstance(raw.get("tools"), list) else 0
            # SDK-private: the step ClientSession.list_tools ends with (output schemas to
            # check call results against, the 2026 wire's drop of invalid x-mcp-header
            # annotations)
            page = client.session._absorb_tool_listing(
                page, complete=cursor is None and page.next_cursor is None)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor or (until is not None and any(t.name == until for t in page.tools)):
            return tools
        if cursor in seen:
            raise RuntimeError(f"tools/list repeated cursor {cursor[:40]!r}")
        seen.add(cursor)
    raise RuntimeError(f"tools/list did not end after {MAX_PAGES} pages")


def skipped_warnings(config: ServerConfig, skipped: Sequence[SkippedTool]) -> tuple[str, ...]:
    """One warning per skipped (or mended) tool, naming the server and the tool (else its
    index); none for a tool the server's ``tools.include`` / ``tools.exclude`` leaves out
    anyway."""
    found = []
    for item in skipped:
        if item.name is not None and not config.keeps(item.name):
            continue
        label = (f"{config.name}/{_one_line(item.name, 80)}" if item.name is not None
                 else config.name)
        done = "" if item.mended else "skipped: "
        found.append(config.redact(f"server {config.name}: tools/list.tools[{item.index}] "
                                   f"({label}): {done}{_one_line(item.reason, 160)}"))
    return tuple(found)


def checked_specs(config: ServerConfig, tools: Sequence[types.Tool]
                  ) -> tuple[tuple[ToolSpec, ...], tuple[str, ...]]:
    """The server's tools through the same entry checks as a catalog file's (names, sizes,
    schema depth, Unicode, duplicates and exposed-name collisions), each skip warned."""
    from .catalog_file import _Reader

    # a server can echo its own secret into a listing (a description naming the key in use,
    # a schema default): every configured secret is masked, as in a call's reply (names are
    # kept: a tool is called by its name)
    raw = [{"name": tool.name, "description": tool.description,
            "inputSchema": tool.input_schema if isinstance(tool.input_schema, Mapping) else None}
           for tool in tools if not isinstance(tool.name, str) or config.keeps(tool.name)]
    secrets = config.secrets()
    if mentions_known([(t["description"], t["inputSchema"]) for t in raw], secrets):
        raw = [{**t, "description": scrub_known(t["description"], secrets),
                "inputSchema": scrub_known(t["inputSchema"], secrets)} for t in raw]
    reader = _Reader(f"server {config.name}", lossy=False)
    specs = reader.tools(raw, "tools/list", Toolset(name=config.name, kind="mcp"), {})
    return specs, tuple(config.redact(w) for w in reader.warnings)


def error_toolset(config: ServerConfig, reason: str) -> Toolset:
    return Toolset(name=config.name, kind="mcp", status=ToolsetStatus.ERROR,
                   error=_one_line(config.redact(reason)), origin=config.describe())


async def list_server(config: ServerConfig, *, timeout: float = DEFAULT_TIMEOUT) -> ServerListing:
    """Connect to one server, list all its tools and disconnect. Never raises for server
    faults (only for cancellation): a failure becomes an ``ERROR`` toolset."""
    if config.problem:
        return ServerListing(error_toolset(config, config.problem))
    limit = capped_timeout(config.connect_timeout, timeout)
    started = anyio.current_time()
    garbage = _Garbage()
    sdk_log: list[str] = []
    _SERVER_LOG.set(sdk_log)
    stderr = StderrTail()
    skipped: list[SkippedTool] = []
    try:
        try:
            with anyio.fail_after(limit):
                async with anyio.create_task_group() as tg:

                    listed = False

                    async def watch_garbage() -> None:
                        await garbage.seen.wait()
                        await anyio.sleep(GARBAGE_GRACE)
                        if not listed:
                            raise RuntimeError("garbage on stdout")

                    tg.start_soon(watch_garbage)
                    tg.start_soon(stderr.pump)
                    async with open_client(config, stderr.writer, garbage) as client:
                        info = client.server_info
                        tools = await list_all_tools(client, skipped)
                        listed = True
                    tg.cancel_scope.cancel()
        except Exception as exc:  # noqa: BLE001 - every server fault becomes an error row
            reason = describe_failure(exc, config, timeout=limit,
                                      stderr=stderr_tail(stderr.text()),
                                      garbage=garbage.lines, sdk_log=sdk_log)
            return ServerListing(error_toolset(config, reason),
                                 seconds=anyio.current_time() - started)
    finally:
        stderr.close()
    specs, warnings = checked_specs(config, tools)
    warnings = skipped_warnings(config, skipped) + warnings
    if garbage.lines:
        first = _one_line(config.redact(garbage.lines[0]), 80)
        warnings += (config.redact(f"{config.name}: ignored {len(garbage.lines)} non-MCP "
                                   f"line(s) on stdout, first: {first!r}"),)
    toolset = Toolset(name=config.name, kind="mcp", tools=specs, status=ToolsetStatus.CONNECTED,
                      origin=config.describe(), server_version=(info.version if info else "") or "")
    return ServerListing(toolset, warnings, anyio.current_time() - started)


#: Called as each server of :func:`list_servers` is done: (listing, servers done, servers).
Listed = Callable[[ServerListing, int, int], None]

#: Servers :func:`list_servers` starts at once; the others wait for one of them to finish
#: (a server that hangs holds its place for its whole timeout).
MAX_PARALLEL = 32


async def list_servers(configs: Sequence[ServerConfig], *, timeout: float = DEFAULT_TIMEOUT,
                       max_parallel: int = MAX_PARALLEL, listed: Listed | None = None,
                       ) -> tuple[ServerListing, ...]:
    """List every server in parallel (at most *max_parallel* at once); results keep order.
    *listed*, if given, is called as each server is done: (its listing, servers done, all)."""
    results: list[ServerListing | None] = [None] * len(configs)
    limiter = anyio.CapacityLimiter(max(1, max_parallel))
    done = 0

    async def one(index: int, config: ServerConfig) -> None:
        nonlocal done
        async with limiter:
            results[index] = listing = await list_server(config, timeout=timeout)
        done += 1
        if listed is not None:
            listed(listing, done, len(configs))

    async with anyio.create_task_group() as tg:
        for index, config in enumerate(configs):
            tg.start_soon(one, index, config)
    return tuple(r for r in results if r is not None)


__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_PARALLEL",
    "REDACTED",
    "ServerConfig",
    "ServerListing",
    "SkippedTool",
    "describe_failure",
    "error_toolset",
    "list_all_tools",
    "list_server",
    "list_servers",
    "open_client",
    "skipped_warnings",
]
