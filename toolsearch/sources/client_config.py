"""MCP server entries of client configs: Claude Desktop / Cursor (``mcpServers``), VS Code
(``servers``, also nested as ``mcp.servers`` in ``settings.json``), and the shared entry
parser the Hermes config uses too.

An entry that cannot be used (no ``command`` and no ``url``, an unknown ``type``, ...) still
becomes a server, with a ``problem``: it shows as an error row, never stops the load.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from toolsearch.textsafe import bounded_repr
from toolsearch.tooldefs import freeze

from .live import ServerConfig

_PLACEHOLDER = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")
_TRANSPORT_ALIASES = {
    "stdio": "stdio",
    "local": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "streamablehttp": "http",
    "remote": "http",
    "sse": "sse",
}


def expand_placeholders(value: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace ``${VAR}`` and ``${env:VAR}`` with the environment's value (left as is when
    unset). Other placeholders such as VS Code's ``${input:id}`` are left untouched."""
    env = os.environ if environ is None else environ
    return _PLACEHOLDER.sub(lambda m: env.get(m.group(1), m.group(0)), value)


def _strings(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {str(k): expand_placeholders(str(v)) for k, v in value.items() if v is not None}


def _kind(value: Any) -> str:
    """What a YAML/JSON value is, in words (``a list``, ``a string``)."""
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return f"a {type(value).__name__}"


def _shape_problem(entry: Mapping[str, Any]) -> str:
    """The first key of *entry* that holds the wrong shape of value (``env: "A=1"``,
    ``command: [npx, x]``, ``timeout: -1``), named with what it should be; "" when none. Such
    a value was dropped or misread before, and the server started without it (or failed to
    say why)."""
    command = entry.get("command")
    if command is not None and not isinstance(command, str):
        hint = " (the program alone; its arguments go in 'args')" \
            if isinstance(command, list | tuple) else ""
        return f"'command' is {_kind(command)}; expected a string{hint}"
    for key in ("url", "serverUrl", "cwd"):
        value = entry.get(key)
        if value is not None and not isinstance(value, str):
            return f"{key!r} is {_kind(value)}; expected a string"
    for key in ("env", "headers"):
        value = entry.get(key)
        if value is None:
            continue
        if not isinstance(value, Mapping):
            return f"{key!r} is {_kind(value)}; expected a mapping of NAME: value"
        for name, item in value.items():
            if isinstance(item, Mapping | list | tuple):
                return (f"{key!r}: {bounded_repr(str(name))} is {_kind(item)}; expected a "
                        "string")
    tools = entry.get("tools")
    if tools is not None and not isinstance(tools, Mapping):  # read as no filter: every tool
        return f"'tools' is {_kind(tools)}; expected a mapping (include: [...], exclude: [...])"
    for key in ("include", "exclude"):
        names = tools.get(key) if isinstance(tools, Mapping) else None
        if names is not None and not isinstance(names, str | list | tuple):
            return f"'tools.{key}' is {_kind(names)}; expected a list of tool names"
    return _timeout_problem(entry)


def _timeout_problem(entry: Mapping[str, Any]) -> str:
    """The first timeout key of *entry* that is not a positive number of seconds (``"abc"``,
    ``-1``, ``.nan``), named with what it expects; "" when none (such a value was read as
    unset). ``.inf`` is a number of seconds: no limit but the command's own."""
    for key in ("connect_timeout", "startupTimeout", "timeout"):
        value = entry.get(key)
        if value is not None and _positive_seconds(value) is None:
            shown = bounded_repr(value) if isinstance(value, str | int | float) \
                and not isinstance(value, bool) else _kind(value)
            unset = _unset_placeholders(value) if isinstance(value, str) else ()
            if unset:
                shown += f" ({', '.join(unset)} {'is' if len(unset) == 1 else 'are'} not set)"
            elif isinstance(value, str) and _PLACEHOLDER.search(value):
                shown += f" (read as {bounded_repr(expand_placeholders(value))})"
            return f"{key!r} is {shown}; expected a positive number of seconds"
    return ""


def _unset_placeholders(value: str) -> tuple[str, ...]:
    """The ``${VAR}`` names in *value* that the environment does not set, in order."""
    names = (m.group(1) for m in _PLACEHOLDER.finditer(value))
    return tuple(dict.fromkeys(n for n in names if n not in os.environ))


def _names(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value)
    return None


def _positive_seconds(value: Any) -> float | None:
    """A timeout in seconds: a positive number, ``.inf`` included (or a string of one, after
    ``${VAR}`` expansion); None for anything else (which :func:`_timeout_problem` reports)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):  # ``timeout: ${MCP_TIMEOUT}``, as in every other string key
        value = expand_placeholders(value)
    try:
        seconds = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return seconds if seconds > 0 else None  # nan is not > 0


def _seconds(value: Any) -> float | None:
    """The timeout an entry sets; None when unset or ``.inf`` (the default, capped by the
    command's own timeout)."""
    seconds = _positive_seconds(value)
    return seconds if seconds is not None and seconds < float("inf") else None


def _connect_seconds(entry: Mapping[str, Any]) -> float | None:
    """The connect timeout: ``connect_timeout``, else ``startupTimeout``. A key written with
    no value (``connect_timeout:`` or ``null``) is unset, so it no longer hides the other."""
    value = entry.get("connect_timeout")
    return _seconds(entry.get("startupTimeout") if value is None else value)


def _url_path(url: str) -> str:
    try:
        return urlsplit(url).path
    except ValueError:  # a malformed URL: _url_problem says so
        return ""


def _url_problem(url: str) -> str:
    """Why *url* cannot be an MCP endpoint (an unparsable URL, an unbracketed IPv6 host, a
    scheme other than http/https), or "" when it can."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError as exc:
        return f"invalid url: {exc}"
    if parts.scheme.lower() not in ("http", "https"):
        return f"invalid url: scheme {bounded_repr(parts.scheme)} is not http or https"
    if not parts.hostname:
        return "invalid url: no host"
    return ""


def is_disabled(entry: Any) -> bool:
    """``enabled: false`` (Hermes) or ``disabled: true`` (several clients)."""
    if not isinstance(entry, Mapping):
        return False
    return entry.get("enabled") is False or str(entry.get("enabled")).lower() == "false" \
        or entry.get("disabled") is True


def server_from_entry(name: str, entry: Any, *, source: str = "") -> ServerConfig:
    """One server entry (stdio ``command``/``args``/``env``/``cwd`` or HTTP ``url``/``headers``,
    optional ``type``, ``connect_timeout``/``timeout``, ``tools.include``/``exclude``)."""
    name = str(name)
    if not isinstance(entry, Mapping):
        return ServerConfig(name, source=source, problem="server entry is not a mapping")
    raw_type = entry.get("type", entry.get("transport"))
    command = entry.get("command")
    url = entry.get("url", entry.get("serverUrl"))
    transport = ""
    problem = _shape_problem(entry)
    if raw_type is not None:
        transport = _TRANSPORT_ALIASES.get(str(raw_type).strip().lower(), "")
        if not transport and not problem:
            problem = (f"unknown transport type {bounded_repr(raw_type)} "
                       "(expected stdio, http or sse)")
    if not transport and not problem:
        if isinstance(command, str) and command.strip():
            transport = "stdio"
        elif isinstance(url, str) and url.strip():
            transport = "sse" if _url_path(url).rstrip("/").endswith("/sse") else "http"
        else:
            problem = "neither 'command' nor 'url' is set"
    if transport == "stdio" and not (isinstance(command, str) and command.strip()):
        problem = problem or "stdio server without a 'command'"
    if transport in ("http", "sse") and not (isinstance(url, str) and url.strip()):
        problem = problem or f"{transport} server without a 'url'"
    if transport in ("http", "sse") and isinstance(url, str) and url.strip():
        problem = problem or _url_problem(expand_placeholders(url.strip()))
    args = entry.get("args", ())
    if isinstance(args, str):
        args = [args]
    if not isinstance(args, list | tuple):
        problem = problem or "'args' is not a list"
        args = ()
    tools = entry.get("tools")
    tools = tools if isinstance(tools, Mapping) else {}
    cwd = entry.get("cwd")
    return ServerConfig(
        name=name,
        transport=transport or "stdio",
        command=expand_placeholders(command.strip()) if isinstance(command, str) else "",
        args=tuple(expand_placeholders(str(a)) for a in args),
        env=freeze(_strings(entry.get("env"))),
        cwd=expand_placeholders(str(cwd)) if isinstance(cwd, str) and cwd else None,
        url=expand_placeholders(url.strip()) if isinstance(url, str) else "",
        headers=freeze(_strings(entry.get("headers"))),
        connect_timeout=_connect_seconds(entry),
        call_timeout=_seconds(entry.get("timeout")),
        include=_names(tools.get("include")),
        exclude=_names(tools.get("exclude")) or (),
        source=source,
        problem=problem,
    )


def servers_from_block(block: Any, *, source: str, key: str) -> tuple[tuple[ServerConfig, ...],
                                                                     tuple[str, ...]]:
    """Every enabled server of a ``name -> entry`` mapping, plus warnings."""
    if block is None:
        return (), ()
    if not isinstance(block, Mapping):
        return (), (f"{source}: '{key}' ignored: expected a mapping of server name to settings",)
    servers = tuple(
        server_from_entry(str(name), entry, source=source)
        for name, entry in block.items()
        if not is_disabled(entry)
    )
    return servers, ()


def client_block(data: Any) -> tuple[str, Any] | None:
    """``(key, block)`` of a client config: ``mcpServers`` (Claude Desktop, Cursor, ...),
    ``servers`` (VS Code ``mcp.json``) or ``mcp.servers`` (VS Code ``settings.json``)."""
    if not isinstance(data, Mapping):
        return None
    if isinstance(data.get("mcpServers"), Mapping):
        return "mcpServers", data["mcpServers"]
    servers = data.get("servers")
    if isinstance(servers, Mapping) and _looks_like_servers(servers):
        return "servers", servers
    mcp = data.get("mcp")
    if isinstance(mcp, Mapping) and isinstance(mcp.get("servers"), Mapping):
        return "mcp.servers", mcp["servers"]
    return None


def _looks_like_servers(block: Mapping[str, Any]) -> bool:
    return all(
        isinstance(v, Mapping) and any(k in v for k in ("command", "url", "type"))
        for v in block.values()
    )


def client_servers(data: Any, *, source: str) -> tuple[tuple[ServerConfig, ...], tuple[str, ...]]:
    """Servers of a Claude Desktop / Cursor / VS Code config document, plus warnings."""
    found = client_block(data)
    if found is None:
        return (), (f"{source}: no 'mcpServers' or 'servers' block",)
    key, block = found
    servers, warnings = servers_from_block(block, source=source, key=key)
    unresolved = [s.name for s in servers if "${input:" in " ".join(
        [*s.env.values(), *s.headers.values(), *s.args, s.url])]
    if unresolved:
        warnings += (f"{source}: ${{input:...}} placeholders are not resolved "
                     f"(servers: {', '.join(unresolved)})",)
    return servers, warnings
