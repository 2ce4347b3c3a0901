"""Bridge dispatch: ``tool_search``, ``tool_describe`` and ``tool_call`` (REFERENCE §8–9).

Every call goes through one :class:`Bridge`, which applies the guards (recursion, deferrable,
scope gate, the missing-arguments probe) and then hands the underlying call to an
:class:`Executor`: a live MCP server, or the :class:`DryRunExecutor` that only records it.
Each call yields an :class:`ActivityEvent` naming the *underlying* tool.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .bm25 import Hit, search_catalog
from .catalog import build_catalog
from .classify import (
    BRIDGE_TOOL_NAMES,
    Registry,
    RegistryLike,
    as_registry,
    classify_tools,
    decide,
    def_name,
)
from .config import ToolSearchConfig
from .listing import Unavailable, group_defs
from .tooldefs import def_function, thaw

DESCRIPTION_CLIP = 400
ZERO_HIT_HINT = (
    "No tool matched this query lexically, but the sources listed in available_sources "
    "remain available. Retry tool_search with the service name plus a concrete action "
    "(for example 'github create issue') before concluding the capability is missing."
)
PROBE_HINT = "Retry tool_call with 'arguments' matching the parameters schema above."

OUTCOMES: tuple[str, ...] = (
    "ok", "missing_args", "out_of_scope", "recursion", "not_deferrable", "not_available",
    "invalid", "error",
)


def tool_error(message: str, **extra: Any) -> dict[str, Any]:
    """Hermes' ``tool_error``: ``{"error": message, **extra}``."""
    return {"error": message, **extra}


# --------------------------------------------------------------------------- executors


@dataclass(frozen=True)
class ExecutionResult:
    """What an executor returns: the content the model receives, or an error text."""

    ok: bool
    content: Any = None
    error: str = ""


class Executor(Protocol):
    async def execute(self, tool_name: str, arguments: Mapping[str, Any]) -> ExecutionResult:
        """Run the underlying tool for real (or pretend to)."""
        ...


@dataclass
class DryRunExecutor:
    """Records every call and answers with a dry-run receipt instead of running anything."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def execute(self, tool_name: str, arguments: Mapping[str, Any]) -> ExecutionResult:
        self.calls.append((tool_name, dict(arguments)))
        return ExecutionResult(True, {"dry_run": True, "tool": tool_name,
                                      "arguments": thaw(arguments)})


# --------------------------------------------------------------------------- activity


@dataclass(frozen=True)
class ActivityEvent:
    """One bridge call as the operator sees it: resolved to the underlying tool."""

    bridge: str
    tool: str | None
    outcome: str
    arguments: Mapping[str, Any]
    ms: float
    summary: str = ""

    def headline(self) -> str:
        """``tool_call → mcp__github__create_issue {...}`` style one-liner."""
        args = json.dumps(thaw(self.arguments), ensure_ascii=False, sort_keys=True)
        if len(args) > 120:
            args = args[:117] + "..."
        if self.tool is None:
            return f"{self.bridge} {args}"
        return f"{self.bridge} \u2192 {self.tool} {args}"

    def as_json(self) -> dict[str, Any]:
        return {"bridge": self.bridge, "tool": self.tool, "outcome": self.outcome,
                "arguments": thaw(self.arguments), "ms": round(self.ms, 3)}


@dataclass(frozen=True)
class BridgeReply:
    """The result object the model receives, the activity event, and search hits if any."""

    result: Any
    activity: ActivityEvent
    hits: tuple[Hit, ...] = ()


# --------------------------------------------------------------------------- pure helpers


def scoped_deferrable_names(
    tool_defs: Sequence[Mapping[str, Any]],
    registry: RegistryLike | None,
    config: ToolSearchConfig | None = None,
) -> frozenset[str]:
    """Non-empty names among the session's defs that are deferrable."""
    config = config or ToolSearchConfig()
    split = classify_tools(tool_defs, registry, config.effective_defer_tools,
                           profile=config.profile)
    return frozenset(n for n in (def_name(d) for d in split.deferrable) if n)


def _is_deferrable(name: str, registry: Registry, config: ToolSearchConfig) -> bool:
    return decide(name, registry, defer_tools=config.effective_defer_tools,
                  profile=config.profile).deferrable


