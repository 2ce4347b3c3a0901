"""Toolsets and workspaces: what sources produce and what the engine consumes.

A :class:`Toolset` is one MCP server, plugin toolset, core set or loose group of tools, as a
source yielded it. A :class:`Workspace` is the merged result of one or more sources: it turns
the attached toolsets into tool defs (in order) and the registry (name -> toolset).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from types import MappingProxyType
from typing import Any

from .classify import Registry, def_name
from .tokens import estimate_tokens_from_schemas
from .tooldefs import (
    EMPTY_SCHEMA,
    FrozenDict,
    freeze,
    make_def,
    mcp_tool_name,
    mcp_toolset,
    register_chunks,
)

KINDS: tuple[str, ...] = ("core", "mcp", "plugin", "direct", "unregistered")


class ToolsetStatus(StrEnum):
    CONNECTED = "connected"
    SNAPSHOT = "snapshot"
    ERROR = "error"


@dataclass(frozen=True)
class ToolSpec:
    """One tool as its source names it (an MCP server's own tool name, not the exposed one)."""

    name: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=lambda: EMPTY_SCHEMA)

    def __post_init__(self) -> None:
        object.__setattr__(self, "input_schema", freeze(self.input_schema))


@dataclass(frozen=True)
class Toolset:
    """A named group of tools with its kind, status and where it came from."""

    name: str
    kind: str = "mcp"
    tools: tuple[ToolSpec, ...] = ()
    status: ToolsetStatus = ToolsetStatus.SNAPSHOT
    error: str = ""
    origin: str = ""
    server_version: str = ""

    @cached_property
    def toolset_id(self) -> str:
        """The registry toolset string: ``mcp-<server>`` for MCP, the name otherwise."""
        return mcp_toolset(self.name) if self.kind == "mcp" else self.name

    @property
    def label(self) -> str:
        """The listing label (toolset with ``mcp-`` removed; ``other`` when unregistered)."""
        if self.kind == "unregistered":
            return "other"
        tid = self.toolset_id
        return tid[4:] if tid.startswith("mcp-") else tid

    @cached_property
    def schema_tokens(self) -> int:
        """Hermes' estimate over this toolset's defs (computed once per toolset)."""
        return estimate_tokens_from_schemas(self.defs)

    def exposed_name(self, tool: ToolSpec) -> str:
        return mcp_tool_name(self.name, tool.name) if self.kind == "mcp" else tool.name

    @cached_property
    def exposed_names(self) -> tuple[str, ...]:
        """:meth:`exposed_name` of each tool, in order (worked out once per toolset: every
        detach builds a registry over all the others)."""
        return tuple(self.exposed_name(t) for t in self.tools)

    @cached_property
    def defs(self) -> tuple[FrozenDict, ...]:
        """The exposed, frozen tool defs (computed once per toolset object)."""
        return tuple(
            make_def(self.exposed_name(t), t.description, t.input_schema) for t in self.tools
        )



