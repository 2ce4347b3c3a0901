"""Tool sources: catalog files, server dumps, Hermes and client configs, live MCP servers.

``load_sources(["config.yaml", "seed-demo"])`` resolves each SOURCE (a path, a sample catalog
name, or an ``http(s)://`` MCP URL, optionally ``NAME=URL``), detects its kind from its
content, lists every live server in parallel (each under its own timeout) and merges the
results into one :class:`~toolsearch.toolsets.Workspace`.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import anyio

from toolsearch.toolsets import Workspace, merge_workspaces

from .catalog_file import catalog_from_data, load_dump_dir, load_real_dump
from .client_config import client_servers
from .detect import (
    CATALOG,
    DUMP,
    DUMP_DIR,
    HERMES,
    MCP_SERVERS,
    URL,
    VSCODE,
    ResolvedSource,
    detect_kind,
    resolve_source,
)
from .entries import without_collisions
from .errors import SourceError
from .hermes_config import default_hermes_config_path, parse_hermes_config
from .live import DEFAULT_TIMEOUT, Listed, ServerConfig, ServerListing, list_servers

__all__ = [
    "DEFAULT_TIMEOUT",
    "ServerConfig",
    "SourceError",
    "default_hermes_config_path",
    "detect_kind",
    "hermes_config_path",
    "load_sources",
    "load_sources_async",
    "resolve_source",
    "server_configs",
]

#: Lists the given servers, one listing per config in order (``list_servers`` by default).
Lister = Callable[[Sequence[ServerConfig]], Awaitable[Sequence[ServerListing]]]

_URL_SPEC = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+)=(?P<url>https?://.+)$")


def _url_server(spec: str) -> ServerConfig:
    match = _URL_SPEC.match(spec)
    url = match.group("url") if match else spec
    name = match.group("name") if match else ""
    if not name:
        parts = urlsplit(url)
        name = re.sub(r"[^A-Za-z0-9_-]", "_", parts.hostname or "server")
        if parts.port:
            name += f"_{parts.port}"
    transport = "sse" if urlsplit(url).path.rstrip("/").endswith("/sse") else "http"
    return ServerConfig(name=name, transport=transport, url=url, source="command line")


def _resolve(spec: str) -> ResolvedSource:
    if _URL_SPEC.match(spec.strip()):
        return ResolvedSource(spec.strip(), URL)
    return resolve_source(spec)


def _servers_of(source: ResolvedSource) -> tuple[tuple[ServerConfig, ...], tuple[str, ...]]:
    """The live servers a resolved source declares, plus warnings about its entries."""
    if source.kind == URL:
        return (_url_server(source.spec),), ()
    if source.kind == HERMES and source.path is not None:
        config = parse_hermes_config(source.data, source.path)
        return config.servers, config.warnings
    if source.kind in (MCP_SERVERS, VSCODE):
        return client_servers(source.data, source=str(source.path))
    return (), ()


def server_configs(specs: Sequence[str]) -> tuple[ServerConfig, ...]:
    """Every live server the SOURCEs declare (what :class:`LiveExecutor` runs tools on)."""
    return tuple(s for spec in specs for s in _servers_of(_resolve(spec))[0])


def hermes_config_path(specs: Sequence[str]) -> Path | None:
    """The first SOURCE that is a Hermes ``config.yaml`` (where ``tune --save`` writes)."""
    for spec in specs:
        if _URL_SPEC.match(spec.strip()) or spec.strip().startswith(("http://", "https://")):
            continue
        source = resolve_source(spec)
        if source.kind == HERMES and source.path is not None:
            return source.path
    return None


def _static_workspace(source: ResolvedSource) -> Workspace:
    assert source.path is not None
    if source.kind == CATALOG:
        return catalog_from_data(source.data, source.path, warnings=source.warnings,
                                 lossy=source.lossy)
    if source.kind == DUMP:
        return load_real_dump(source.path)
    if source.kind == DUMP_DIR:
        return load_dump_dir(source.path)
    raise SourceError(f"{source.spec}: unsupported source kind {source.kind}")


def _live_workspace(source: ResolvedSource, listings: Sequence[ServerListing],
                    warnings: Sequence[str]) -> Workspace:
    name = source.path.stem if source.path is not None else "live"
    tool_search = None
    if source.kind == HERMES and source.path is not None:
        tool_search = parse_hermes_config(source.data, source.path).tool_search
    all_warnings = [*source.warnings, *warnings]
    for listing in listings:
        all_warnings.extend(listing.warnings)
    return Workspace(
        name=name,
        toolsets=tuple(listing.toolset for listing in listings),
        tool_search=tool_search,
        warnings=tuple(all_warnings),
        origins=(str(source.path) if source.path is not None else source.spec,),
    )


async def load_sources_async(specs: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
                             profile: str = "seed", lister: Lister | None = None,
                             listed: Listed | None = None) -> Workspace:
    """Load and merge every SOURCE. Live servers of all sources start together, in parallel.

    ``timeout`` is the per-server connect-and-list limit (a server's own, shorter
    ``connect_timeout`` wins; a longer one is capped). ``profile`` is accepted for symmetry
    with the engine; sources read the same files under every profile. ``lister`` replaces
    :func:`list_servers` (the gateway lists over its own connections); ``listed`` is told as
    each server is done (progress). Raises
    :class:`SourceError` for a SOURCE that cannot be read or
    recognised; a failing *server* is an error row in the result, never an exception.
    """
    del profile
    if not specs:
        raise SourceError("no SOURCE given")
    resolved = [_resolve(str(spec)) for spec in specs]
    declared = [_servers_of(source) for source in resolved]
    flat = [server for servers, _ in declared for server in servers]
    found = (await lister(flat) if lister else
             await list_servers(flat, timeout=timeout, listed=listed)) if flat else ()
    listings = list(found)
    parts: list[Workspace] = []
    offset = 0
    for source, (servers, warnings) in zip(resolved, declared, strict=True):
        if source.kind in (HERMES, MCP_SERVERS, VSCODE, URL):
            mine = listings[offset: offset + len(servers)]
            offset += len(servers)
            parts.append(_live_workspace(source, mine, warnings))
        else:
            parts.append(_static_workspace(source))
    merged = merge_workspaces(parts)
    ignored = _ignored_tool_search(parts)
    if ignored:
        merged = replace(merged, warnings=(*merged.warnings, *ignored))
    return without_collisions(merged)


def _ignored_tool_search(parts: Sequence[Workspace]) -> tuple[str, ...]:
    """A warning for each SOURCE whose ``tool_search`` block is not used: the first SOURCE
    that has one wins the merge, and the others' blocks were dropped without a word (a
    tuned file given second read as tuned, while its values were not the ones in force)."""
    having = [(part.origins[0] if part.origins else part.name, part) for part in parts
              if part.tool_search is not None]
    if len(having) < 2:
        return ()
    names = {origin: Path(origin).name for origin, _ in having}
    if len(set(names.values())) < len(names):  # a/config.yaml and b/config.yaml: in full
        names = {origin: origin for origin in names}
    used = having[0][0]
    return tuple(f"tool_search block in {names[origin]} ignored; using {names[used]}'s"
                 for origin, _ in having[1:]
                 if os.path.realpath(origin) != os.path.realpath(used))  # the same file again


def load_sources(specs: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
                 profile: str = "seed", listed: Listed | None = None) -> Workspace:
    """Synchronous :func:`load_sources_async` (runs its own event loop; Ctrl-C stops every
    server it started before ``KeyboardInterrupt`` propagates)."""
    return anyio.run(functools.partial(load_sources_async, specs, timeout=timeout,
                                       profile=profile, listed=listed))
