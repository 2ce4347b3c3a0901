"""Checks every tool entry gets, wherever it came from (a catalog file, a dump or a live
server): text that cannot be encoded, schemas nested past what anything downstream can walk.
The other checks (size limits, types) live with the catalog reader, which applies them to
live tools too (:func:`toolsearch.sources.live.checked_specs`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from toolsearch.textsafe import has_lone_surrogate, has_unsafe, shown
from toolsearch.toolsets import Workspace

#: Deepest schema accepted (objects and arrays counted). Real schemas stay under ~12.
MAX_SCHEMA_DEPTH = 64
#: Most nodes a schema may have (its JSON text is separately limited to 1 MiB).
MAX_SCHEMA_NODES = 200_000


def schema_problem(schema: Any, key: str = "inputSchema") -> str:
    """Why *schema* cannot be used ("" when it can): too deep, too many nodes, a lone
    surrogate in a key or string. Iterative, so any depth is safe to check."""
    stack: list[tuple[Any, int]] = [(schema, 1)]
    nodes = 0
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if nodes > MAX_SCHEMA_NODES:
            return f"{key} has too many nodes (over {MAX_SCHEMA_NODES:,})"
        if isinstance(value, Mapping):
            if depth > MAX_SCHEMA_DEPTH:
                return f"{key} is nested too deeply (over {MAX_SCHEMA_DEPTH} levels)"
            for k, v in value.items():
                if isinstance(k, str) and has_lone_surrogate(k):
                    return f"{key} is not valid Unicode (a lone surrogate in a key)"
                stack.append((v, depth + 1))
        elif isinstance(value, list | tuple):
            if depth > MAX_SCHEMA_DEPTH:
                return f"{key} is nested too deeply (over {MAX_SCHEMA_DEPTH} levels)"
            stack.extend((v, depth + 1) for v in value)
        elif isinstance(value, str) and has_lone_surrogate(value):
            return f"{key} is not valid Unicode (a lone surrogate)"
    return ""


def entry_problem(*, name: Any = None, description: Any = None, schema: Any = None,
                  schema_key: str = "") -> str:
    """The first problem of a tool entry's name, description or schema ("" when none)."""
    if isinstance(name, str) and has_lone_surrogate(name):
        return "name is not valid Unicode (a lone surrogate)"
    if isinstance(name, str) and has_unsafe(name):
        return f"name holds control characters ({shown(name[:40], one_line=True)!r})"
    if isinstance(description, str) and has_lone_surrogate(description):
        return "description is not valid Unicode (a lone surrogate)"
    if schema is not None:
        return schema_problem(schema, schema_key or "inputSchema")
    return ""


def without_collisions(workspace: Workspace) -> Workspace:
    """Tools whose exposed name another toolset already holds (``a-b`` and ``a_b`` both become
    ``mcp__a_b__...`` once sanitised) are dropped from the later toolset, with a warning for
    every collision, so ``tool_defs`` never holds a name twice."""
    owner: dict[str, str] = {}
    ids: dict[str, str] = {}
    warnings: list[str] = []
    toolsets = []
    changed = False
    for ts in workspace.toolsets:
        if ts.toolset_id in ids and ids[ts.toolset_id] != ts.name:
            warnings.append(f"toolset {ts.name!r}: its id {ts.toolset_id!r} is also the id of "
                            f"toolset {ids[ts.toolset_id]!r} (names equal once sanitised)")
        ids.setdefault(ts.toolset_id, ts.name)
        kept = []
        for tool in ts.tools:
            exposed = ts.exposed_name(tool)
            if exposed in owner:
                warnings.append(f"toolset {ts.name!r}: tool {tool.name!r} skipped: exposed name "
                                f"{exposed!r} already belongs to toolset {owner[exposed]!r}")
                continue
            owner[exposed] = ts.name
            kept.append(tool)
        if len(kept) != len(ts.tools):
            changed = True
            ts = replace(ts, tools=tuple(kept))
        toolsets.append(ts)
    if not changed and not warnings:
        return workspace
    return replace(workspace, toolsets=tuple(toolsets),
                   warnings=(*workspace.warnings, *warnings))
