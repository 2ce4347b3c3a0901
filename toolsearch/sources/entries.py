"""Checks every tool entry gets, wherever it came from (a catalog file, a dump or a live
server): text that cannot be encoded, schemas nested past what anything downstream can walk.
The other checks (size limits, types) live with the catalog reader, which applies them to
live tools too (:func:`toolsearch.sources.live.checked_specs`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolsearch.textsafe import has_lone_surrogate

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
    if isinstance(description, str) and has_lone_surrogate(description):
        return "description is not valid Unicode (a lone surrogate)"
    if schema is not None:
        return schema_problem(schema, schema_key or "inputSchema")
    return ""
