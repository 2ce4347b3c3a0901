"""A session over a workspace: attachment, scope, config and context in one immutable value.

Everything the CLI and the app show is derived from a :class:`SessionState`: the assembly,
the bridge, per-toolset rows and the explanation of any tool. Derived values are cached on the
state object, so a new state (after a tuning change) recomputes only what it must; the
engine's content-keyed caches make unchanged inputs cheap.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from .advice import ToolAdvice, tool_advice
from .assemble import AssemblyResult, assemble_tool_defs
from .bridge import Bridge, DryRunExecutor, Executor
from .classify import Registry, Rule, Status, decide, def_name
from .config import ToolSearchConfig
from .listing import Unavailable
from .profile import ProfileLike
from .tokens import estimate_tokens_from_schemas, exact_def_tokens, exact_tokens_from_schemas
from .toolsets import Toolset, ToolsetStatus, Workspace

DEFAULT_CONTEXT = 200_000


@dataclass(frozen=True)
class Explanation:
    """Why a tool is visible, deferred, dropped, or unknown to this session."""

    name: str
    status: str
    rule: str
    reason: str
    toolset: str | None
    schema_tokens: int | None
    schema_tokens_exact: int | None
    listing_line: str | None
    advice: ToolAdvice | None = None
    """What would change it (toolsearch.advice): budgets, the visible route, closest names."""

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "status": self.status, "rule": self.rule, "reason": self.reason,
            "toolset": self.toolset, "schema_tokens": self.schema_tokens,
            "schema_tokens_exact": self.schema_tokens_exact, "listing_line": self.listing_line,
            **(self.advice or ToolAdvice()).as_json(),
        }


@dataclass(frozen=True)
class ToolsetRow:
    """One toolset as the Servers pane and ``assemble`` show it."""

    toolset: Toolset
    attached: bool
    in_scope: bool
    tool_count: int
    tokens: int
    listing_form: str

    @property
    def name(self) -> str:
        """The source's name (what attachment and scope are keyed on)."""
        return self.toolset.name

    @property
    def toolset_id(self) -> str:
        """The registry name (``mcp-<server>``): how every output names a toolset."""
        return self.toolset.toolset_id


