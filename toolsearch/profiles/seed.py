"""``seed``: Hermes as the seed documents describe it (G1).

Single ``query`` / ``name`` bridge arguments, BM25 (k1 1.5, b 0.75) with the 0.1 name-substring
fallback, core tools never deferred (with the pre-rename core names), ``max_search_limit`` 20,
no defer list, the G1 describe and call rules (REFERENCE §1–9).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..bm25 import Bm25Retrieval
from ..catalog import seed_search_text, words
from ..classify import (
    BRIDGE_TOOL_NAMES,
    HERMES_CORE_TOOLS,
    SEED_DIRECT_SURFACE_TOOLSETS,
    SEED_ERA_CORE_ALIASES,
    RegistryLike,
    decide,
)
from ..listing import seed_short_description
from ..profile import Profile
from ..replies import (
    BridgeReply,
    available_sources,
    clamp_limit,
    error_summary,
    not_a_bridge,
    reply,
    tool_error,
)
from ..schemas import SEARCH_BASE, seed_bridge_schemas
from ..tooldefs import FrozenDict, def_function, thaw

if TYPE_CHECKING:
    from ..bridge import Bridge
    from ..config import ToolSearchConfig

DESCRIPTION_CLIP = 400
ZERO_HIT_HINT = (
    "No tool matched this query lexically, but the sources listed in available_sources "
    "remain available. Retry tool_search with the service name plus a concrete action "
    "(for example 'github create issue') before concluding the capability is missing."
)
NOT_DEFERRABLE_CALL = ("'{name}' is not a deferrable tool. If it appears in the model-facing "
                       "tools list already, call it directly instead of via tool_call.")
NOT_DEFERRABLE_DESCRIBE = ("'{name}' is not a deferrable tool. If you see it in the tools list "
                           "already, call it directly; otherwise check the spelling against "
                           "tool_search.")


def _deferrable(name: str, registry: RegistryLike | None, config: ToolSearchConfig) -> bool:
    return decide(name, registry, defer_tools=config.effective_defer_tools,
                  profile=config.profile).deferrable


class SeedBridge:
    """G1 dispatch (REFERENCE §8–9)."""

    def schemas(self, search_description: str) -> tuple[FrozenDict, ...]:
        return seed_bridge_schemas(search_description)

    async def dispatch(self, bridge: Bridge, bridge_name: str, args: Mapping[str, Any]
                       ) -> BridgeReply:
        if bridge_name == "tool_search":
            return self.search(bridge, args)
        if bridge_name == "tool_describe":
            return self.describe(bridge, args)
        if bridge_name == "tool_call":
            return await self.call(bridge, args)
        return not_a_bridge(bridge_name, args)

    def resolve_call(self, args: Any, registry: RegistryLike | None, config: ToolSearchConfig
                     ) -> tuple[str | None, dict[str, Any], str | None]:
        args = args if isinstance(args, Mapping) else {}
        name = str(args.get("name") or "").strip()
        if not name:
            return None, {}, "tool_call requires a 'name' argument"
        if name in BRIDGE_TOOL_NAMES:
            return None, {}, f"tool_call cannot invoke '{name}' (it is itself a bridge tool)"
        raw = args.get("arguments")
        parsed: Any = {} if raw is None else raw
        if isinstance(raw, str):
            try:
                parsed = json.loads(raw)
            except json.JSONDecodeError as exc:
                return None, {}, f"tool_call 'arguments' is not valid JSON: {exc}"
        if not isinstance(parsed, Mapping):
            return None, {}, "tool_call 'arguments' must be an object"
        if not _deferrable(name, registry, config):
            return None, {}, NOT_DEFERRABLE_CALL.format(name=name)
        return name, thaw(parsed), None

    # -- tool_search -----------------------------------------------------------------

    def search(self, bridge: Bridge, args: Mapping[str, Any]) -> BridgeReply:
        query = str(args.get("query") or "").strip()
        if not query:
            return reply(tool_error("query is required"), "tool_search", None, "invalid", args,
                         "query is required")
        limit = clamp_limit(args.get("limit"), bridge.config)
        hits, total = bridge.search_hits(query, limit)
        result: dict[str, Any] = {
            "query": query,
            "total_available": total,
            "matches": [{
                "name": h.entry.name,
                "source": h.entry.source,
                "source_name": h.entry.source_name,
                "description": h.entry.description[:DESCRIPTION_CLIP],
            } for h in hits],
        }
        summary = f"{len(hits)} match(es): {', '.join(h.name for h in hits)}"
        if not hits:
            if total:
                result["available_sources"] = available_sources(
                    bridge.deferrable_defs, bridge.registry, bridge.config.profile)
                result["hint"] = ZERO_HIT_HINT
            summary = f"0 matches of {total}; {result.get('hint', '')}"
        return reply(result, "tool_search", None, "ok", args, summary, hits)

    # -- tool_describe ---------------------------------------------------------------

    def describe_one(self, bridge: Bridge, name: str) -> tuple[dict[str, Any], str]:
        """(result, outcome) for one name: the G1 describe rules."""
        if not _deferrable(name, bridge.registry, bridge.config):
            return tool_error(NOT_DEFERRABLE_DESCRIBE.format(name=name)), "not_deferrable"
        tool_def = bridge.first_deferrable(name)
        if tool_def is not None:
            fn = def_function(tool_def)
            params = fn.get("parameters")
            return {
                "name": name,
                "description": fn.get("description") or "",
                "parameters": thaw(params) if params is not None else {},
            }, "ok"
        return tool_error(
            f"'{name}' is not currently available. Re-run tool_search to refresh."
        ), "not_available"

    def describe(self, bridge: Bridge, args: Mapping[str, Any]) -> BridgeReply:
        name = str(args.get("name") or "").strip()
        if not name:
            return reply(tool_error("name is required"), "tool_describe", None, "invalid", args,
                         "name is required")
        result, outcome = self.describe_one(bridge, name)
        return reply(result, "tool_describe", name, outcome, args,
                     error_summary(result) or _schema_summary(result.get("parameters")))

    # -- tool_call -------------------------------------------------------------------

    async def call(self, bridge: Bridge, args: Mapping[str, Any]) -> BridgeReply:
        name, arguments, error = self.resolve_call(args, bridge.registry, bridge.config)
        if error is not None or name is None:
            raw_name = str(args.get("name") or "").strip()
            outcome = _resolve_outcome(raw_name, error)
            raw_args = args.get("arguments")
            shown: Mapping[str, Any] = raw_args if isinstance(raw_args, Mapping) else {}
            message = error or "tool_call could not be resolved"
            return reply(tool_error(message), "tool_call", raw_name or None, outcome, shown,
                         message)
        result, outcome = await bridge.run_underlying(name, arguments)
        return reply(result, "tool_call", name, outcome, arguments)


def _schema_summary(params: Any) -> str:
    props = params.get("properties") if isinstance(params, Mapping) else None
    required = params.get("required") if isinstance(params, Mapping) else None
    count = len(props) if isinstance(props, Mapping) else 0
    names = [r for r in required if isinstance(r, str)] if isinstance(required, list | tuple) \
        else []
    return f"schema: {count} parameter(s), required: {', '.join(names) or 'none'}"


def _resolve_outcome(name: str, error: str | None) -> str:
    if not name:
        return "invalid"
    if name in BRIDGE_TOOL_NAMES:
        return "recursion"
    if error and "is not a deferrable tool" in error:
        return "not_deferrable"
    return "invalid"


PROFILE = Profile(
    name="seed",
    order=0,
    plain="Hermes as in the seed article",
    summary="Hermes as in the seed article: one query/name per call, BM25 search with a "
            "substring fallback",
    defaults={},
    has_defer_list=False,
    core_tools=HERMES_CORE_TOOLS | SEED_ERA_CORE_ALIASES,
    direct_surface_toolsets=SEED_DIRECT_SURFACE_TOOLSETS,
    tokenize=words,
    search_text=seed_search_text,
    owner_names_source=False,
    retrieval=Bm25Retrieval(),
    short_description=seed_short_description,
    lists_unavailable=False,
    search_base=SEARCH_BASE,
    bridge=SeedBridge(),
)