def resolve_underlying_call(
    args: Mapping[str, Any] | Any,
    registry: RegistryLike | None,
    config: ToolSearchConfig | None = None,
) -> tuple[str | None, dict[str, Any], str | None]:
    """Parse a ``tool_call``: ``(name, arguments, None)`` or ``(None, {}, error)`` (§9)."""
    config = config or ToolSearchConfig()
    args = args if isinstance(args, Mapping) else {}
    name = str(args.get("name") or "").strip()
    if not name:
        return None, {}, "tool_call requires a 'name' argument"
    if name in BRIDGE_TOOL_NAMES:
        return None, {}, f"tool_call cannot invoke '{name}' (it is itself a bridge tool)"
    raw = args.get("arguments")
    if raw is None:
        parsed: Any = {}
    elif isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError as exc:
            return None, {}, f"tool_call 'arguments' is not valid JSON: {exc}"
    else:
        parsed = raw
    if not isinstance(parsed, Mapping):
        return None, {}, "tool_call 'arguments' must be an object"
    if not _is_deferrable(name, as_registry(registry), config):
        return None, {}, (
            f"'{name}' is not a deferrable tool. If it appears in the model-facing tools list "
            "already, call it directly instead of via tool_call."
        )
    return name, thaw(parsed), None


def validate_deferred_call_args(
    name: str, args: Mapping[str, Any], schemas: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The blind-call probe: the schema back when required keys are absent, else None."""
    try:
        schema = schemas.get(name)
        if not isinstance(schema, Mapping):
            return None
        fn = schema.get("function") if schema.get("type") == "function" else schema
        if not isinstance(fn, Mapping):
            return None
        params = fn.get("parameters")
        if not isinstance(params, Mapping):
            return None
        return missing_args_error(name, args, params)
    except Exception:  # never block dispatch
        return None


def missing_args_error(name: str, args: Mapping[str, Any], params: Mapping[str, Any],
                       **extra: Any) -> dict[str, Any] | None:
    """The probe's reply when ``required`` keys are absent from ``args`` (only key absence
    counts: null, wrong types and extra keys pass); None when nothing is missing."""
    required = params.get("required")
    if not isinstance(required, list | tuple) or not required:
        return None
    missing = [r for r in required if isinstance(r, str) and r not in args]
    if not missing:
        return None
    return tool_error(
        f"tool_call to '{name}' is missing required argument(s): {', '.join(missing)}. "
        "The tool was NOT invoked.",
        **extra,
        parameters=thaw(params),
        hint=PROBE_HINT,
    )


def clamp_limit(value: Any, config: ToolSearchConfig) -> int:
    if value is None:
        return config.search_default_limit
    try:
        limit = int(value)
    except (TypeError, ValueError, OverflowError):  # inf: unparseable, never a crash
        return config.search_default_limit
    return max(1, min(config.max_search_limit, limit))


def available_sources(defs: Sequence[Mapping[str, Any]], registry: RegistryLike | None,
                      profile: str = "seed") -> list[dict[str, Any]]:
    return [{"name": g.label, "tool_count": g.count} for g in group_defs(defs, registry, profile)]


# --------------------------------------------------------------------------- the bridge


@dataclass(frozen=True)
class Bridge:
    """Dispatches bridge calls for one session.

    ``session_defs`` are the un-collapsed, session-scoped defs (the scope); ``registry`` is
    the whole registry (global view, as Hermes' deferrable checks use it).
    """

    session_defs: tuple[Mapping[str, Any], ...]
    registry: Registry
    config: ToolSearchConfig = field(default_factory=ToolSearchConfig)
    executor: Executor = field(default_factory=DryRunExecutor)
    clock: Callable[[], float] = time.perf_counter
    unavailable: tuple[Unavailable, ...] = ()
    """Declared MCP servers that failed: ``latest`` names them in ``available_sources``."""

    @classmethod
    def create(cls, session_defs: Sequence[Mapping[str, Any]], registry: RegistryLike | None,
               config: ToolSearchConfig | None = None, executor: Executor | None = None,
               clock: Callable[[], float] = time.perf_counter,
               unavailable: Sequence[Unavailable] = ()) -> Bridge:
        return cls(tuple(session_defs), as_registry(registry), config or ToolSearchConfig(),
                   executor or DryRunExecutor(), clock, tuple(unavailable))

    @property
    def deferrable_defs(self) -> tuple[Mapping[str, Any], ...]:
        return classify_tools(self.session_defs, self.registry, self.config.effective_defer_tools,
                              profile=self.config.profile).deferrable

    def scoped_names(self) -> frozenset[str]:
        return scoped_deferrable_names(self.session_defs, self.registry, self.config)

    async def dispatch(self, bridge_name: str, args: Any) -> BridgeReply:
        """Run one bridge call and time it."""
        start = self.clock()
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except json.JSONDecodeError:
                args = {}
        if not isinstance(args, Mapping):
            args = {}
        if self.config.profile == "latest":
            from .bridge_latest import dispatch_latest

            reply = await dispatch_latest(self, bridge_name, args)
        elif bridge_name == "tool_search":
            reply = self._search(args)
        elif bridge_name == "tool_describe":
            reply = self._describe(args)
        elif bridge_name == "tool_call":
            reply = await self._call(args)
        else:
            reply = BridgeReply(
                tool_error(f"'{bridge_name}' is not a bridge tool "
                           "(expected tool_search, tool_describe or tool_call)"),
                ActivityEvent(bridge_name, None, "invalid", args, 0.0),
            )
        ms = (self.clock() - start) * 1000.0
        activity = reply.activity
        return BridgeReply(reply.result, ActivityEvent(activity.bridge, activity.tool,
                                                       activity.outcome, activity.arguments,
                                                       ms, activity.summary), reply.hits)

    def dispatch_sync(self, bridge_name: str, args: Any) -> BridgeReply:
        return asyncio.run(self.dispatch(bridge_name, args))

    # -- tool_search -----------------------------------------------------------------

    def search_hits(self, query: str, limit: int) -> tuple[tuple[Hit, ...], int]:
        catalog = build_catalog(self.deferrable_defs, self.registry, self.config.profile)
        return search_catalog(catalog, query, limit), len(catalog)

    def _search(self, args: Mapping[str, Any]) -> BridgeReply:
        query = str(args.get("query") or "").strip()
        if not query:
            return BridgeReply(tool_error("query is required"),
                               ActivityEvent("tool_search", None, "invalid", args, 0.0))
        limit = clamp_limit(args.get("limit"), self.config)
        hits, total = self.search_hits(query, limit)
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
        if not hits and total:
            result["available_sources"] = available_sources(self.deferrable_defs, self.registry,
                                                             self.config.profile)
            result["hint"] = ZERO_HIT_HINT
        summary = f"{len(hits)} match(es) for {query!r}"
        return BridgeReply(result, ActivityEvent("tool_search", None, "ok", args, 0.0, summary),
                           hits)

    # -- tool_describe ---------------------------------------------------------------

    def describe_one(self, name: str) -> tuple[dict[str, Any], str]:
        """(result, outcome) for one name: the G1 describe rules."""
        if not _is_deferrable(name, self.registry, self.config):
            return tool_error(
                f"'{name}' is not a deferrable tool. If you see it in the tools list already, "
                "call it directly; otherwise check the spelling against tool_search."
            ), "not_deferrable"
        for tool_def in self.deferrable_defs:
            if def_name(tool_def) == name:
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

    def _describe(self, args: Mapping[str, Any]) -> BridgeReply:
        name = str(args.get("name") or "").strip()
        if not name:
            return BridgeReply(tool_error("name is required"),
                               ActivityEvent("tool_describe", None, "invalid", args, 0.0))
        result, outcome = self.describe_one(name)
        return BridgeReply(result, ActivityEvent("tool_describe", name, outcome, args, 0.0))

    # -- tool_call -------------------------------------------------------------------

    async def run_underlying(self, name: str, arguments: dict[str, Any]) -> tuple[Any, str]:
        """Scope gate, probe, then the executor: (result, outcome)."""
        if name not in self.scoped_names():
            return tool_error(
                f"'{name}' is not available in this session. Use tool_search to find tools "
                "you can call."
            ), "out_of_scope"
        schemas = {def_name(d): d for d in self.session_defs}
        probe = validate_deferred_call_args(name, arguments, schemas)
        if probe is not None:
            return probe, "missing_args"
        try:
            executed = await self.executor.execute(name, arguments)
        except Exception as exc:  # an executor failure is the tool's error, never a crash
            return tool_error(f"{type(exc).__name__}: {exc}"), "error"
        if not executed.ok:
            return tool_error(executed.error or "the tool reported an error"), "error"
        return executed.content, "ok"

    async def _call(self, args: Mapping[str, Any]) -> BridgeReply:
        name, arguments, error = resolve_underlying_call(args, self.registry, self.config)
        if error is not None or name is None:
            raw_name = str(args.get("name") or "").strip()
            outcome = _resolve_outcome(raw_name, error)
            raw_args = args.get("arguments")
            shown: Mapping[str, Any] = raw_args if isinstance(raw_args, Mapping) else {}
            return BridgeReply(tool_error(error or "tool_call could not be resolved"),
                               ActivityEvent("tool_call", raw_name or None, outcome, shown, 0.0))
        result, outcome = await self.run_underlying(name, arguments)
        return BridgeReply(result, ActivityEvent("tool_call", name, outcome, arguments, 0.0))


def _resolve_outcome(name: str, error: str | None) -> str:
    if not name:
        return "invalid"
    if name in BRIDGE_TOOL_NAMES:
        return "recursion"
    if error and "is not a deferrable tool" in error:
        return "not_deferrable"
    return "invalid"
