"""The gateway's upstream MCP servers: one long-lived connection per server.

Each server gets one task that owns its whole ``async with open_client(...)`` (STYLE §5: the
SDK's cancel scopes are entered and exited in that same task). While connected, the task
waits for a re-list request (the server's ``notifications/tools/list_changed``, a
``subscriptions/listen`` event on the 2026 wire, or a call that lost the connection) and
pings the server between requests; a server that dies or stops answering is closed, shown
as an error toolset, and started again with a growing delay. Calls run concurrently on the
shared connection from the gateway's request tasks, each under the call timeout.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import IO, Any

import anyio

from toolsearch.bridge import ExecutionResult
from toolsearch.sources.executor import result_content
from toolsearch.sources.live import (
    DEFAULT_TIMEOUT,
    ServerConfig,
    ServerListing,
    SkippedTool,
    StderrTail,
    call_failure,
    checked_specs,
    describe_failure,
    error_toolset,
    list_all_tools,
    open_client,
    skipped_warnings,
    stderr_tail,
)
from toolsearch.tooldefs import mcp_tool_name, sanitize_part, thaw
from toolsearch.toolsets import Toolset, ToolsetStatus

log = logging.getLogger("toolsearch.gateway")

DEFAULT_CALL_TIMEOUT = 60.0
PING_INTERVAL = 5.0
RELIST_SHARE = 20
"""An unprompted re-list (the 2026 wire's liveness check, every :data:`PING_INTERVAL`) waits
``RELIST_SHARE - 1`` times as long as the last re-list took, so re-listing takes at most about
1/20 of the time: 20,000 tools (1.5-2.7 s of the event loop each) are re-listed every 30-50 s,
not every 5 s; a server of a few hundred tools, a few ms each, is unchanged. A change the
server announces is re-listed at once, as before."""
RELIST_MAX = 60.0
"""The longest an unprompted re-list waits (seconds)."""
RECONNECT_FIRST = 0.5
RECONNECT_MAX = 10.0
SUMMARY_TEXT = 2000
STARTING = "still starting (no answer to the handshake yet): its tools are offered, and " \
    "the client told, once it is up"
"""The error row of an upstream that has neither connected nor failed yet."""

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]
CALL_PROGRESS: ContextVar[ProgressFn | None] = ContextVar("toolsearch_call_progress",
                                                          default=None)
"""Where the progress of the upstream call made in this context goes: the gateway sets it
while it answers a client's ``tools/call`` that asked for progress (a ``progressToken``), and
:meth:`UpstreamPool.execute` asks the upstream for progress and hands each step on."""


@dataclass(frozen=True)
class UpstreamResult:
    """A tool's reply exactly as the upstream sent it (content blocks, structured content,
    ``isError``): the gateway hands it to its client unchanged."""

    result: Any

    @property
    def is_error(self) -> bool:
        return bool(getattr(self.result, "is_error", False))

    def __str__(self) -> str:
        """The reply as the feed summarises a live call's (the structured content, else the
        text blocks, as JSON): the bridge's summary is ``result: `` and this. Long text is
        cut first (a summary shows a line of it)."""
        structured = getattr(self.result, "structured_content", None)
        if structured is not None:
            return json.dumps(structured, ensure_ascii=False, default=str)
        text = result_content(self.result)
        return json.dumps(text[:SUMMARY_TEXT] if isinstance(text, str) else text,
                          ensure_ascii=False, default=str)


class Upstream:
    """One upstream server: its config, current client (None while down) and listing."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.client: Any = None
        self.listing = ServerListing(error_toolset(config, STARTING))
        self.ready = anyio.Event()
        self.kick = anyio.Event()
        self.tools: dict[str, str] = {}
        self.listed: dict[str, Any] = {}
        """Each exposed name's tool as the server listed it (its title, annotations, output
        schema: what a client shown the tool directly reads)."""
        self.connects = 0
        self.stderr: StderrTail | None = None
        """The running stdio server's stderr (its last lines), for the reason a call failed."""
        self._listed: tuple[list[Any], str, tuple[SkippedTool, ...]] | None = None

    def relist(self) -> None:
        self.kick.set()

    def set_tools(self, tools: Sequence[Any], version: str,
                  skipped: Sequence[SkippedTool] = ()) -> None:
        """The server's tools through the entry checks every listing gets (a name with
        control characters or past 256 characters, a huge description, too deep a schema, a
        name that collides once sanitised: skipped with a warning); each exposed name routes
        to the tool the listing kept, under the name the server gave it. *skipped*: the tools
        the listing itself dropped as malformed, each warned about too."""
        if self._listed is not None and self._listed == (list(tools), version, tuple(skipped)):
            return  # the same list as last time: its checks (a second at 20,000 tools) hold
        self._listed = (list(tools), version, tuple(skipped))
        specs, warnings = checked_specs(self.config, tools)
        warnings = skipped_warnings(self.config, skipped) + warnings
        given: dict[str, str] = {}
        for tool in tools:
            if isinstance(tool.name, str):
                given.setdefault(tool.name.strip(), tool.name)
        self.tools = {mcp_tool_name(self.config.name, s.name): given.get(s.name, s.name)
                      for s in specs}
        by_name = {tool.name: tool for tool in tools if isinstance(tool.name, str)}
        self.listed = {exposed: by_name[own] for exposed, own in self.tools.items()
                       if own in by_name}
        self.listing = ServerListing(Toolset(
            name=self.config.name, kind="mcp", tools=specs,
            status=ToolsetStatus.CONNECTED, origin=self.config.describe(),
            server_version=version), warnings)

    def set_down(self, reason: str) -> None:
        self._listed = None
        self.client = None
        self.tools = {}
        self.listed = {}
        self.listing = ServerListing(error_toolset(self.config, reason))


