"""Bridge dispatch: ``tool_search``, ``tool_describe`` and ``tool_call`` (REFERENCE §8–9, §12).

Every call goes through one :class:`Bridge`, which hands it to its profile's dispatch (the
argument shapes, caps and guards of that generation) and owns what every generation shares:
the session's deferrable defs, the scope gate, the missing-arguments probe and the
:class:`~toolsearch.replies.Executor` that runs the underlying tool (a live MCP server, or the
:class:`~toolsearch.replies.DryRunExecutor` that only records it). Each call yields an
:class:`~toolsearch.replies.ActivityEvent` naming the *underlying* tool, with a one-line
summary of the reply.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .bm25 import Hit
from .catalog import Catalog, build_catalog
from .classify import (
    Classification,
    Registry,
    RegistryLike,
    as_registry,
    classify_tools,
    def_name,
)
from .config import ToolSearchConfig
from .listing import Unavailable
from .replies import (
    OUTCOMES,
    PROBE_HINT,
    ActivityEvent,
    BridgeReply,
    DryRunExecutor,
    ExecutionResult,
    Executor,
    available_sources,
    clamp_limit,
    error_summary,
    missing_args_error,
    tool_error,
)
from .tooldefs import def_pass
from .validation import parameters_of

__all__ = [
    "OUTCOMES", "PROBE_HINT", "ActivityEvent", "Bridge", "BridgeReply", "DryRunExecutor",
    "ExecutionResult", "Executor", "available_sources", "clamp_limit", "missing_args_error",
    "resolve_underlying_call", "scoped_deferrable_names", "tool_error",
    "validate_deferred_call_args",
]


# --------------------------------------------------------------------------- Hermes-named


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


def resolve_underlying_call(
    args: Mapping[str, Any] | Any,
    registry: RegistryLike | None,
    config: ToolSearchConfig | None = None,
) -> tuple[str | None, dict[str, Any], str | None]:
    """Parse a ``tool_call`` by the config's profile: ``(name, arguments, None)`` or
    ``(None, {}, error)`` (REFERENCE §9; §13 for ``latest``)."""
    config = config or ToolSearchConfig()
    return config.profile.resolve_call(args, registry, config)


def validate_deferred_call_args(
    name: str, args: Mapping[str, Any], schemas: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The blind-call probe: the schema back when required keys are absent, else None."""
    try:
        params = parameters_of(schemas.get(name))
        return None if params is None else missing_args_error(name, args, params)
    except Exception:  # never block dispatch
        return None


# --------------------------------------------------------------------------- the bridge


def _result_summary(result: Any) -> str:
    """The gist of a reply whose dispatch wrote none (an executed call's result)."""
    message = error_summary(result)
    if message:
        return message
    if isinstance(result, Mapping) and result.get("dry_run"):
        return "dry run: recorded, not executed (snapshot source)"
    try:
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    except (TypeError, ValueError):
        text = str(result)
    return f"result: {text}"


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

    # Everything below depends only on the bridge's fields, and a bridge never changes (a new
    # assembly, config or scope makes a new bridge), so each is computed once per bridge: a
    # tool_call at 4,932 tools used to re-classify and re-index the session on every call.

    @cached_property
    def classification(self) -> Classification:
        """The session's defs split by the profile's rules (computed once per bridge)."""
        return classify_tools(self.session_defs, self.registry, self.config.effective_defer_tools,
                              profile=self.config.profile)

    @property
    def deferrable_defs(self) -> tuple[Mapping[str, Any], ...]:
        return self.classification.deferrable

    @cached_property
    def _scoped_names(self) -> frozenset[str]:
        return frozenset(n for n in (def_name(d) for d in self.deferrable_defs) if n)

    def scoped_names(self) -> frozenset[str]:
        """Non-empty names of the session's deferrable defs (:func:`scoped_deferrable_names`)."""
        return self._scoped_names

    @cached_property
    def session_defs_by_name(self) -> Mapping[str, Mapping[str, Any]]:
        """The session's defs by name (a later def of the same name wins, as in a dict)."""
        return {def_name(d): d for d in self.session_defs}

    @cached_property
    def deferrable_by_name(self) -> Mapping[str, Mapping[str, Any]]:
        """The deferrable defs by name (a later def of the same name wins, as in a dict)."""
        return {def_name(d): d for d in self.deferrable_defs}

    @cached_property
    def _first_deferrable(self) -> Mapping[str, Mapping[str, Any]]:
        first: dict[str, Mapping[str, Any]] = {}
        for tool_def in self.deferrable_defs:
            first.setdefault(def_name(tool_def), tool_def)
        return first

    def first_deferrable(self, name: str) -> Mapping[str, Any] | None:
        """The first deferrable def named *name* (input order), or None."""
        return self._first_deferrable.get(name)

    @cached_property
    def catalog(self) -> Catalog:
        """The profile's search catalog over the deferrable defs (its index built once)."""
        with def_pass():
            return build_catalog(self.deferrable_defs, self.registry, self.config.profile)

    async def dispatch(self, bridge_name: str, args: Any) -> BridgeReply:
        """Run one bridge call by the profile's rules and time it."""
        start = self.clock()
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except json.JSONDecodeError:
                args = {}
        if not isinstance(args, Mapping):
            args = {}
        with def_pass():
            reply = await self.config.profile.bridge.dispatch(self, bridge_name, args)
        ms = (self.clock() - start) * 1000.0
        a = reply.activity
        summary = a.summary or _result_summary(reply.result)
        return BridgeReply(reply.result,
                           ActivityEvent(a.bridge, a.tool, a.outcome, a.arguments, ms, summary),
                           reply.hits)

    def dispatch_sync(self, bridge_name: str, args: Any) -> BridgeReply:
        return asyncio.run(self.dispatch(bridge_name, args))

    def search_hits(self, query: str, limit: int) -> tuple[tuple[Hit, ...], int]:
        """The profile's ranking of the session's deferrable tools, and how many there are."""
        catalog = self.catalog
        if not catalog.entries or limit <= 0:
            return (), len(catalog)
        return self.config.profile.search(catalog, query, limit), len(catalog)

    async def run_underlying(self, name: str, arguments: dict[str, Any]) -> tuple[Any, str]:
        """Scope gate, probe, then the executor: (result, outcome)."""
        if name not in self.scoped_names():
            return tool_error(
                f"'{name}' is not available in this session. Use tool_search to find tools "
                "you can call."
            ), "out_of_scope"
        probe = validate_deferred_call_args(name, arguments, self.session_defs_by_name)
        if probe is not None:
            return probe, "missing_args"
        try:
            executed = await self.executor.execute(name, arguments)
        except Exception as exc:  # an executor failure is the tool's error, never a crash
            return tool_error(f"{type(exc).__name__}: {exc}"), "error"
        if not executed.ok:
            return tool_error(executed.error or "the tool reported an error"), "error"
        return executed.content, "ok"