@dataclass(frozen=True)
class SessionState:
    workspace: Workspace
    config: ToolSearchConfig = field(default_factory=ToolSearchConfig)
    context_length: int | None = DEFAULT_CONTEXT
    detached: frozenset[str] = frozenset()
    scope: frozenset[str] | None = None
    """Toolset names the session may use; None means every attached toolset."""

    @classmethod
    def from_workspace(cls, workspace: Workspace, *, profile: ProfileLike = "seed",
                       context_length: int | None = None,
                       overrides: Mapping[str, Any] | None = None) -> SessionState:
        raw = dict(workspace.tool_search or {})
        raw.update(overrides or {})
        config = ToolSearchConfig.from_raw(raw, profile=profile)
        context = context_length or workspace.context_length or DEFAULT_CONTEXT
        return cls(workspace, config, context)

    # -- derived -------------------------------------------------------------------------

    def in_scope(self, toolset_name: str) -> bool:
        return self.scope is None or toolset_name in self.scope

    @cached_property
    def registry(self) -> Registry:
        return self.workspace.registry(self.detached)

    @cached_property
    def session_defs(self) -> tuple[Mapping[str, Any], ...]:
        """Defs of attached toolsets inside the scope: what the session's model works with."""
        return self.workspace.scoped_defs(self.detached, self.scope)

    def in_session(self, name: str) -> bool:
        """True when a def of :attr:`session_defs` is named *name* (without scanning them:
        ``explain`` asks on every highlighted row)."""
        return any(ts not in self.detached and self.in_scope(ts)
                   for ts in self.workspace.toolsets_by_def_name.get(name, ()))

    @cached_property
    def unavailable(self) -> tuple[Unavailable, ...]:
        """Attached, in-scope MCP servers that failed (the ``latest`` listing names them)."""
        return tuple(
            Unavailable(ts.name, ts.error or "unavailable", len(ts.tools))
            for ts in self.workspace.attached(self.detached)
            if ts.kind == "mcp" and ts.status is ToolsetStatus.ERROR and self.in_scope(ts.name)
        )

    @cached_property
    def assembly(self) -> AssemblyResult:
        return assemble_tool_defs(self.session_defs, self.registry,
                                  context_length=self.context_length, config=self.config,
                                  unavailable=self.unavailable)

    def bridge(self, executor: Executor | None = None,
               clock: Callable[[], float] = time.perf_counter) -> Bridge:
        """The session's bridge (the only one: the CLI, the app and the gateway use it)."""
        return Bridge.create(self.session_defs, self.registry, self.config,
                             executor or DryRunExecutor(), clock, unavailable=self.unavailable)

    @property
    def toolset_of(self) -> Mapping[str, str]:
        return self.workspace.toolset_by_tool

    @property
    def def_by_name(self) -> Mapping[str, Mapping[str, Any]]:
        return self.workspace.def_by_name

    def rows(self) -> tuple[ToolsetRow, ...]:
        """One row per toolset with the listing form it got (or why it has none)."""
        result = self.assembly
        listing = result.listing
        deferred = frozenset(result.deferred_names) if result.activated else frozenset()
        rows = []
        for ts in self.workspace.toolsets:
            attached = ts.name not in self.detached
            group = listing.group(ts.label) if listing is not None else None
            if ts.status is ToolsetStatus.ERROR:
                form = "-"
            elif group is not None:
                form = group.form
            elif not attached:
                form = "detached"
            elif not self.in_scope(ts.name):
                form = "out of scope"
            elif ts.defs and def_name(ts.defs[0]) in deferred:
                form = "none"
            else:
                form = "eager"
            rows.append(ToolsetRow(ts, attached, self.in_scope(ts.name), len(ts.tools),
                                   ts.schema_tokens, form))
        return tuple(rows)

    def deferred_tokens_exact(self) -> int:
        split = self.assembly.classification
        return exact_tokens_from_schemas(split.deferrable) if split else 0

    def explain(self, name: str, *, advice: bool = True) -> Explanation:
        """Why *name* is visible, deferred, dropped or unknown, and (unless *advice* is False:
        for a deferred tool it takes 10-20 ms at 4,900 tools) what would change it."""
        found = self._explain(name.strip())
        return self.advised(found) if advice else found

    def advised(self, found: Explanation) -> Explanation:
        """*found* (from ``explain(name, advice=False)``) with what would change it."""
        return replace(found, advice=tool_advice(self, found.name, found.status, found.toolset))

    def _explain(self, name: str) -> Explanation:
        tool_def = self.def_by_name.get(name)
        toolset_name = self.toolset_of.get(name)
        in_session = self.in_session(name)
        tokens = estimate_tokens_from_schemas([tool_def]) if tool_def is not None else None
        exact = exact_def_tokens(tool_def) if tool_def is not None else None
        if not in_session:
            decision = decide(name, self.registry,
                              defer_tools=self.config.effective_defer_tools,
                              profile=self.config.profile)
            if decision.status is Status.DROPPED:
                return Explanation(name, "dropped", decision.rule.value, decision.reason,
                                   None, None, None, None)
            shown = self._toolset_id(toolset_name)
            if toolset_name is None:
                why = f"'{name}' is not a tool of any loaded source."
            elif toolset_name in self.detached:
                why = f"'{name}' belongs to '{shown}', which is detached."
            else:
                why = (f"'{name}' belongs to '{shown}', which is outside this "
                       "session's scope; the bridge will not reach it.")
            return Explanation(name, "unknown", Rule.NOT_IN_DEFS.value, why,
                               self._toolset_id(toolset_name), tokens, exact, None)
        decision = decide(name, self.registry, defer_tools=self.config.effective_defer_tools,
                          profile=self.config.profile)
        status = decision.status.value
        reason = decision.reason
        line = None
        if decision.status is Status.DEFERRED and not self.assembly.activated:
            status = "visible"
            reason += (" Tool search is off, so every schema is sent eagerly."
                       if self.config.enabled == "off" else "")
        elif decision.status is Status.DEFERRED and self.assembly.listing is not None:
            line = self.assembly.listing.line_for(name)
        return Explanation(name, status, decision.rule.value, reason,
                           decision.toolset or self._toolset_id(toolset_name), tokens, exact,
                           line)

    def _toolset_id(self, toolset_name: str | None) -> str | None:
        found = self.workspace.toolset(toolset_name) if toolset_name is not None else None
        return found.toolset_id if found is not None else toolset_name

    # -- changes -------------------------------------------------------------------------

    def with_config(self, **changes: Any) -> SessionState:
        return replace(self, config=self.config.with_values(**changes))

    def with_profile(self, profile: ProfileLike) -> SessionState:
        return replace(self, config=self.config.with_profile(profile))

    def with_context(self, context_length: int | None) -> SessionState:
        return replace(self, context_length=context_length)

    def toggled(self, toolset_name: str) -> SessionState:
        return replace(self, detached=self.detached ^ {toolset_name})

    def with_scope(self, names: Iterable[str] | None) -> SessionState:
        return replace(self, scope=frozenset(names) if names is not None else None)

    def scope_toggled(self, toolset_name: str) -> SessionState:
        current = self.scope if self.scope is not None else frozenset(
            t.name for t in self.workspace.toolsets)
        return self.with_scope(current ^ {toolset_name})
