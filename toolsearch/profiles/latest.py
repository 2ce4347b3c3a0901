"""``latest``: Hermes' newest generation (G3, REFERENCE §12–13).

Batched ``queries`` / ``names`` / ``calls`` bridge arguments with their caps and error strings,
Snowball-stemmed retrieval with exact-name-first, the rarest-token gate and the relevance floor,
the curated ``defer`` list, JSON-schema argument validation and argument coercion (the tool
receives the coerced arguments), ``max_search_limit`` 25, and declared-but-unavailable MCP
servers named in the listing and in zero-hit ``available_sources``. The scope gate and the
executor are the session bridge's. Connectors are out of scope: a ``connectors__`` name is
simply unknown here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..bm25 import GatedBm25Retrieval, Hit
from ..catalog import labelled_search_text, stemmed_words
from ..classify import (
    BRIDGE_TOOL_NAMES,
    DIRECT_SURFACE_TOOLSETS,
    HERMES_CORE_TOOLS,
    Registry,
    RegistryLike,
    as_registry,
    decide,
    def_name,
)
from ..coercion import coerce_arguments
from ..listing import Unavailable, sentence_short_description
from ..profile import Profile
from ..regex_guard import take_skipped_note
from ..replies import BridgeReply, available_sources, clamp_limit, not_a_bridge, reply
from ..schemas import LATEST_SEARCH_BASE, batched_bridge_schemas
from ..tooldefs import FrozenDict, def_function, thaw
from ..validation import parameters_of, validate_call_args

if TYPE_CHECKING:
    from ..bridge import Bridge
    from ..config import ToolSearchConfig

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
    if not summary and isinstance(result, Mapping) and "error" in result:
        summary = str(result["error"])
    return reply(result, bridge, tool, outcome, arguments, summary, hits)


class LatestBridge:
    """G3 dispatch (REFERENCE §12–13)."""

    def schemas(self, search_description: str) -> tuple[FrozenDict, ...]:
        return batched_bridge_schemas(search_description)

    async def dispatch(self, bridge: Bridge, bridge_name: str, args: Mapping[str, Any]
                       ) -> BridgeReply:
        if bridge_name == "tool_search":
            return search(bridge, args)
        if bridge_name == "tool_describe":
            return describe(bridge, args)
        if bridge_name == "tool_call":
            return await call(bridge, args)
        return not_a_bridge(bridge_name, args)

    def resolve_call(self, args: Any, registry: RegistryLike | None, config: ToolSearchConfig
                     ) -> tuple[str | None, dict[str, Any], str | None]:
        """The public resolver with the bridge's rules (REFERENCE §13): the ``calls`` batch
        and the legacy shape, blank arguments as ``{}``, the G3 rejection wording."""
        entries, error, _outcome = normalize_calls(args if isinstance(args, Mapping) else {})
        if error is not None:
            return None, {}, error
        reg = as_registry(registry)
        name, arguments = entries[0]
        if len(entries) > 1 and not all(n.startswith(CONNECTOR_PREFIX) for n, _ in entries):
            return None, {}, local_batch_error(entries)
        if len(entries) > 1 or not _deferrable(reg, config, name):
            return None, {}, not_deferrable_error(reg, config, name)[0]
        return name, arguments, None


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


def is_known(registry: Registry, config: ToolSearchConfig, name: str) -> bool:
    """The normalised name is a core tool or has a registry entry."""
    norm = normalize_name(name)
    return norm in registry.core_for(config.profile) or registry.toolset_of(norm) is not None


def not_deferrable_error(registry: Registry, config: ToolSearchConfig, name: str,
                         session_defs: Sequence[Mapping[str, Any]] | None = None
                         ) -> tuple[str, str]:
    """G3 rejection wording for a name that is not deferrable: ``(message, outcome)``.

    With the session's tool list, a known name missing from it is "not available in this
    session"; without one (the public resolver) a known name is "directly-listed"."""
    norm = normalize_name(name)
    if is_known(registry, config, name):
        session = None if session_defs is None else {def_name(d) for d in session_defs}
        if session is not None and norm not in session:
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


def _deferrable(registry: Registry, config: ToolSearchConfig, name: str) -> bool:
    return decide(name, registry, defer_tools=config.effective_defer_tools,
                  profile=config.profile).deferrable


# --------------------------------------------------------------------------- tool_search


def _unavailable_source(server: Unavailable) -> dict[str, Any]:
    return {"name": server.name, "tool_count": server.tools,
            "unavailable": f"The '{server.name}' MCP server is configured but unavailable "
                           f"right now ({server.reason}); its tools cannot be called until it "
                           "reconnects."}


