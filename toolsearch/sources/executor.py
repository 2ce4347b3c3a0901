"""Live ``tool_call`` execution: run an exposed ``mcp__<server>__<tool>`` on its real server.

The bridge hands the underlying tool name and the arguments to :meth:`LiveExecutor.execute`;
the executor maps the exposed name back to the server's config and the server's own tool
name, opens a fresh session, calls the tool and closes the session again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import anyio

from toolsearch.bridge import ExecutionResult
from toolsearch.tooldefs import mcp_tool_name, sanitize_part, thaw
from toolsearch.toolsets import Workspace

from .live import (
    _SERVER_LOG,
    ServerConfig,
    capped_timeout,
    describe_failure,
    list_all_tools,
    open_client,
)
from .redact import scrub_known

__all__ = ["DEFAULT_CALL_TIMEOUT", "ExecutionResult", "LiveExecutor", "execute_sync",
           "live_executor", "result_content"]

#: ``ExecutionResult(ok, content, error)`` is the bridge's own type (re-exported here):
#: ``content`` is JSON-able, the server's structured content when it sent one, otherwise its
#: text blocks joined by newlines.
DEFAULT_CALL_TIMEOUT = 60.0
MAX_TEXT = 200_000


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind == "resource":
        resource = getattr(block, "resource", None)
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            return text
        return f"[resource {getattr(resource, 'uri', '')}]"
    if kind == "resource_link":
        return f"[resource link {getattr(block, 'uri', '')}]"
    mime = getattr(block, "mime_type", "") or ""
    return f"[{kind or 'content'}{': ' + mime if mime else ''}]"


def result_content(result: Any) -> Any:
    """JSON-able content of a ``CallToolResult``: its structured content, else its text, each
    at most :data:`MAX_TEXT` characters (structured content longer than that as JSON is cut
    as text, as a long text is: a 20 MB structure froze the app for 15 s being shown)."""
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        data = json.dumps(structured, default=str)
        return json.loads(data) if len(data) <= MAX_TEXT else data[:MAX_TEXT] + "…"
    text = "\n".join(_block_text(b) for b in getattr(result, "content", ()) or ())
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


class LiveExecutor:
    """Runs tools of live MCP servers. Build it with :meth:`for_workspace` (names come from the
    listed toolsets) or directly from server configs (names are then discovered on demand)."""

    def __init__(self, servers: Iterable[ServerConfig], *,
                 tools: Mapping[str, tuple[str, str]] | None = None,
                 timeout: float | None = None) -> None:
        self._servers = {s.name: s for s in servers}
        self._tools: dict[str, tuple[str, str]] = dict(tools or {})
        self._timeout = timeout

    @classmethod
    def for_workspace(cls, workspace: Workspace, servers: Iterable[ServerConfig], *,
                      timeout: float | None = None) -> LiveExecutor:
        """Map every exposed MCP tool name of *workspace* to (server, server's tool name)."""
        configs = list(servers)
        known = {c.name for c in configs}
        tools = {
            ts.exposed_name(tool): (ts.name, tool.name)
            for ts in workspace.toolsets if ts.kind == "mcp" and ts.name in known
            for tool in ts.tools
        }
        return cls(configs, tools=tools, timeout=timeout)

    @property
    def server_names(self) -> tuple[str, ...]:
        return tuple(self._servers)

    def can_execute(self, tool_name: str) -> bool:
        return tool_name in self._tools or self._server_for(tool_name) is not None

    def _server_for(self, tool_name: str) -> ServerConfig | None:
        candidates = [s for s in self._servers.values()
                      if tool_name.startswith(f"mcp__{sanitize_part(s.name)}__")]
        return max(candidates, key=lambda s: len(s.name), default=None)

    async def _resolve(self, tool_name: str, client: Any, config: ServerConfig) -> str | None:
        for tool in await list_all_tools(client):
            self._tools.setdefault(mcp_tool_name(config.name, tool.name), (config.name, tool.name))
        entry = self._tools.get(tool_name)
        return entry[1] if entry else None

    async def execute(self, tool_name: str, arguments: Mapping[str, Any]) -> ExecutionResult:
        """Call *tool_name* (the exposed ``mcp__server__tool`` name) with *arguments*."""
        entry = self._tools.get(tool_name)
        config = self._servers.get(entry[0]) if entry else self._server_for(tool_name)
        if config is None:
            return ExecutionResult(False, None, f"no live server provides {tool_name!r}")
        limit = capped_timeout(config.call_timeout or (None if self._timeout else
                                                       DEFAULT_CALL_TIMEOUT), self._timeout)
        args = thaw(dict(arguments))
        sdk_log: list[str] = []
        _SERVER_LOG.set(sdk_log)
        try:
            with anyio.fail_after(limit):
                async with open_client(config) as client:
                    if entry:
                        # the SDK checks a call's result against the outputSchema of its
                        # tool's last listing, and lists (one page, strictly) a tool it has
                        # not seen: one malformed tool on the server then failed the call.
                        # It learns the tool from this lenient listing first, as it does
                        # from _resolve's
                        await list_all_tools(client, until=entry[1])
                    own = entry[1] if entry else await self._resolve(tool_name, client, config)
                    if own is None:
                        return ExecutionResult(
                            False, None, f"server {config.name!r} has no tool for {tool_name!r}")
                    result = await client.call_tool(own, args)
        except Exception as exc:  # noqa: BLE001 - a failed call is a result, not a crash
            return ExecutionResult(False, None, describe_failure(exc, config, timeout=limit,
                                                                 sdk_log=sdk_log))
        # a reply can carry a server's own secret (a tool that echoes its environment): the
        # app's feed and `toolsearch call` show replies, so every configured secret is masked
        content = scrub_known(result_content(result), self._secrets())
        if getattr(result, "is_error", False):
            text = content if isinstance(content, str) else json.dumps(content)
            return ExecutionResult(False, content, config.redact(text) or "tool reported an error")
        return ExecutionResult(True, content)

    def _secrets(self) -> tuple[str, ...]:
        return tuple(s for c in self._servers.values() for s in c.secrets())

    async def call(self, name: str, arguments: Mapping[str, Any]) -> ExecutionResult:
        """Alias of :meth:`execute`."""
        return await self.execute(name, arguments)

    def execute_sync(self, tool_name: str, arguments: Mapping[str, Any]) -> ExecutionResult:
        """:meth:`execute` from synchronous code (runs its own event loop)."""
        return anyio.run(self.execute, tool_name, arguments)


def live_executor(specs: Sequence[str], workspace: Workspace | None = None, *,
                  timeout: float | None = None) -> LiveExecutor:
    """An executor for every live server the SOURCEs declare (the CLI's ``call`` uses this)."""
    from . import server_configs

    servers = server_configs(specs)
    if workspace is None:
        return LiveExecutor(servers, timeout=timeout)
    return LiveExecutor.for_workspace(workspace, servers, timeout=timeout)


def execute_sync(executor: LiveExecutor, tool_name: str,
                 arguments: Mapping[str, Any]) -> ExecutionResult:
    """Run one call synchronously (for the CLI)."""
    return executor.execute_sync(tool_name, arguments)
