"""The three bridge tool schemas and how the listing is framed in them (REFERENCE §6–7)."""

from __future__ import annotations

from typing import Any

from .profile import ProfileLike, as_profile
from .tooldefs import FrozenDict, freeze_def

SEARCH_BASE = (
    "Search {n} additional tools that are loaded on demand. Returns up to `limit` matches, "
    "each with its name and description. Follow up with tool_describe to load a match's full "
    "schema, then tool_call to invoke it. Tools already listed at the top of the system prompt "
    "are directly callable and need no search."
)
LATEST_SEARCH_BASE = (
    "Search {n} additional tools that are loaded on demand. Queries are keyword searches, not "
    "questions: name the service, the action and the object (a word that no tool contains "
    "returns nothing). Results come back as tool names grouped per query, plus one shared map "
    "of descriptions. Follow up with tool_describe to load full schemas, then tool_call to "
    "invoke. Tools already listed at the top of the system prompt are directly callable and "
    "need no search."
)
GROUPS_FRAMING = (
    "The servers summarised below are connected and their tools ARE reachable through this "
    "bridge, though their tool names are not listed. Search here FIRST: do NOT claim the "
    "capability is unavailable and do not substitute a generic tool (terminal/browser) "
    "without searching."
)
LISTED_FRAMING = (
    "Every deferred capability is listed below, so do NOT claim it is unavailable. Load a "
    "tool's schema with tool_describe and invoke it with tool_call; when its exact name is "
    "visible below, skip tool_search."
)
MIXED_FRAMING = (
    'Servers marked "names not listed" also have tools: find them with tool_search first.'
)
DESCRIBE_DESCRIPTION = (
    "Load the full JSON schema for one tool returned by tool_search. Required before "
    "tool_call whenever the tool's parameters are not already known."
)
LATEST_DESCRIBE_DESCRIPTION = (
    "Load the full JSON schemas for tools returned by tool_search. Required before tool_call "
    "whenever a tool's parameters are not already known."
)
CALL_DESCRIPTION = (
    "Invoke a deferred tool by name with arguments matching its schema (see tool_describe). "
    "Policy, hooks and approvals run exactly as for a directly-listed tool."
)


def search_description(count: int, listing: str | None = None, listing_form: str = "",
                       profile: ProfileLike = "seed") -> str:
    """The ``tool_search`` description the model receives, with the listing framed in it."""
    base = as_profile(profile).search_base.format(n=count)
    if not listing:
        return base
    if listing_form == "groups":
        return f"{base}\n\n{GROUPS_FRAMING}\n\n{listing}"
    framing = LISTED_FRAMING
    if listing_form == "mixed":
        framing = f"{framing} {MIXED_FRAMING}"
    return f"{base}\n\n{framing}\n\n{listing}"


def _function(name: str, description: str, properties: dict[str, Any],
              required: list[str]) -> FrozenDict:
    return freeze_def({
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    })


def seed_bridge_schemas(description: str) -> tuple[FrozenDict, ...]:
    return (
        _function("tool_search", description, {
            "query": {"type": "string", "description": (
                "A few keywords describing the capability you need, e.g. "
                "\"create github issue\".")},
            "limit": {"type": "integer", "description": "Maximum number of results (default 5)."},
        }, ["query"]),
        _function("tool_describe", DESCRIBE_DESCRIPTION, {
            "name": {"type": "string",
                     "description": "The exact tool name as returned by tool_search."},
        }, ["name"]),
        _function("tool_call", CALL_DESCRIPTION, {
            "name": {"type": "string",
                     "description": "The exact tool name as returned by tool_search."},
            "arguments": {"type": "object",
                          "description": "Arguments matching the tool's parameters schema."},
        }, ["name", "arguments"]),
    )


def batched_bridge_schemas(description: str) -> tuple[FrozenDict, ...]:
    return (
        _function("tool_search", description, {
            "queries": {"type": "array", "items": {"type": "string"}, "description": (
                "Keyword queries (service + action + object), one per capability you need; "
                "they are searched in parallel and results are grouped per query. A single "
                "string is accepted and treated as one query.")},
            "limit": {"type": "integer", "description": (
                "Maximum results per query (default 5), clamped to the configured maximum "
                "(25 by default).")},
        }, ["queries"]),
        _function("tool_describe", LATEST_DESCRIBE_DESCRIPTION, {
            "names": {"type": "array", "items": {"type": "string"}, "description": (
                "Exact tool names as returned by tool_search. A single string is accepted as "
                "one name.")},
        }, ["names"]),
        _function("tool_call", CALL_DESCRIPTION, {
            "calls": {"type": "array", "description": "The call to make, as [{name, arguments}].",
                      "items": {"type": "object", "properties": {
                          "name": {"type": "string"},
                          "arguments": {"type": "object"}},
                          "required": ["name", "arguments"]}},
        }, ["calls"]),
    )


def bridge_tool_schemas(count: int, listing: str | None = None, listing_form: str = "",
                        profile: ProfileLike = "seed") -> tuple[FrozenDict, ...]:
    """``tool_search``, ``tool_describe``, ``tool_call`` in that order, in the profile's
    argument shapes. Only the ``tool_search`` description changes with the listing.
    """
    rules = as_profile(profile)
    return rules.bridge.schemas(search_description(count, listing, listing_form, rules))