def _rest(took: float) -> float:
    """How long an unprompted re-list waits after a list that took *took* seconds."""
    return min(RELIST_MAX, took * (RELIST_SHARE - 1))


class UpstreamPool:
    """Every upstream server of the gateway; an :class:`~toolsearch.bridge.Executor`."""

    def __init__(self, configs: Sequence[ServerConfig], *,
                 connect_timeout: float = DEFAULT_TIMEOUT,
                 call_timeout: float = DEFAULT_CALL_TIMEOUT,
                 ping_interval: float = PING_INTERVAL,
                 on_change: Callable[[], Awaitable[None]] | None = None,
                 on_first: Callable[[Upstream], None] | None = None,
                 on_back: Callable[[Upstream], None] | None = None) -> None:
        self.upstreams = [Upstream(c) for c in configs]
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        self.ping_interval = ping_interval
        self.on_change = on_change
        self.on_first = on_first
        """Called once per upstream, when it first connects and lists, or first fails."""
        self.on_back = on_back
        """Called when an upstream that was down (said so) is connected again."""
        self._route: dict[str, tuple[Upstream, str]] = {}

    # -- lifetime ---------------------------------------------------------------------

    async def run(self) -> None:
        """Serve every upstream until cancelled."""
        async with anyio.create_task_group() as tg:
            for upstream in self.upstreams:
                tg.start_soon(self._serve, upstream, name=f"upstream:{upstream.config.name}")

    async def wait_ready(self) -> None:
        """Until every upstream has connected and listed once, or failed once."""
        for upstream in self.upstreams:
            await upstream.ready.wait()

    def starting(self) -> list[str]:
        """The servers that have neither connected nor failed yet (no tools of theirs yet)."""
        return [u.config.name for u in self.upstreams if not u.ready.is_set()]

    async def lister(self, configs: Sequence[ServerConfig]) -> list[ServerListing]:
        """The ``load_sources_async`` lister: the current listing of each configured server,
        at once (a server still starting is an error row saying so: :data:`STARTING`)."""
        by_name = {u.config.name: u for u in self.upstreams}
        out = []
        for config in configs:
            upstream = by_name.get(config.name)
            out.append(upstream.listing if upstream else
                       ServerListing(error_toolset(config, "not managed by the gateway")))
        return out

    async def _changed(self) -> None:
        route: dict[str, tuple[Upstream, str]] = {}
        for u in self.upstreams:  # a name two servers share (once sanitised) is the first's,
            for exposed, own in u.tools.items():  # as in the workspace the clients see
                route.setdefault(exposed, (u, own))
        self._route = route
        if self.on_change is not None:
            await self.on_change()

    async def _serve(self, upstream: Upstream) -> None:
        delay = RECONNECT_FIRST
        while True:
            stderr = upstream.stderr = StderrTail()  # its last lines say why it failed
            try:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(stderr.pump)
                    await self._session(upstream, stderr.writer)
                    tg.cancel_scope.cancel()
                reason = "server closed the connection"
            except Exception as exc:  # noqa: BLE001 - a dead server is an error row
                reason = describe_failure(exc, upstream.config, timeout=self._limit(upstream),
                                          stderr=stderr_tail(stderr.text()))
            finally:
                upstream.stderr = None
                stderr.close()
            if upstream.client is not None:  # it was up: retry soon
                delay = RECONNECT_FIRST
            before = upstream.listing
            first = not upstream.ready.is_set()
            upstream.set_down(reason)
            upstream.ready.set()
            if first:
                self._first(upstream)
            if upstream.listing != before:  # said, and re-assembled, once per new reason: a
                # server that cannot start is retried every 10 s, for good; one that fails its
                # first start is already an error row the gateway announces, so not said twice
                log.log(logging.INFO if first else logging.WARNING,
                        "upstream %s down: %s", upstream.config.name, reason)
                await self._changed()
            else:
                log.debug("upstream %s still down: %s", upstream.config.name, reason)
            await anyio.sleep(delay)
            delay = min(delay * 2, RECONNECT_MAX)

    def _first(self, upstream: Upstream) -> None:
        self._report(self.on_first, upstream)

    @staticmethod
    def _report(report: Callable[[Upstream], None] | None, upstream: Upstream) -> None:
        if report is not None:
            try:
                report(upstream)
            except Exception:  # noqa: BLE001 - a report never stops an upstream
                log.exception("upstream report failed")

    def _limit(self, upstream: Upstream) -> float:
        return upstream.config.connect_timeout or self.connect_timeout

    async def _session(self, upstream: Upstream, stderr: IO[bytes] | None = None) -> None:
        """One connection to *upstream*, from start to loss; a stdio server's stderr goes
        to *stderr*."""
        import mcp_types as types

        async def on_message(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                upstream.relist()

        limit = self._limit(upstream)
        with anyio.fail_after(limit) as connecting:
            async with open_client(upstream.config, stderr,
                                   message_handler=on_message) as client:
                started = anyio.current_time()
                skipped: list[SkippedTool] = []
                tools = await list_all_tools(client, skipped)
                connecting.deadline = math.inf  # connected: from here on, pings judge it
                info = client.server_info
                upstream.kick = anyio.Event()
                upstream.set_tools(tools, (info.version if info else "") or "", skipped)
                upstream.client = client
                upstream.connects += 1
                if not upstream.ready.is_set():
                    upstream.ready.set()
                    self._first(upstream)
                else:  # it was down (said so): that it is up again is said too
                    self._report(self.on_back, upstream)
                took = anyio.current_time() - started
                await self._changed()
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._listen, upstream, client)
                    await self._watch(upstream, client, limit, took)
                    tg.cancel_scope.cancel()

    async def _watch(self, upstream: Upstream, client: Any, limit: float, took: float) -> None:
        """Re-list when the server announces a change (and, on the 2026 wire, unprompted, as
        its liveness check); else ping. *took*: how long the first list took."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
        rest = _rest(took)  # how long the last list asks an unprompted one to wait
        while True:
            with anyio.move_on_after(max(self.ping_interval, rest)):
                await upstream.kick.wait()
            if upstream.kick.is_set() or modern:  # the 2026 wire has no ping: re-list
                upstream.kick = anyio.Event()
                started = anyio.current_time()
                skipped: list[SkippedTool] = []
                with anyio.fail_after(limit):
                    tools = await list_all_tools(client, skipped)
                before = upstream.listing
                info = client.server_info
                upstream.set_tools(tools, (info.version if info else "") or "", skipped)
                rest = _rest(anyio.current_time() - started)
                if upstream.listing != before:
                    await self._changed()
            else:
                with anyio.fail_after(limit):  # the session's ping: the client's warns on
                    await client.session.send_ping()  # stderr that 2026 servers lack it

    async def _listen(self, upstream: Upstream, client: Any) -> None:
        """On the 2026 wire, change notifications arrive on a ``subscriptions/listen`` stream."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    upstream.relist()
        except Exception as exc:  # noqa: BLE001 - no listen stream: pings still notice death
            log.debug("upstream %s: no listen stream: %s", upstream.config.name, exc)

    # -- calls ------------------------------------------------------------------------

    def routes(self, tool_name: str) -> bool:
        return tool_name in self._route

    def down_reason(self, tool_name: str, reachable: Callable[[str], bool] = lambda _: True
                    ) -> str:
        """Why *tool_name* (``mcp__server__tool``) cannot be reached when its server is down
        (the client knew it from before; no listing holds it now); "" otherwise, and for a
        server the client may not reach (``reachable(server name)`` False: out of its scope or
        detached, whose failure is none of its business)."""
        if tool_name in self._route:
            return ""
        for upstream in self.upstreams:
            if upstream.client is None and reachable(upstream.config.name) and \
                    tool_name.startswith(f"mcp__{sanitize_part(upstream.config.name)}__"):
                if not upstream.ready.is_set():
                    return (f"{tool_name!r} cannot be reached yet: its server "
                            f"{upstream.config.name!r} is still starting (no answer to the "
                            "handshake yet). Its tools are offered, and the client told, "
                            "once it is up.")
                return (f"{tool_name!r} cannot be reached now: its server "
                        f"{upstream.config.name!r} is down ({upstream.listing.toolset.error}). "
                        "The gateway keeps starting it again; its tools come back (the client "
                        "is told) once it answers.")
        return ""

    def listed_tool(self, tool_name: str) -> Any:
        """The tool *tool_name* (``mcp__server__tool``) as its live server listed it, or
        None."""
        entry = self._route.get(tool_name)
        return entry[0].listed.get(tool_name) if entry is not None else None

    async def execute(self, tool_name: str, arguments: Mapping[str, Any]) -> ExecutionResult:
        """Run *tool_name* (``mcp__server__tool``) on its live upstream, under the timeout.

        A reply (even one with ``isError``) is an :class:`UpstreamResult`; a timeout, a lost
        connection or a protocol error is a failed :class:`ExecutionResult` with a redacted
        one-line reason."""
        from mcp.shared.exceptions import MCPError

        entry = self._route.get(tool_name)
        if entry is None:
            return ExecutionResult(False, None, f"no connected upstream server provides "
                                                f"{tool_name!r}")
        upstream, own = entry
        client = upstream.client
        if client is None:
            return ExecutionResult(False, None, f"server {upstream.config.name!r} is down: "
                                                f"{upstream.listing.toolset.error}")
        limit = upstream.config.call_timeout or self.call_timeout
        try:
            with anyio.fail_after(limit):
                result = await client.call_tool(own, thaw(dict(arguments)),
                                                progress_callback=CALL_PROGRESS.get())
        except TimeoutError:
            return ExecutionResult(False, None, f"{tool_name}: no answer from server "
                                                f"{upstream.config.name!r} within {limit:g} s")
        except Exception as exc:  # noqa: BLE001 - a failed call is a result, never a crash
            if not isinstance(exc, MCPError) or exc.code < -32700 or exc.code > -32000:
                upstream.relist()  # maybe a lost connection: re-list (and reconnect if dead)
            said = stderr_tail(upstream.stderr.text()) if upstream.stderr is not None else ""
            return ExecutionResult(False, None, describe_failure(call_failure(exc, client),
                                                                 upstream.config,
                                                                 timeout=limit, stderr=said))
        return ExecutionResult(True, UpstreamResult(result))
