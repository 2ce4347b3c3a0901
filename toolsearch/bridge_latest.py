"""The ``latest`` (G3) bridge: batched ``queries`` / ``names`` / ``calls`` (REFERENCE §12).

:class:`~toolsearch.bridge.Bridge` hands every call to :func:`dispatch_latest` when its config
has ``profile == "latest"``. Search, describe and call shapes, caps and error strings follow
REFERENCE §12; the scope gate and the executor are the seed bridge's; ``tool_call`` adds the
G3 argument validation of :mod:`toolsearch.validation`. Connectors are out of scope: a
``connectors__`` name is simply unknown here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .bm25 import Hit, search_catalog
from .catalog import build_catalog
from .classify import BRIDGE_TOOL_NAMES, decide, def_name
from .listing import Unavailable
from .regex_guard import take_skipped_note
from .tooldefs import def_function, thaw
from .validation import parameters_of, validate_call_args

if TYPE_CHECKING:
    from .bridge import Bridge, BridgeReply

_MAX_QUERIES_PER_CALL = 7
_MAX_DESCRIBE_NAMES_PER_CALL = 10
DESCRIPTION_CLIP = 500
REQUIRED_MAX = 32
REQUIRED_ENTRY_MAX = 64
ECHO_ARGS_MAX = 1500
DID_YOU_MEAN_MAX = 5
CONNECTOR_PREFIX = "connectors__"

ZERO_HIT_HINT = (
    "This query returned no lexical matches, but the sources listed in available_sources "
    "remain available. Retry with the service name plus a concrete action and object (for "
    "example 'github create issue'), one capability per query, before concluding the "
    "capability is missing."
)
NOT_FOUND_HINT = "Names in not_found are not currently available. Re-run tool_search to refresh."


def _err(message: str, **extra: Any) -> dict[str, Any]:
    return {"error": message, **extra}


def _reply(result: Any, bridge: str, tool: str | None, outcome: str, arguments: Any,
           summary: str = "", hits: tuple[Hit, ...] = ()) -> BridgeReply:
    from .bridge import ActivityEvent, BridgeReply

    shown = arguments if isinstance(arguments, Mapping) else {}
    return BridgeReply(result, ActivityEvent(bridge, tool, outcome, shown, 0.0, summary), hits)


async def dispatch_latest(bridge: Bridge, bridge_name: str, args: Mapping[str, Any]
                          ) -> BridgeReply:
    """Run one G3 bridge call (the caller times it and fills in ``ms``)."""
    if bridge_name == "tool_search":
        return search(bridge, args)
    if bridge_name == "tool_describe":
        return describe(bridge, args)
    if bridge_name == "tool_call":
        return await call(bridge, args)
    return _reply(_err(f"'{bridge_name}' is not a bridge tool "
                       "(expected tool_search, tool_describe or tool_call)"),
                  bridge_name, None, "invalid", args)


# --------------------------------------------------------------------------- shared helpers


def string_list(raw: Any, what: str, cap: int, retry: str, *, dedupe: bool = False
                ) -> tuple[list[str], str | None]:
    """``queries`` / ``names``: a bare string is one item; items stripped, blanks dropped
    (and, for names, duplicates dropped before the cap is checked)."""
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list | tuple):
        return [], f"{what} is required and must be an array of strings"
    items = [str(x or "").strip() for x in raw]
    items = [x for x in items if x]
    if dedupe:
        items = list(dict.fromkeys(items))
    if not items:
        return [], f"{what} is required and must contain at least one non-empty string"
    if len(items) > cap:
        return [], f"too many {what}: {len(items)} > max {cap}. {retry}"
    return items, None


def clip_description(text: str) -> str:
    return text if len(text) <= DESCRIPTION_CLIP else text[:DESCRIPTION_CLIP] + "\u2026"


def required_of(tool_def: Any) -> list[str]:
    """Up to 32 string ``required`` entries, each cut to 64 characters ([] when malformed)."""
    params = parameters_of(tool_def)
    required = params.get("required") if params is not None else None
    if not isinstance(required, list | tuple):
        return []
    return [r[:REQUIRED_ENTRY_MAX] for r in required if isinstance(r, str)][:REQUIRED_MAX]


def normalize_name(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def is_known(bridge: Bridge, name: str) -> bool:
    """The normalised name is a core tool or has a registry entry."""
    norm = normalize_name(name)
    registry = bridge.registry
    return norm in registry.core_for(bridge.config.profile) or \
        registry.toolset_of(norm) is not None


def not_deferrable_error(bridge: Bridge, name: str) -> tuple[str, str]:
    """G3 rejection wording for a name that is not deferrable: ``(message, outcome)``."""
    norm = normalize_name(name)
    registry = bridge.registry
    if is_known(bridge, name):
        session = {def_name(d) for d in bridge.session_defs}
        if norm not in session:
            return (f"'{norm}' is not available in this session: its toolset is disabled or "
                    "hidden, or its requirements are not met. Do not retry it."), "not_available"
        return (f"'{norm}' is a directly-listed tool, not a deferred one. Call it directly "
                "instead of via tool_call."), "not_deferrable"
    message = (f"'{name}' is not a known tool name. Deferred tools must be invoked through "
               "tool_call by the exact name tool_search returns (e.g. mcp__<server>__<tool>).")
    suffixes = {f"__{name}", f"__{norm}"}
    similar = sorted(n for n in registry.names() if any(n.endswith(s) for s in suffixes))
    if similar:
        quoted = ", ".join(f"'{n}'" for n in similar[:DID_YOU_MEAN_MAX])
        return f"{message} Did you mean {quoted}?", "not_deferrable"
    return f"{message} Use tool_search to find the exact name.", "not_deferrable"


def _deferrable(bridge: Bridge, name: str) -> bool:
    return decide(name, bridge.registry, defer_tools=bridge.config.effective_defer_tools,
                  profile=bridge.config.profile).deferrable


# --------------------------------------------------------------------------- tool_search


def _unavailable_source(server: Unavailable) -> dict[str, Any]:
    return {"name": server.name, "tool_count": server.tools,
            "unavailable": f"The '{server.name}' MCP server is configured but unavailable "
                           f"right now ({server.reason}); its tools cannot be called until it "
                           "reconnects."}


def search(bridge: Bridge, args: Mapping[str, Any]) -> BridgeReply:
    from .bridge import available_sources, clamp_limit

    queries, error = string_list(args.get("queries"), "queries", _MAX_QUERIES_PER_CALL,
                                 "Retry with fewer, more targeted queries.")
    if error is not None:
        return _reply(_err(error), "tool_search", None, "invalid", args)
    limit = clamp_limit(args.get("limit"), bridge.config)
    defs = bridge.deferrable_defs
    catalog = build_catalog(defs, bridge.registry, "latest")
    sources: list[dict[str, Any]] | None = None
    groups: list[dict[str, Any]] = []
    tools: dict[str, dict[str, Any]] = {}
    all_hits: list[Hit] = []
    for query in queries:
        hits = search_catalog(catalog, query, limit)
        all_hits.extend(hits)
        group: dict[str, Any] = {"query": query, "matches": [h.name for h in hits]}
        for hit in hits:
            if hit.name not in tools:
                entry = hit.entry
                tools[hit.name] = {
                    "source": entry.source,
                    "source_name": entry.source_name,
                    "description": clip_description(entry.description),
                    "required": required_of(entry.schema),
                }
        if not hits:
            if sources is None:
                sources = available_sources(defs, bridge.registry, "latest")
                sources = sorted(sources + [_unavailable_source(u) for u in bridge.unavailable],
                                 key=lambda s: s["name"])
            if sources:
                group["available_sources"] = sources
                group["hint"] = ZERO_HIT_HINT
        groups.append(group)
    result = {"queries": queries, "total_available": len(catalog), "results": groups,
              "tools": tools}
    summary = "; ".join(f"{len(g['matches'])} match(es) for {g['query']!r}" for g in groups)
    return _reply(result, "tool_search", None, "ok", args, summary, tuple(all_hits))


# --------------------------------------------------------------------------- tool_describe


def describe(bridge: Bridge, args: Mapping[str, Any]) -> BridgeReply:
    names, error = string_list(args.get("names"), "names", _MAX_DESCRIBE_NAMES_PER_CALL,
                               "Retry with fewer names per call.", dedupe=True)
    if error is not None:
        return _reply(_err(error), "tool_describe", None, "invalid", args)
    session = {def_name(d): d for d in bridge.deferrable_defs}
    tools: dict[str, Any] = {}
    not_found: list[str] = []
    errors: dict[str, str] = {}
    outcomes: list[str] = []
    for name in names:
        try:
            if name in session:
                fn = def_function(session[name])
                params = fn.get("parameters")
                tools[name] = {"description": fn.get("description") or "",
                               "parameters": thaw(params) if params is not None else {}}
                outcomes.append("ok")
            elif _deferrable(bridge, name):
                not_found.append(name)
                outcomes.append("not_available")
            elif is_known(bridge, name):
                errors[name], outcome = not_deferrable_error(bridge, name)
                outcomes.append(outcome)
            else:
                not_found.append(name)
                outcomes.append("not_available")
        except Exception:  # a registry lookup failure is a not_found, never a failed batch
            not_found.append(name)
            outcomes.append("not_available")
    result: dict[str, Any] = {"tools": tools}
    if not_found:
        result["not_found"] = not_found
        result["hint"] = NOT_FOUND_HINT
    if errors:
        result["errors"] = errors
    outcome = "ok" if tools else next((o for o in outcomes if o != "ok"), "not_available")
    summary = f"{len(tools)} described, {len(not_found)} not found, {len(errors)} rejected"
    return _reply(result, "tool_describe", names[0], outcome, args, summary)


# --------------------------------------------------------------------------- tool_call


def _parse_arguments(raw: Any, index: int) -> tuple[dict[str, Any] | None, str | None]:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            return None, f"tool_call calls[{index}].arguments is not valid JSON: {exc}"
    if not isinstance(raw, Mapping):
        return None, f"tool_call calls[{index}].arguments must be an object"
    return thaw(raw), None


def normalize_calls(args: Mapping[str, Any]
                    ) -> tuple[list[tuple[str, dict[str, Any]]], str | None, str]:
    """``calls`` (or the legacy ``{name, arguments}``) -> ``(entries, error, outcome)``."""
    raw = args.get("calls")
    if raw is None:
        if args.get("name") is None:
            return [], "tool_call requires 'calls' (an array of {name, arguments})", "invalid"
        raw = [{"name": args.get("name"), "arguments": args.get("arguments")}]
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            return [], f"tool_call 'calls' is not valid JSON: {exc}", "invalid"
    if isinstance(raw, Mapping):
        raw = [raw]
    if not isinstance(raw, list | tuple) or not raw:
        return [], "tool_call 'calls' must be a non-empty array of {name, arguments}", "invalid"
    entries: list[tuple[str, dict[str, Any]]] = []
    for i, item in enumerate(raw):
        if not isinstance(item, Mapping):
            return [], f"tool_call calls[{i}] must be an object with 'name' and 'arguments'", \
                "invalid"
        name = str(item.get("name") or "").strip()
        if not name:
            return [], f"tool_call calls[{i}] requires a 'name'", "invalid"
        if name in BRIDGE_TOOL_NAMES:
            return [], f"tool_call cannot invoke '{name}' (it is itself a bridge tool)", \
                "recursion"
        arguments, error = _parse_arguments(item.get("arguments"), i)
        if error is not None or arguments is None:
            return [], error, "invalid"
        entries.append((name, arguments))
    return entries, None, "ok"


def local_batch_error(entries: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    name, arguments = entries[0]
    args_text = json.dumps(thaw(arguments), ensure_ascii=False)
    if len(args_text) > ECHO_ARGS_MAX:
        args_text = "{...}"
    echo = f'{{"name": {json.dumps(name, ensure_ascii=False)}, "arguments": {args_text}}}'
    n = len(entries)
    return (f"tool_call takes exactly one entry for local tools; you sent {n}. Retry with "
            f"only: {echo} then issue the remaining {n - 1} call(s) as separate tool_call "
            "invocations. Only connectors__ names may be batched together.")


def _first_name(args: Mapping[str, Any]) -> str | None:
    raw = args.get("calls")
    if isinstance(raw, Mapping):
        raw = [raw]
    if isinstance(raw, list | tuple) and raw and isinstance(raw[0], Mapping):
        return str(raw[0].get("name") or "").strip() or None
    if raw is None:
        return str(args.get("name") or "").strip() or None
    return None


async def call(bridge: Bridge, args: Mapping[str, Any]) -> BridgeReply:
    entries, error, outcome = normalize_calls(args)
    if error is not None:
        return _reply(_err(error), "tool_call", _first_name(args), outcome, args)
    name, arguments = entries[0]
    if len(entries) > 1:
        if all(n.startswith(CONNECTOR_PREFIX) for n, _ in entries):
            message, outcome = not_deferrable_error(bridge, name)
        else:
            message, outcome = local_batch_error(entries), "invalid"
        return _reply(_err(message), "tool_call", name, outcome, arguments)
    if not _deferrable(bridge, name):
        message, outcome = not_deferrable_error(bridge, name)
        return _reply(_err(message), "tool_call", name, outcome, arguments)
    if name not in bridge.scoped_names():
        result, outcome = await bridge.run_underlying(name, arguments)  # the scope-gate error
        return _reply(result, "tool_call", name, outcome, arguments)
    schemas = {def_name(d): d for d in bridge.session_defs}
    rejected, kind = validate_call_args(name, arguments, schemas)
    note = take_skipped_note()  # a pattern too risky to run: failed open, said so
    if rejected is not None:
        outcome = "missing_args" if kind == "missing" else "invalid"
        return _reply(rejected, "tool_call", name, outcome, arguments, note)
    result, outcome = await bridge.run_underlying(name, arguments)
    return _reply(result, "tool_call", name, outcome, arguments, note)