@dataclass(frozen=True)
class Workspace:
    """Merged toolsets of one or more sources, plus catalog-level settings."""

    name: str = ""
    toolsets: tuple[Toolset, ...] = ()
    core: frozenset[str] | None = None
    context_length: int | None = None
    tool_search: Mapping[str, Any] | None = None
    warnings: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()

    def toolset(self, name: str) -> Toolset | None:
        return next((t for t in self.toolsets if t.name == name), None)

    def resolve_toolset(self, name: str) -> Toolset | None:
        """The toolset a user means: its registry name (``mcp-docs``, what every output shows)
        or, as an alias, its source name (the bare server name ``docs``)."""
        name = name.strip()
        found = next((t for t in self.toolsets if t.toolset_id == name), None)
        return found if found is not None else self.toolset(name)

    def toolset_ids(self) -> tuple[str, ...]:
        """Every toolset's registry name, sorted (how outputs and errors name toolsets)."""
        return tuple(sorted(t.toolset_id for t in self.toolsets))

    def attached(self, detached: Iterable[str] = ()) -> tuple[Toolset, ...]:
        gone = frozenset(detached)
        return tuple(t for t in self.toolsets if t.name not in gone)

    def scoped_defs(self, detached: Iterable[str] = (),
                    scope: Iterable[str] | None = None) -> tuple[FrozenDict, ...]:
        """Defs of attached toolsets inside ``scope`` (None: all), memoised per (detached,
        scope): every session state with the same attachment gets the *same* tuple, so the
        engine's identity memo and content caches recognise it after a config change."""
        key = (frozenset(detached), None if scope is None else frozenset(scope))
        memo: dict[tuple[frozenset[str], frozenset[str] | None], tuple[FrozenDict, ...]] = \
            self.__dict__.setdefault("_defs_memo", {})
        found = memo.get(key)
        if found is None:
            if len(memo) > 32:
                memo.clear()
            chunks = tuple(ts.defs for ts in self.attached(key[0])
                           if (key[1] is None or ts.name in key[1]) and ts.defs)
            found = memo[key] = tuple(d for chunk in chunks for d in chunk)
            register_chunks(found, chunks)  # a toggle reuses the other servers' work
        return found

    def tool_defs(self, detached: Iterable[str] = ()) -> tuple[FrozenDict, ...]:
        """Defs of every attached toolset, in toolset order then tool order."""
        return tuple(d for ts in self.attached(detached) for d in ts.defs)

    def registry(self, detached: Iterable[str] = ()) -> Registry:
        """Registry over the attached toolsets (a detached server's tools are unregistered).

        Memoised per detached set: a workspace never changes, so neither does its registry.
        """
        key = frozenset(detached)
        memo: dict[frozenset[str], Registry] = self.__dict__.setdefault("_registry_memo", {})
        found = memo.get(key)
        if found is None:
            if len(memo) > 32:
                memo.clear()
            found = memo[key] = self._registry(key)
        return found

    def _registry(self, detached: frozenset[str]) -> Registry:
        """Build the registry (see :meth:`registry`).

        ``kind: core`` toolsets add their tools to the core set; a workspace-level ``core``
        list replaces the profile's default core set.
        """
        entries: dict[str, str] = {}
        extra_core: set[str] = set()
        for ts in self.attached(detached):
            if ts.kind == "unregistered":
                continue
            toolset_id = ts.toolset_id
            for name in ts.exposed_names:
                entries.setdefault(name, toolset_id)
            if ts.kind == "core":
                extra_core.update(ts.exposed_names)
        return Registry(entries, self.core, frozenset(extra_core))

    @cached_property
    def toolset_by_tool(self) -> Mapping[str, str]:
        """Exposed tool name -> toolset name (the source's name, not the registry id)."""
        return MappingProxyType(
            {ts.exposed_name(t): ts.name for ts in self.toolsets for t in ts.tools})


    @cached_property
    def toolsets_by_def_name(self) -> Mapping[str, tuple[str, ...]]:
        """Def name -> the toolsets whose defs carry it (usually one), in workspace order."""
        found: dict[str, tuple[str, ...]] = {}
        for ts in self.toolsets:
            for d in ts.defs:
                name = def_name(d)
                owners = found.get(name, ())
                if ts.name not in owners:
                    found[name] = (*owners, ts.name)
        return MappingProxyType(found)

    @cached_property
    def def_by_name(self) -> Mapping[str, Mapping[str, Any]]:
        """Exposed tool name -> its def (the first toolset wins on a repeated name)."""
        found: dict[str, Mapping[str, Any]] = {}
        for ts in self.toolsets:
            for d in ts.defs:
                found.setdefault(d["function"]["name"], d)
        return MappingProxyType(found)



def merge_workspaces(parts: Sequence[Workspace]) -> Workspace:
    """Merge several sources: toolsets concatenated (a repeated name keeps the first and warns);
    the first non-empty context length, core override and tool_search block win (a context
    length or core list set otherwise by a later SOURCE warns)."""
    toolsets: list[Toolset] = []
    seen: set[str] = set()
    warnings: list[str] = []
    for part in parts:
        warnings.extend(part.warnings)
        for ts in part.toolsets:
            if ts.name in seen:
                warnings.append(
                    f"{part.name or 'source'}: toolset {ts.name!r} already loaded; "
                    "kept the first one"
                )
                continue
            seen.add(ts.name)
            toolsets.append(ts)
    warnings.extend(_ignored_setting(parts, "core list", lambda p: p.core))
    warnings.extend(_ignored_setting(parts, "context_length", lambda p: p.context_length or None))
    return Workspace(
        name="+".join(p.name for p in parts if p.name),
        toolsets=tuple(toolsets),
        core=next((p.core for p in parts if p.core is not None), None),
        context_length=next((p.context_length for p in parts if p.context_length), None),
        tool_search=next((p.tool_search for p in parts if p.tool_search is not None), None),
        warnings=tuple(warnings),
        origins=tuple(o for p in parts for o in p.origins),
    )


def _ignored_setting(parts: Sequence[Workspace], what: str,
                     value: Callable[[Workspace], object]) -> list[str]:
    """A warning for each SOURCE whose *what* (a catalog's ``core`` or ``context_length``)
    is not the one in force: the first SOURCE that sets it wins, and another value in a later
    file was dropped without a word. Worded as an ignored ``tool_search`` block is; the same
    value again, or the same file given twice, says nothing."""
    having = [(part.origins[0] if part.origins else part.name, value(part)) for part in parts
              if value(part) is not None]
    if len(having) < 2:
        return []
    names = {origin: os.path.basename(origin) or origin for origin, _ in having}
    if len(set(names.values())) < len(names):  # a/cat.yaml and b/cat.yaml: in full
        names = {origin: origin for origin in names}
    used, kept = having[0]
    return [f"{what} in {names[origin]} ignored; using {names[used]}'s"
            for origin, given in having[1:]
            if given != kept and os.path.realpath(origin) != os.path.realpath(used)]