def search(bridge: Bridge, args: Mapping[str, Any]) -> BridgeReply:
    queries, error = string_list(args.get("queries"), "queries", _MAX_QUERIES_PER_CALL,
                                 "Retry with fewer, more targeted queries.")
    if error is not None:
        return _reply(_err(error), "tool_search", None, "invalid", args)
    limit = clamp_limit(args.get("limit"), bridge.config)
    defs = bridge.deferrable_defs
    catalog = bridge.catalog
    sources: list[dict[str, Any]] | None = None
    groups: list[dict[str, Any]] = []
    tools: dict[str, dict[str, Any]] = {}
    all_hits: list[Hit] = []
    for query in queries:
        hits = bridge.config.profile.search(catalog, query, limit)
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
                sources = available_sources(defs, bridge.registry, bridge.config.profile)
                sources = sorted(sources + [_unavailable_source(u) for u in bridge.unavailable],
                                 key=lambda s: s["name"])
            if sources:
                group["available_sources"] = sources
                group["hint"] = ZERO_HIT_HINT
        groups.append(group)
    result = {"queries": queries, "total_available": len(catalog), "results": groups,
              "tools": tools}
    summary = "; ".join(f"{len(g['matches'])} match(es) for {g['query']!r}"
                        + (": " + ", ".join(g["matches"]) if g["matches"] else "")
                        for g in groups)
    return _reply(result, "tool_search", None, "ok", args, summary, tuple(all_hits))


# --------------------------------------------------------------------------- tool_describe


def describe(bridge: Bridge, args: Mapping[str, Any]) -> BridgeReply:
    names, error = string_list(args.get("names"), "names", _MAX_DESCRIBE_NAMES_PER_CALL,
                               "Retry with fewer names per call.", dedupe=True)
    if error is not None:
        return _reply(_err(error), "tool_describe", None, "invalid", args)
    session = bridge.deferrable_by_name
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
            elif _deferrable(bridge.registry, bridge.config, name):
                not_found.append(name)
                outcomes.append("not_available")
            elif is_known(bridge.registry, bridge.config, name):
                errors[name], outcome = not_deferrable_error(bridge.registry, bridge.config,
                                                             name, bridge.session_defs)
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
    registry, config = bridge.registry, bridge.config
    if len(entries) > 1:
        if all(n.startswith(CONNECTOR_PREFIX) for n, _ in entries):
            message, outcome = not_deferrable_error(registry, config, name, bridge.session_defs)
        else:
            message, outcome = local_batch_error(entries), "invalid"
        return _reply(_err(message), "tool_call", name, outcome, arguments)
    if not _deferrable(registry, config, name):
        message, outcome = not_deferrable_error(registry, config, name, bridge.session_defs)
        return _reply(_err(message), "tool_call", name, outcome, arguments)
    if name not in bridge.scoped_names():
        result, outcome = await bridge.run_underlying(name, arguments)  # the scope-gate error
        return _reply(result, "tool_call", name, outcome, arguments)
    schemas = bridge.session_defs_by_name
    rejected, kind = validate_call_args(name, arguments, schemas)
    note = take_skipped_note()  # a pattern too risky to run: failed open, said so
    if rejected is not None:
        outcome = "missing_args" if kind == "missing" else "invalid"
        return _reply(rejected, "tool_call", name, outcome, arguments, note)
    # Hermes coerces before every call: the tool receives the coerced arguments (§13)
    coerced = coerce_arguments(arguments, parameters_of(schemas.get(name)))
    result, outcome = await bridge.run_underlying(name, coerced)
    return _reply(result, "tool_call", name, outcome, coerced, note)


PROFILE = Profile(
    name="latest",
    order=1,
    plain="Hermes today",
    summary="later Hermes: batched queries/names/calls, stemmed search that drops weak "
            "matches (rarest-word gate, relevance floor)",
    defaults={"max_search_limit": 25},
    has_defer_list=True,
    core_tools=HERMES_CORE_TOOLS,
    direct_surface_toolsets=DIRECT_SURFACE_TOOLSETS,
    tokenize=stemmed_words,
    search_text=labelled_search_text,
    owner_names_source=True,
    retrieval=GatedBm25Retrieval(),
    short_description=sentence_short_description,
    lists_unavailable=True,
    search_base=LATEST_SEARCH_BASE,
    bridge=LatestBridge(),
)
