"""``toolsearch serve``: an MCP server in front of the operator's MCP servers (SPEC §10).

The client sees what Hermes' model would see: the three bridge tools (the listing in
``tool_search``'s description) plus the tools that stay visible. ``tool_search`` and
``tool_describe`` answer from the engine (the session's :class:`~toolsearch.bridge.Bridge`);
``tool_call`` runs the real upstream tool after the bridge's guards and returns the
upstream's reply unchanged (content blocks, structured content, ``isError``). An upstream's
``tools/list_changed``, an upstream that dies or comes back, and a tuning change
(:meth:`Gateway.retune`) re-assemble and send the clients ``tools/list_changed``.
"""

from __future__ import annotations

import hmac
import json
import logging
import socket
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from toolsearch import __version__
from toolsearch.classify import BRIDGE_TOOL_NAMES, def_name
from toolsearch.session import SessionState
from toolsearch.sources import load_sources_async, server_configs
from toolsearch.sources.errors import SourceError
from toolsearch.sources.live import DEFAULT_TIMEOUT
from toolsearch.textsafe import shown
from toolsearch.tooldefs import def_function, thaw

from . import DEFAULT_HOST, DEFAULT_PORT, DEFAULT_PROFILE, HTTP_PATH
from .clients import CLIENT_IDLE_SECONDS, ClientTracker
from .events import (
    GATEWAY_CATALOG_NAME,
    NAME_SHOWN,
    REASON_SHOWN,
    EventLog,
    call_record,
    catalog_path_for,
    catalog_problem,
    display_text,
)
from .upstream import CALL_PROGRESS, DEFAULT_CALL_TIMEOUT, Upstream, UpstreamPool, UpstreamResult

log = logging.getLogger("toolsearch.gateway")

STARTUP_GRACE = 5.0
"""How long the gateway waits for its upstreams before it serves (seconds; less when all are
up sooner): a slow server's tools come later, with ``tools/list_changed``, rather than every
client waiting for it (a client's handshake timeout is often 10 s)."""

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


class GatewayError(Exception):
    """A gateway that cannot start (bad option, unknown scope, unsafe bind)."""


def is_loopback(host: str) -> bool:
    if host in LOOPBACK:
        return True
    import ipaddress

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """A non-loopback bind needs a bearer token."""
    if not is_loopback(host) and not token:
        raise GatewayError(f"refusing to listen on non-loopback host {host!r} without a token "
                           "for clients to send: pass --token-env VAR (a variable holding it)")


