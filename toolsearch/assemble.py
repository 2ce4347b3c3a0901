"""Activation, the listing budget, tiers and the assembled tool list (REFERENCE §3)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .classify import (
    BRIDGE_TOOL_NAMES,
    Classification,
    RegistryLike,
    Status,
    as_registry,
    classify_tools,
    def_name,
)
from .config import ToolSearchConfig
from .listing import Listing, Unavailable, build_listing
from .schemas import bridge_tool_schemas
from .tokens import estimate_tokens_from_schemas
from .tooldefs import ContentCache, content_key, def_pass

log = logging.getLogger("tools.tool_search")

NO_CONTEXT_PCT_LEG = 10_000
LOG_FORMAT = (
    "tool_search activated (tier %d): %d core/visible tools kept, %d deferred (~%d tokens), "
    "listing %s (budget ~%d tokens)"
)
TIER_MEANINGS: dict[int, str] = {
    0: "no deferred tools: every schema is sent eagerly",
    1: "bridge + a per-tool listing (full or names, some servers possibly collapsed)",
    2: "bare bridge or per-server summary only: tools are found through tool_search",
}


@dataclass(frozen=True)
class Budget:
    """``min(listing_max_tokens, threshold_pct% of context)`` and which leg binds."""

    budget: int
    cap: int
    percent_leg: int
    context_length: int | None

    @property
    def binding(self) -> str:
        """``cap`` (listing_max_tokens), ``percent`` (threshold_pct of context) or ``both``."""
        if self.cap == self.percent_leg:
            return "both"
        return "cap" if self.cap < self.percent_leg else "percent"


def budget_breakdown(config: ToolSearchConfig, context_length: int | None) -> Budget:
    if context_length and context_length > 0:
        pct_leg = int(context_length * config.threshold_pct / 100)
    else:
        pct_leg = NO_CONTEXT_PCT_LEG
    return Budget(max(0, min(config.listing_max_tokens, pct_leg)), config.listing_max_tokens,
                  pct_leg, context_length)


def listing_token_budget(config: ToolSearchConfig, context_length: int | None) -> int:
    return budget_breakdown(config, context_length).budget


def should_activate(config: ToolSearchConfig, deferrable_tokens: int,
                    context_length: int | None = None) -> bool:
    """G1: ``off`` never activates; otherwise any deferrable token activates."""
    if config.enabled == "off":
        return False
    return deferrable_tokens > 0


def tier_for_form(form: str) -> int:
    return 1 if form in ("full", "names", "mixed") else 2


def _without_bridges(tool_defs: Sequence[Mapping[str, Any]], split: Classification
                     ) -> tuple[Mapping[str, Any], ...]:
    """The incoming defs minus bridge defs (the ones classification dropped); an unchanged
    tuple keeps its identity, so content-keyed caches downstream recognise it."""
    if not split.dropped:
        return tool_defs if isinstance(tool_defs, tuple) else tuple(tool_defs)
    return tuple(d for d in tool_defs if def_name(d) not in BRIDGE_TOOL_NAMES)


_estimate_cache: ContentCache[int] = ContentCache(16, "assemble.estimate")


def _estimate(defs: tuple[Mapping[str, Any], ...]) -> int:
    return _estimate_cache.get_or_make(content_key(defs),
                                       lambda: estimate_tokens_from_schemas(defs))


@dataclass(frozen=True)
class AssemblyResult:
    """Hermes' fields (``threshold_tokens`` holds the listing budget) plus our extras."""

    tool_defs: tuple[Mapping[str, Any], ...]
    activated: bool
    deferred_count: int = 0
    deferred_tokens: int = 0
    threshold_tokens: int = 0
    tier: int = 0
    listing_form: str = "none"
    listing: Listing | None = None
    budget: Budget | None = None
    log_line: str | None = None
    classification: Classification | None = field(default=None, repr=False)
    config: ToolSearchConfig | None = field(default=None, repr=False)

    @property
    def listing_text(self) -> str | None:
        return self.listing.text if self.listing is not None else None

    @property
    def visible_names(self) -> tuple[str, ...]:
        split = self.classification
        return split.names(Status.VISIBLE) if split else ()

    @property
    def deferred_names(self) -> tuple[str, ...]:
        split = self.classification
        return split.names(Status.DEFERRED) if split else ()

    @property
    def bridge_defs(self) -> tuple[Mapping[str, Any], ...]:
        return tuple(d for d in self.tool_defs if def_name(d) in BRIDGE_TOOL_NAMES)

    @property
    def tier_meaning(self) -> str:
        return TIER_MEANINGS[self.tier]


def assemble_tool_defs(
    tool_defs: Sequence[Mapping[str, Any]],
    registry: RegistryLike | None,
    *,
    context_length: int | None = None,
    config: ToolSearchConfig | None = None,
    unavailable: Sequence[Unavailable] = (),
) -> AssemblyResult:
    """Split, budget, list and inject the bridges exactly as Hermes assembles (REFERENCE §3).

    ``unavailable``: declared MCP servers that failed; the ``latest`` listing names them.
    Each plain-dict def is encoded at most once per call (and not at all when unchanged).
    """
    with def_pass():
        return _assemble(tool_defs, registry, context_length, config or ToolSearchConfig(),
                         unavailable)


def _assemble(tool_defs: Sequence[Mapping[str, Any]], registry: RegistryLike | None,
              context_length: int | None, config: ToolSearchConfig,
              unavailable: Sequence[Unavailable]) -> AssemblyResult:
    reg = as_registry(registry)
    # classification drops incoming bridge defs, so it runs on the defs as given
    split = classify_tools(tool_defs, reg, config.effective_defer_tools, profile=config.profile)
    incoming = _without_bridges(tool_defs, split)
    budget = budget_breakdown(config, context_length)
    if not split.deferrable:
        return AssemblyResult(incoming, False, classification=split, config=config, budget=budget)
    deferred_tokens = _estimate(split.deferrable)
    if not should_activate(config, deferred_tokens, context_length):
        return AssemblyResult(
            incoming,
            False,
            deferred_count=len(split.deferrable),
            deferred_tokens=deferred_tokens,
            threshold_tokens=int((context_length or 0) * config.threshold_pct / 100),
            tier=0,
            classification=split,
            config=config,
            budget=budget,
        )
    if config.listing != "off":
        listing = build_listing(split.deferrable, reg, budget.budget, config.profile,
                                unavailable)
    else:
        listing = Listing(None, "none", budget.budget)
    bridges = bridge_tool_schemas(
        len(split.deferrable), listing=listing.text, listing_form=listing.form,
        profile=config.profile,
    )
    tier = tier_for_form(listing.form)
    line = LOG_FORMAT % (tier, len(split.visible), len(split.deferrable), deferred_tokens,
                         listing.form, budget.budget)
    log.info(line)
    return AssemblyResult(
        tool_defs=split.visible + bridges,
        activated=True,
        deferred_count=len(split.deferrable),
        deferred_tokens=deferred_tokens,
        threshold_tokens=budget.budget,
        tier=tier,
        listing_form=listing.form,
        listing=listing,
        budget=budget,
        log_line=line,
        classification=split,
        config=config,
    )
