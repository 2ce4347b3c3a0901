"""The bridge parts every profile shares: executors, replies, activity events, error builders.

These sit below the profiles (which combine them into each generation's dispatch) and below
:mod:`toolsearch.bridge` (which owns the session's :class:`~toolsearch.bridge.Bridge`), so
nothing here imports either.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .classify import RegistryLike
from .listing import group_defs
from .profile import ProfileLike
from .tooldefs import thaw

if TYPE_CHECKING:
    from .bm25 import Hit
    from .config import ToolSearchConfig

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
    """One bridge call as the operator sees it: resolved to the underlying tool.

    ``summary`` is the one-line gist of the reply (every profile's dispatch writes it), so
    the app's feed shows it instead of re-reading the reply.
    """

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


def reply(result: Any, bridge: str, tool: str | None, outcome: str, arguments: Any,
          summary: str = "", hits: tuple[Hit, ...] = ()) -> BridgeReply:
    """A reply with its activity event (``ms`` is filled in by the bridge that timed it)."""
    shown = arguments if isinstance(arguments, Mapping) else {}
    return BridgeReply(result, ActivityEvent(bridge, tool, outcome, shown, 0.0, summary), hits)


def error_summary(result: Any) -> str:
    """The gist of an error reply: its message, noting a schema sent back."""
    if isinstance(result, Mapping) and "error" in result:
        extra = " (schema returned)" if "parameters" in result else ""
        return f"{result['error']}{extra}"
    return ""


def not_a_bridge(bridge_name: str, args: Any) -> BridgeReply:
    message = (f"'{bridge_name}' is not a bridge tool "
               "(expected tool_search, tool_describe or tool_call)")
    return reply(tool_error(message), bridge_name, None, "invalid", args, message)


# --------------------------------------------------------------------------- shared rules


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
                      profile: ProfileLike = "seed") -> list[dict[str, Any]]:
    return [{"name": g.label, "tool_count": g.count} for g in group_defs(defs, registry, profile)]