def listen_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` for the HTTP gateway to listen on, or GatewayError with
    the reason in words (the port in use, not permitted, no such address). Bound before
    anything says the gateway is listening, and before its upstream servers start, so a port
    taken by another program is one clear error, not a gateway announced and then dead."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn binds a host
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
        except BaseException:
            sock.close()
            raise
    except (OSError, OverflowError) as exc:  # socket.gaierror is an OSError
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise GatewayError(f"cannot listen on {host}:{port}: {reason}") from None
    return sock


LISTED_FIELDS = ("title", "annotations", "output_schema", "icons")
"""What a tool shown to the client directly keeps of its upstream listing, beside its name,
description and input schema: its title, its annotations (``readOnlyHint``,
``destructiveHint``: a client asks before running a destructive tool), its output schema
(the ``structuredContent`` it returns) and its icons."""


def _mcp_tool(tool_def: Mapping[str, Any], listed: Any = None) -> Any:
    """The MCP tool a client sees for *tool_def*; *listed*: the upstream's own listing of
    it, for a tool shown directly (see :data:`LISTED_FIELDS`)."""
    import mcp_types as types

    fn = def_function(tool_def)
    params = fn.get("parameters")
    schema = thaw(params) if isinstance(params, Mapping) else {}
    schema.setdefault("type", "object")
    tool = types.Tool(name=str(fn.get("name") or ""), description=fn.get("description") or "",
                      input_schema=schema)
    if isinstance(listed, types.Tool):
        kept = {f: getattr(listed, f) for f in LISTED_FIELDS if getattr(listed, f, None)}
        if kept:
            tool = tool.model_copy(update=kept)
    return tool


def _json_result(value: Any) -> Any:
    """A bridge's own JSON reply as a tool result; ``{"error": ...}`` sets ``isError``."""
    import mcp_types as types

    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           default=str)
    is_error = isinstance(value, Mapping) and "error" in value
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                is_error=is_error)


def _name_shown(name: str) -> str:
    """A tool name as the gateway's own words show it: at most :data:`NAME_SHOWN` characters,
    escapes made visible, secret-looking parts masked (never the name a call routes by)."""
    return display_text(name, NAME_SHOWN)


def _echo_clipped(text: str, name: Any) -> str:
    """*text* (an error or summary that may quote *name*, the tool the client named) with
    that name as :func:`_name_shown` shows it, and any other escape made visible: a client
    naming a 10,000-character tool got all of it back, and its events line held it too."""
    if isinstance(name, str) and name:
        clipped = _name_shown(name)
        if clipped != name:
            for raw in (repr(name), json.dumps(name, ensure_ascii=False)):
                text = text.replace(raw, f"'{clipped}'")
            text = text.replace(name, clipped)
    return shown(text)


def _error_result(message: str) -> Any:
    return _json_result({"error": message})


SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
CANCELLED_SUMMARY = "cancelled before the reply (the client left or cancelled it); the tool " \
    "may have run"
CLIENT_LEFT_SUMMARY = "connection closed by the client before the reply: the call was " \
    "cancelled (the upstream told); the tool may have run"


def _upstream_reply(result: Any) -> Any:
    """The upstream's reply as is, minus the upstream's own ``serverInfo`` stamp (the client
    talks to the gateway)."""
    meta = getattr(result, "meta", None)
    if isinstance(meta, Mapping) and SERVER_INFO_META in meta:
        rest = {k: v for k, v in meta.items() if k != SERVER_INFO_META}
        return result.model_copy(update={"meta": rest or None})
    return result


def _progress_relay(ctx: Any) -> Callable[[float, float | None, str | None],
                                         Awaitable[None]] | None:
    """For a client's ``tools/call`` that asked for progress (a ``progressToken`` in its
    ``_meta``): a callback handing the upstream's progress on to that client, on that
    request. A client's long call then shows its steps, and a client whose request timeout
    restarts on progress (the TypeScript SDK's ``resetTimeoutOnProgress``) keeps waiting.
    None when the client asked for none (the upstream is asked for none either)."""
    from mcp.shared.jsonrpc_dispatcher import progress_token_from_params

    if progress_token_from_params(getattr(ctx, "params", None)) is None:
        return None
    session = ctx.session

    async def relay(progress: float, total: float | None, message: str | None) -> None:
        try:
            await session.report_progress(progress, total, message)
        except Exception as exc:  # noqa: BLE001 - a client gone mid-call: the call goes on
            log.debug("progress not handed on: %s", exc)

    return relay


def _result_bytes(result: Any) -> int:
    try:
        return len(result.model_dump_json(by_alias=True, exclude_none=True))
    except Exception:  # noqa: BLE001 - a size is informative only
        return 0


class Gateway:
    """The gateway: upstream pool, the session state it assembles, and the MCP server."""

    def __init__(self, specs: Sequence[str], *, profile: str = DEFAULT_PROFILE,
                 context_length: int | None = None,
                 overrides: Mapping[str, Any] | None = None,
                 scope: Sequence[str] | None = None,
                 detach: Sequence[str] = (),
                 events: EventLog | None = None,
                 connect_timeout: float = DEFAULT_TIMEOUT,
                 call_timeout: float = DEFAULT_CALL_TIMEOUT,
                 ping_interval: float | None = None,
                 client_idle: float = CLIENT_IDLE_SECONDS,
                 startup_grace: float = STARTUP_GRACE) -> None:
        self.startup_grace = startup_grace
        self.specs = list(specs)
        self.profile = profile
        self.context_length = context_length
        self.overrides = dict(overrides or {})
        self.scope = list(scope) if scope is not None else None
        self.detach = list(detach)
        self.events = events
        self.connect_timeout = connect_timeout
        self.configs = server_configs(self.specs)
        kwargs: dict[str, Any] = {"ping_interval": ping_interval} if ping_interval else {}
        self.pool = UpstreamPool(self.configs, connect_timeout=connect_timeout,
                                 call_timeout=call_timeout, on_change=self._upstream_changed,
                                 on_first=self._upstream_first, on_back=self._upstream_back,
                                 **kwargs)
        self._began = 0.0
        self._reload_failed = ""
        """Why the SOURCEs could not be read again, as last said (said once per reason)."""
        self._stdio_left: anyio.Event | None = None
        """Over stdio: set when the client left (closed its end of stdout) with calls
        running; they are cancelled and recorded as the client's leaving, as over HTTP."""
        self._late: set[str] = set()
        """The upstreams still starting when the gateway stopped waiting for them: each one
        is said (a ``late`` report to the listeners) when it comes up or fails."""
        self.state: SessionState | None = None
        self.serving = ""
        self._tools: list[Any] = []
        self._offered: frozenset[str] = frozenset()
        self._bridge: Any = None
        self._dirty = anyio.Event()
        self.clients = ClientTracker(self._clients_changed, idle=client_idle)
        self._listeners: list[Callable[[str, Any], None]] = []
        self._calls: deque[tuple[Any, ...]] = deque()
        self._calls_ready = anyio.Event()
        self._writing = False
        self._catalog_refused: bool | None = None
        self._catalog_failed = False
        if events is not None:
            events.add_secrets(s for c in self.configs for s in c.secrets())
        from mcp.server.subscriptions import InMemorySubscriptionBus

        self.bus = InMemorySubscriptionBus()
        self.server = self._build_server()

    # -- the MCP server ------------------------------------------------------------------

    def _build_server(self) -> Any:
        from mcp.server import Server
        from mcp.server.lowlevel.server import NotificationOptions
        from mcp.server.subscriptions import ListenHandler

        listen = ListenHandler(self.bus)

        async def on_listen(ctx: Any, params: Any) -> Any:
            with self.clients.listening(ctx):
                return await listen(ctx, params)

        class _Server(Server):
            def create_initialization_options(self, notification_options: Any = None,
                                              *args: Any, **kwargs: Any) -> Any:
                return super().create_initialization_options(
                    notification_options or NotificationOptions(tools_changed=True),
                    *args, **kwargs)

        return _Server("toolsearch", version=__version__,
                       instructions="Tool search gateway: use tool_search to find tools, "
                                    "tool_describe for a schema, tool_call to run one.",
                       on_list_tools=self._on_list_tools, on_call_tool=self._on_call_tool,
                       on_subscriptions_listen=on_listen)

    def _remember(self, ctx: Any) -> str:
        """Count the request's client (and keep a handshake-era session, to notify it
        later); return the client's name."""
        return self.clients.request(ctx)

    def _clients_changed(self, count: int) -> None:
        self._emit("clients", count)
        if self.events is not None and self.state is not None:
            self.events.assembly(self.assembly_record())

    @staticmethod
    def http_url(host: str, port: int) -> str:
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}{HTTP_PATH}"

    @property
    def client_count(self) -> int:
        return self.clients.count()

    async def _on_list_tools(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        self._remember(ctx)
        return types.ListToolsResult(tools=list(self._tools))

    async def _on_call_tool(self, ctx: Any, params: Any) -> Any:
        client = self._remember(ctx)
        name = params.name
        arguments = params.arguments if params.arguments is not None else {}
        started = time.perf_counter()
        progress = CALL_PROGRESS.set(_progress_relay(ctx))
        target = arguments.get("name") if name == "tool_call" and \
            isinstance(arguments, Mapping) else name
        target = target if isinstance(target, str) else None
        bridge = name if name in BRIDGE_TOOL_NAMES else "direct"
        left = _client_left(ctx)
        try:
            done = await self._dispatch_watched(name, arguments, left)
        except anyio.get_cancelled_exc_class():
            # the client left (or cancelled) before the reply: the call still gets its
            # record, now, since the tool may have run (the 2026 wire cancels the call
            # itself when the client closes the connection)
            gone = left if left is not None else self._stdio_left  # stdio: the SDK cancels
            self._record(client, bridge, target, "error", started, arguments, None,
                         CLIENT_LEFT_SUMMARY if gone is not None and gone.is_set()
                         else CANCELLED_SUMMARY, at_once=True)
            raise
        finally:
            CALL_PROGRESS.reset(progress)
        if done is None:  # the client closed the connection: no one reads a reply
            self._record(client, bridge, target, "error", started, arguments, None,
                         CLIENT_LEFT_SUMMARY, at_once=True)
            return _error_result(CLIENT_LEFT_SUMMARY)
        kind, tool, outcome, summary, result = done
        self._record(client, kind, tool, outcome, started, arguments, result, summary)
        return result

    async def _dispatch_watched(self, name: str, arguments: Any, left: anyio.Event | None
                                ) -> tuple[str, str | None, str, str, Any] | None:
        """:meth:`_dispatch`, cancelled when *left* is set (the client closed the connection
        first: the upstream call is cancelled, and the upstream told); None then."""
        if left is None:
            return await self._dispatch(name, arguments)
        done: tuple[str, str | None, str, str, Any] | None = None

        async def dispatch(scope: anyio.CancelScope) -> None:
            nonlocal done
            done = await self._dispatch(name, arguments)
            scope.cancel()

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(dispatch, tg.cancel_scope)
                await left.wait()
                tg.cancel_scope.cancel()
        except BaseExceptionGroup as group:  # the dispatch's own error, as without the watch
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        return done

    async def _dispatch(self, name: str, arguments: Any
                        ) -> tuple[str, str | None, str, str, Any]:
        """Run one ``tools/call``: (kind, underlying tool, outcome, summary, result)."""
        tool: str | None = None
        summary = ""
        bridge = self._bridge
        target = arguments.get("name") if isinstance(arguments, Mapping) and \
            name in ("tool_call", "tool_describe") else name
        state = self.state
        down = self.pool.down_reason(target, lambda server: state is None or (
            server not in state.detached and state.in_scope(server))) \
            if isinstance(target, str) else ""
        if down:  # a tool the client knew, of a server now down: said so, not "unknown"
            down = _echo_clipped(down, target)
            return (name if name in BRIDGE_TOOL_NAMES else "direct", target, "error", down,
                    _error_result(down))
        if bridge is not None and name in BRIDGE_TOOL_NAMES and name in self._offered:
            reply = await bridge.dispatch(name, arguments)
            outcome, tool, summary = reply.activity.outcome, reply.activity.tool, \
                _echo_clipped(reply.activity.summary, target)
            kind = name
            if isinstance(reply.result, UpstreamResult):
                result = _upstream_reply(reply.result.result)
                if reply.result.is_error:
                    outcome = "error"
            elif isinstance(reply.result, Mapping) and isinstance(reply.result.get("error"), str):
                result = _json_result({**reply.result, "error": _echo_clipped(
                    reply.result["error"], target)})  # the bridge's words, the name clipped
            else:
                result = _json_result(reply.result)
        elif name in self._offered and self.pool.routes(name):
            kind, tool = "direct", name
            executed = await self.pool.execute(name, arguments)
            if executed.ok and isinstance(executed.content, UpstreamResult):
                result = _upstream_reply(executed.content.result)
                outcome = "error" if executed.content.is_error else "ok"
            else:
                result, outcome = _error_result(_echo_clipped(
                    executed.error or "the tool failed", name)), "error"
        elif name in self._offered:
            kind, tool, outcome = "direct", name, "error"
            result = _error_result(f"'{_name_shown(name)}' comes from a snapshot source: no "
                                   "live server runs it")
        else:
            kind, outcome = name, "invalid"
            result = _error_result(f"unknown tool '{_name_shown(name)}': this gateway offers "
                                   f"{', '.join(sorted(self._offered)) or 'no tools'}")
        return kind, tool, outcome, summary, result

    def _record(self, client: str, kind: str, tool: str | None, outcome: str, started: float,
                arguments: Any, result: Any, summary: str, at_once: bool = False) -> None:
        """Queue one call record (written just after the reply, or *at_once*)."""
        if self.events is None and not self._listeners:
            return
        took = time.perf_counter() - started
        # the record's time is when the call was made, as the events file says
        self._calls.append((time.time() - took, client, kind, tool, outcome, took * 1000.0,
                            arguments, result, summary))
        if self._writing and not at_once:
            self._calls_ready.set()  # written once the reply is on its way
        else:
            self.flush_calls()

    # -- call records --------------------------------------------------------------------

    def flush_calls(self) -> None:
        """Write every queued call record to the events file and the listeners."""
        events = self.events
        while self._calls:
            at, client, kind, tool, outcome, ms, arguments, result, summary = \
                self._calls.popleft()
            try:
                arg_bytes = len(json.dumps(arguments, ensure_ascii=False, default=str))
            except (TypeError, ValueError):
                arg_bytes = 0
            # one redacted record for the events file and the listeners (the app's Activity
            # feed showed the client's arguments as sent, secrets and all)
            record = call_record(
                client=client, bridge=kind, tool=tool, outcome=outcome, ms=ms,
                arguments=arguments, arg_bytes=arg_bytes, result_bytes=_result_bytes(result),
                summary=summary, secrets=events.secrets if events is not None else
                [s for c in self.configs for s in c.secrets()])
            if events is not None:
                try:
                    events.write_call(record, at=at, flush=False)
                except Exception:  # noqa: BLE001 - a full disk never breaks a call
                    log.exception("cannot write a call record")
            self._emit("call", record)
        if events is not None:
            events.flush()

    async def _call_writer(self) -> None:
        """Writes the call records after the replies: the client never waits for them. On
        the way out (cancelled), whatever is queued is written."""
        from anyio.lowlevel import checkpoint

        self._writing = True
        try:
            while True:
                await self._calls_ready.wait()
                self._calls_ready = anyio.Event()
                for _ in range(3):  # let the reply's write run first
                    await checkpoint()
                self.flush_calls()
        finally:
            self._writing = False
            self.flush_calls()

    async def _client_sweeper(self) -> None:
        """Idle 2026-era HTTP clients stop counting (nothing else would tell)."""
        while True:
            await anyio.sleep(max(0.05, min(5.0, self.clients.idle / 4)))
            self.clients.recount()

    # -- assembly ------------------------------------------------------------------------

    def add_listener(self, listener: Callable[[str, Any], None]) -> None:
        """``listener(kind, payload)`` for ``call`` records, ``assembly`` and ``clients``
        changes (the app hosting the gateway uses it)."""
        self._listeners.append(listener)

    def _emit(self, kind: str, payload: Any) -> None:
        for listener in list(self._listeners):
            try:
                listener(kind, payload)
            except Exception:  # noqa: BLE001 - a listener never breaks the gateway
                log.exception("gateway listener failed")

    async def _upstream_changed(self) -> None:
        self._dirty.set()

    def _upstream_first(self, upstream: Upstream) -> None:
        """An upstream connected or failed for the first time: one still starting when the
        gateway began serving is reported to the listeners (``late``: the command prints it
        on stderr), else the operator never learnt that it came up, or why it failed."""
        name = upstream.config.name
        if name not in self._late:
            return
        self._late.discard(name)
        after = anyio.current_time() - self._began
        error = upstream.listing.toolset.error if upstream.client is None else ""
        shown_name = display_text(name, NAME_SHOWN)
        if upstream.client is not None:
            count = len(upstream.tools)
            text = (f"upstream '{shown_name}' is up after {after:.1f} s: {count} "
                    f"tool{'' if count == 1 else 's'}")
        else:
            text = f"upstream '{shown_name}' failed after {after:.1f} s: " + \
                display_text(error or "no reason given", REASON_SHOWN,
                             upstream.config.secrets())
        self._emit("late", {"server": name, "up": upstream.client is not None,
                            "seconds": round(after, 3), "tools": len(upstream.tools),
                            "error": error or None, "text": text})

    def _upstream_back(self, upstream: Upstream) -> None:
        """An upstream up again after it was said down (``upstream X down: ...``, or a late
        one's ``failed after``): said too (``back``: the command prints it), else the
        operator's last word on it stayed "down" while it served again."""
        count = len(upstream.tools)
        text = (f"upstream '{display_text(upstream.config.name, NAME_SHOWN)}' is up again: "
                f"{count} tool{'' if count == 1 else 's'}")
        self._emit("back", {"server": upstream.config.name, "tools": count, "text": text})

    async def _load(self) -> SessionState:
        workspace = await load_sources_async(self.specs, timeout=self.connect_timeout,
                                             lister=self.pool.lister)
        if self.state is not None:
            return replace(self.state, workspace=workspace)
        state = SessionState.from_workspace(workspace, profile=self.profile,
                                            context_length=self.context_length,
                                            overrides=self.overrides)
        # registry names (mcp-time, what every output shows) or bare server names, as the
        # other commands take them; an empty --scope would silently scope out everything
        resolved: dict[str, list[str]] = {}
        for option, names in (("--scope", self.scope), ("--detach", self.detach)):
            if names is None:
                continue
            if option == "--scope" and not names:
                raise GatewayError(f"{option}: names no toolset (give TOOLSET,...; have: "
                                   f"{', '.join(workspace.toolset_ids())})")
            resolved[option] = []
            for name in names:
                toolset = workspace.resolve_toolset(name)
                if toolset is None:
                    raise GatewayError(f"{option}: no toolset named {name!r} "
                                       f"(have: {', '.join(workspace.toolset_ids())})")
                resolved[option].append(toolset.name)
        for name in resolved.get("--detach", ()):
            state = state.toggled(name)
        if "--scope" in resolved:
            state = state.with_scope(resolved["--scope"])
        return state

    async def apply(self, state: SessionState) -> bool:
        """Offer *state*'s assembly; notify the clients when the tools they see changed."""
        assembly = state.assembly
        # a bridge is none of the upstreams' tools (theirs are mcp__server__tool): no listing
        tools = [_mcp_tool(d, self.pool.listed_tool(def_name(d))) for d in assembly.tool_defs]
        changed = [t.model_dump() for t in tools] != [t.model_dump() for t in self._tools]
        self.state = state
        self._tools = tools
        self._offered = frozenset(def_name(d) for d in assembly.tool_defs)
        self._bridge = state.bridge(self.pool)
        record = self.assembly_record()
        if self.events is not None:
            self._write_catalog(state)
            self.events.assembly(record)
        self._emit("assembly", record)
        if changed:
            await self.notify_clients()
        if assembly.activated:  # build the search index now, not on the first tool_search
            bridge = self._bridge
            await anyio.to_thread.run_sync(lambda: bridge.search_hits("warm up", 1))
        return changed

    async def retune(self, change: Callable[[SessionState], SessionState]) -> bool:
        """Apply a tuning change (config, context, scope) to the live state and notify."""
        if self.state is None:
            return False
        return await self.apply(change(self.state))

    def _catalog_path(self) -> Path | None:
        """Where the snapshot catalog beside the events file goes; None when the file there
        is the operator's (a SOURCE, or anything but a gateway's catalog): said once, and
        the app following the events file is not pointed at it."""
        if self.events is None:
            return None
        if self._catalog_refused is None:
            path = catalog_path_for(self.events.path)
            problem = catalog_problem(path, self.specs)
            self._catalog_refused = bool(problem)
            if problem:
                log.warning("the gateway's catalog snapshot is not written: %s; it is left "
                            "alone", problem)
        return None if self._catalog_refused else catalog_path_for(self.events.path)

    def _write_catalog(self, state: SessionState) -> None:
        path = self._catalog_path()
        if path is None:
            return
        from toolsearch.sources.snapshot import write_catalog_file

        try:
            write_catalog_file(state.workspace, path, name=GATEWAY_CATALOG_NAME,
                               sources=self.specs)
        except Exception as exc:  # noqa: BLE001 - the sidecar is for the app only
            if not self._catalog_failed:
                self._catalog_failed = True
                log.warning("cannot write the gateway's catalog snapshot %s: %s", path, exc)

    def assembly_record(self) -> dict[str, Any]:
        state = self.state
        if state is None:
            return {}
        result = state.assembly
        return {
            "profile": state.config.profile,
            "context_length": state.context_length,
            "config": state.config.to_raw(),
            "scope": sorted(state.scope) if state.scope is not None else None,
            "detached": sorted(state.detached),
            "starting": sorted(self.pool.starting()),
            "activated": result.activated,
            "tier": result.tier,
            "listing_form": result.listing_form,
            "budget": result.budget.budget if result.budget else None,
            "listing_tokens": result.listing.tokens if result.listing else 0,
            "deferred_count": result.deferred_count,
            "visible": list(result.visible_names),
            "tools": sorted(self._offered),
            "toolsets": [{"name": t.name, "status": t.status.value, "error": t.error or None,
                          "tools": len(t.tools)} for t in state.workspace.toolsets],
            "clients": self.client_count,
            "serving": self.serving,
            "catalog": str(path) if (path := self._catalog_path()) else None,
        }

    async def notify_clients(self) -> None:
        """``notifications/tools/list_changed`` to every client (both protocol eras)."""
        from mcp.server.subscriptions import ToolsListChanged

        await self.bus.publish(ToolsListChanged())
        for key, session in list(self.clients.sessions.items()):
            try:
                with anyio.fail_after(5):
                    await session.send_tool_list_changed()
            except Exception:  # noqa: BLE001 - a gone client is forgotten
                self.clients.forget(key)

    async def _reassembler(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty = anyio.Event()
            await anyio.sleep(0.05)  # coalesce a burst (several servers coming back)
            try:
                await self.apply(await self._load())
            except (SourceError, GatewayError, OSError) as exc:  # a SOURCE edited badly
                self._say_reload_failed(exc)
            except Exception:  # noqa: BLE001 - keep serving the previous assembly
                log.exception("re-assembly failed")
            else:
                self._reload_failed = ""

    def _say_reload_failed(self, exc: Exception) -> None:
        """A SOURCE that cannot be read again (the operator saved a broken config, or moved
        it) while the gateway runs: one warning line, once per reason, secrets masked; the
        tools offered stay as they were. It was ``toolsearch: ERROR: re-assembly failed``
        and a traceback, at every upstream change."""
        reason = display_text(str(exc) or type(exc).__name__, REASON_SHOWN,
                              [s for c in self.configs for s in c.secrets()])
        if reason != self._reload_failed:
            self._reload_failed = reason
            log.warning("cannot re-read the SOURCEs (%s): the tools offered stay as they "
                        "were", reason)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Gateway]:
        """Start the upstreams, assemble once (after at most :data:`STARTUP_GRACE`, with the
        upstreams up by then), keep re-assembling on changes (each server coming up)."""
        async with anyio.create_task_group() as tg:
            self._began = anyio.current_time()
            tg.start_soon(self.pool.run)
            try:
                with anyio.move_on_after(self.startup_grace):
                    await self.pool.wait_ready()
                self._late = set(self.pool.starting())
                self._dirty = anyio.Event()
                await self.apply(await self._load())
                tg.start_soon(self._reassembler)
                tg.start_soon(self._call_writer)
                tg.start_soon(self._client_sweeper)
                yield self
            finally:
                tg.cancel_scope.cancel()

    # -- transports ----------------------------------------------------------------------

    async def serve_stdio(self) -> None:
        from .stdio import stdio_streams

        self.serving = self.serving or "stdio"
        # at the end of stdin, the calls still running are answered: a hung upstream's
        # reply (its timeout error) comes by its call timeout
        drain = max([self.pool.call_timeout,
                     *(c.call_timeout or 0.0 for c in self.configs)]) + 5.0
        self._stdio_left = anyio.Event()
        try:
            async with stdio_streams(drain, self._stdio_left) as (read, write):
                await self.server.run(read, write, self.server.create_initialization_options())
        finally:
            self.clients.streams_ended()

    def http_app(self, host: str = DEFAULT_HOST, token: str | None = None) -> Any:
        app = ClientLeftWatch(self.server.streamable_http_app(streamable_http_path=HTTP_PATH,
                                                              host=host))
        return BearerGuard(app, token) if token else app

    async def serve_http(self, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                         token: str | None = None,
                         started: Callable[[str], None] | None = None,
                         handle_signals: bool = True,
                         sock: socket.socket | None = None) -> None:
        """Serve streamable HTTP until cancelled, on *sock* (from :func:`listen_socket`; bound
        here when not given). ``handle_signals=False`` leaves the process's signal handlers
        alone (the app hosting the gateway owns them)."""
        import contextlib

        import uvicorn

        check_bind(host, token)
        if sock is None:
            sock = listen_socket(host, port)
        port = sock.getsockname()[1]  # the port given, or the free one port 0 found
        # log_config=None: uvicorn's lines go through the log as every other warning (the
        # app hosting the gateway shows them, then prints them at exit), not through a stderr
        # handler of uvicorn's own, which wrote under the app's screen or into nothing.
        config = uvicorn.Config(self.http_app(host, token), host=host, port=port,
                                log_level="warning", lifespan="on", log_config=None)

        class _Server(uvicorn.Server):
            def capture_signals(self) -> Any:
                return super().capture_signals() if handle_signals else contextlib.nullcontext()

        server = _Server(config)
        self.serving = self.http_url(host, port)
        if started is not None:
            started(self.serving)
        cut = _CutStreamsUnsaid(server)
        uvicorn_log = logging.getLogger("uvicorn.error")
        uvicorn_log.addFilter(cut)
        try:
            with sock:
                await server.serve(sockets=[sock])
        finally:
            uvicorn_log.removeFilter(cut)


UNFINISHED_RESPONSE = "ASGI callable returned without completing response."


class _CutStreamsUnsaid(logging.Filter):
    """uvicorn's error line for each response a stopping server cuts (a client's open SSE
    stream, a call still running): Ctrl+C or SIGTERM on a gateway with a client connected
    printed ``ERROR: ASGI callable returned without completing response.`` before the one
    ``toolsearch: interrupted``. While the server runs, the line still shows."""

    def __init__(self, server: Any) -> None:
        super().__init__()
        self.server = server

    def filter(self, record: logging.LogRecord) -> bool:
        return not (self.server.should_exit and record.getMessage() == UNFINISHED_RESPONSE)


def _not_a_cancelled_lifespan(record: logging.LogRecord) -> bool:
    """uvicorn's traceback of a cancelled lifespan: the app hosting the gateway stops it by
    cancelling (not by uvicorn's own shutdown), a stop asked for, not a fault. It can come
    after :meth:`Gateway.serve_http` returned, so this filter stays on uvicorn's log."""
    said = record.getMessage().rstrip()
    return not (said.endswith("CancelledError") and "lifespan" in said)


logging.getLogger("uvicorn.error").addFilter(_not_a_cancelled_lifespan)


CLIENT_LEFT = "toolsearch.client_left"
"""The ASGI scope key of the event :class:`ClientLeftWatch` sets when the client closes the
connection before its response ended."""


class ClientLeftWatch:
    """ASGI wrapper: each HTTP request's scope gets an :data:`CLIENT_LEFT` event, set when the
    client closes the connection before the response is complete. On the 2025-era wire the
    SDK only stops writing a gone client's stream; its ``tools/call`` handler ran on (and the
    upstream tool with it), so the gateway's handler watches this event and cancels."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        left = anyio.Event()
        scope[CLIENT_LEFT] = left
        ended = False

        async def watched_receive() -> Any:
            message = await receive()
            if message.get("type") == "http.disconnect" and not ended:
                left.set()
            return message

        async def watched_send(message: Any) -> None:
            nonlocal ended
            try:
                await send(message)
            except OSError:  # the client is gone (uvicorn raises on a closed socket)
                left.set()
                raise
            if message.get("type") == "http.response.body" and not message.get("more_body"):
                ended = True

        await self.app(scope, watched_receive, watched_send)


def _client_left(ctx: Any) -> anyio.Event | None:
    """The :data:`CLIENT_LEFT` event of the HTTP request that carried *ctx*'s call, or None
    (stdio, or a transport that gives no request)."""
    scope = getattr(getattr(ctx, "request", None), "scope", None)
    left = scope.get(CLIENT_LEFT) if isinstance(scope, Mapping) else None
    return left if isinstance(left, anyio.Event) else None


class BearerGuard:
    """ASGI wrapper: every HTTP request needs ``Authorization: Bearer <token>`` (compared in
    constant time); anything else is a 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            given = b""
            for key, value in scope.get("headers") or ():
                if key.lower() == b"authorization":
                    given = value
            if not hmac.compare_digest(given, self._expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain"),
                                        (b"www-authenticate", b'Bearer realm="toolsearch"')]})
                await send({"type": "http.response.body", "body": b"unauthorized\n"})
                return
        await self.app(scope, receive, send)
