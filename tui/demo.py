"""The scripted demo: a short session whose bridge calls resolve to real tools of the workspace.

search → describe → a blind call (the schema comes back) → the repaired call → a call outside
a narrowed session scope → the recursion guard → a successful call of the described tool.
Planning is pure; the app plays the steps through the feed on the dry-run executor, so the
demo never runs anything for real.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolsearch.classify import def_name
from toolsearch.listing import short_description
from toolsearch.session import SessionState
from toolsearch.tooldefs import def_function
from toolsearch.toolsets import ToolsetStatus


@dataclass(frozen=True)
class DemoStep:
    title: str
    bridge: str
    args: Mapping[str, Any]
    scope: frozenset[str] | None = None
    """A narrowed session scope for this step only (the scoped rejection)."""


def example_value(name: str, schema: Any) -> Any:
    """A plausible value for one parameter, from its schema (enum first, then its type)."""
    schema = schema if isinstance(schema, Mapping) else {}
    enum = schema.get("enum")
    if isinstance(enum, list | tuple) and enum:
        return enum[0]
    kind = schema.get("type")
    if isinstance(kind, list | tuple):
        kind = next((k for k in kind if k != "null"), "string")
    lowered = name.lower()
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return {}
    if "url" in lowered or "uri" in lowered or "link" in lowered:
        return "https://example.com"
    if "query" in lowered or "search" in lowered:
        return "tool search demo"
    if "id" in lowered:
        return "demo-1"
    return f"demo {name}"


def required_args(tool_def: Mapping[str, Any]) -> tuple[list[str], dict[str, Any]]:
    params = def_function(tool_def).get("parameters")
    if not isinstance(params, Mapping):
        return [], {}
    props = params.get("properties") if isinstance(params.get("properties"), Mapping) else {}
    required = [r for r in (params.get("required") or ()) if isinstance(r, str)]
    return required, {r: example_value(r, props.get(r)) for r in required}


def query_for(name: str) -> str:
    """Words of the tool's own name (server prefix dropped): 'firecrawl scrape'."""
    parts = name.split("__")
    words = parts[-1] if len(parts) >= 3 else name
    server = parts[1] if len(parts) >= 3 else ""
    text = re.sub(r"[_.:-]+", " ", f"{server} {words}").strip()
    return text or name


def demo_query(session: SessionState, target: Mapping[str, Any]) -> str:
    """A query that finds ``target``: its first sentence if that ranks it in the top hits (as a
    model would paraphrase it), else the words of its own name."""
    name = def_name(target)
    sentence = short_description(def_function(target).get("description") or "").rstrip(".…")
    bridge = session.bridge()
    limit = session.config.search_default_limit
    for query in (sentence, query_for(name)):
        if query and any(h.name == name for h in bridge.search_hits(query, limit)[0]):
            return query
    return query_for(name)


def _pick(session: SessionState) -> tuple[Mapping[str, Any], Mapping[str, Any] | None] | None:
    a = session.assembly
    split = a.classification
    if not a.activated or split is None or not split.deferrable:
        return None
    deferred = list(split.deferrable)
    with_required = [d for d in deferred if required_args(d)[0]]
    preferred = [d for d in with_required if "scrape" in def_name(d)]
    target = (preferred or with_required or deferred)[0]
    toolset = session.toolset_of.get(def_name(target))
    others = [d for d in deferred if session.toolset_of.get(def_name(d)) != toolset]
    return target, (others[0] if others else None)


def plan_demo(session: SessionState) -> tuple[DemoStep, ...]:
    """The steps for this session; empty when nothing is deferred (nothing to demo)."""
    picked = _pick(session)
    if picked is None:
        return ()
    target, other = picked
    name = def_name(target)
    toolset = session.toolset_of.get(name, "")
    required, filled = required_args(target)
    query = demo_query(session, target)
    steps = [
        DemoStep(f"search for '{query}'", "tool_search", {"query": query}),
        DemoStep(f"load the schema of {name}", "tool_describe", {"name": name}),
    ]
    if required:
        steps.append(DemoStep("a blind call without arguments: the schema comes back",
                              "tool_call", {"name": name, "arguments": {}}))
        steps.append(DemoStep("the call repaired from the schema reply", "tool_call",
                              {"name": name, "arguments": filled}))
    if other is not None:
        steps.append(DemoStep(f"scope narrowed to '{toolset}': a tool of another server is "
                              "refused", "tool_call",
                              {"name": def_name(other), "arguments": required_args(other)[1]},
                              scope=frozenset({toolset})))
    else:
        rest = frozenset(t.name for t in session.workspace.toolsets if t.name != toolset)
        if rest:  # one server: the scope keeps everything else, and its tool is refused
            shown = ", ".join(sorted(rest)[:2]) + (" \u2026" if len(rest) > 2 else "")
            steps.append(DemoStep(f"scope narrowed to {shown} (without '{toolset}'): its "
                                  "tool is refused", "tool_call",
                                  {"name": name, "arguments": filled}, scope=rest))
    steps.append(DemoStep("tool_call may not reach a bridge tool: the recursion guard",
                          "tool_call", {"name": "tool_search", "arguments": {"query": query}}))
    steps.append(DemoStep(f"a successful call of {name}", "tool_call",
                          {"name": name, "arguments": filled}))
    return tuple(steps)


def demo_note(session: SessionState, reply: Any, note: str) -> str:
    """The feed's note for a demo call: the demo records calls and never runs them, whether
    the server is live or a snapshot, and says which."""
    result = getattr(reply, "result", None)
    if not (isinstance(result, Mapping) and result.get("dry_run")):
        return note
    tool = getattr(getattr(reply, "activity", None), "tool", None) or ""
    owner = session.toolset_of.get(str(tool))
    ts = next((t for t in session.workspace.toolsets if t.name == owner), None)
    where = "snapshot source" if ts is None or ts.status is not ToolsetStatus.CONNECTED else \
        f"'{ts.name}' is live, the demo never runs a call"
    return f"dry run: recorded, not executed ({where})"
