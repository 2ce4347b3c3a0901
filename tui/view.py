"""Derived, display-ready figures and rows: pure functions of a :class:`SessionState`.

Panes render these; nothing here touches a widget. Every signal carries a glyph and a word
(STYLE §9); the ``style`` strings only add colour on top through our theme variables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import repeat
from typing import NamedTuple

from toolsearch.classify import Status, def_name
from toolsearch.session import SessionState
from toolsearch.tokens import (
    estimate_tokens_from_schemas,
    exact_def_tokens,
)
from toolsearch.toolsets import ToolsetStatus

STATUS_LABELS: dict[str, tuple[str, str]] = {
    ToolsetStatus.CONNECTED.value: ("\u25cf connected", "$status-connected"),
    ToolsetStatus.SNAPSHOT.value: ("\u25cb snapshot", "$status-snapshot"),
    ToolsetStatus.ERROR.value: ("\u2716 error", "$status-error bold"),
}
TOOL_LABELS: dict[str, tuple[str, str]] = {
    "visible": ("\u25c6 visible", "$visible"),
    "deferred": ("\u25c7 deferred", "$deferred"),
    "dropped": ("\u2716 dropped", "$status-error"),
    "detached": ("\u2013 detached", "$muted"),
    "out of scope": ("\u2298 out of scope", "$muted"),
}
OUTCOME_LABELS: dict[str, tuple[str, str]] = {
    "ok": ("\u2714 ok", "$outcome-ok"),
    "missing_args": ("\u21ba missing args", "$outcome-warn"),
    "out_of_scope": ("\u2298 out of scope", "$outcome-error"),
    "recursion": ("\u27f2 recursion guard", "$outcome-error"),
    "not_deferrable": ("\u2298 not deferrable", "$outcome-warn"),
    "not_available": ("? not available", "$outcome-warn"),
    "invalid": ("\u2716 invalid", "$outcome-error"),
    "error": ("\u2716 error", "$outcome-error"),
}
TIER_STYLES = {0: "$tier-0", 1: "$tier-1", 2: "$tier-2"}


def fmt(n: int | float | None) -> str:
    """Thousands separators; ``…`` while a count is still being worked out."""
    if n is None:
        return "\u2026"
    return f"{n:,}" if isinstance(n, int) else f"{n:,.1f}"


_summed: list[tuple[object, int]] = []


def defs_tokens(defs: object) -> int:
    """:func:`estimate_tokens_from_schemas` of a tuple of defs, remembered for the last few
    tuples (the session's 5,000 defs are summed once, not on every change)."""
    if not isinstance(defs, tuple):
        return estimate_tokens_from_schemas(defs)  # type: ignore[arg-type]
    for held, total in _summed:
        if held is defs:
            return total
    total = estimate_tokens_from_schemas(defs)
    _summed[:] = [(defs, total), *_summed[:15]]  # a session's 4 tuples, and 2 states' ahead
    return total


# --------------------------------------------------------------------------- gauges


@dataclass(frozen=True)
class GaugeFigures:
    tier: int
    tier_meaning: str
    activated: bool
    enabled: str
    listing_form: str
    listing_tokens: int
    budget: int
    cap: int
    percent_leg: int
    threshold_pct: float
    context_length: int | None
    binding: str
    eager_tokens: int
    """Every session def sent eagerly (tool search off)."""
    visible_tokens: int
    deferred_tokens: int
    bridge_tokens: int
    sent_tokens: int
    """What the model receives: visible defs + the three bridges."""
    deferred_count: int
    visible_count: int

    @property
    def saving(self) -> int:
        return self.eager_tokens - self.sent_tokens

    @property
    def saving_pct(self) -> float:
        return 100.0 * self.saving / self.eager_tokens if self.eager_tokens else 0.0


def gauge_figures(session: SessionState) -> GaugeFigures:
    a = session.assembly
    split = a.classification
    budget = a.budget
    visible = split.visible if split else ()
    eager = defs_tokens(session.session_defs)
    bridge = defs_tokens(a.bridge_defs)
    listing_tokens = a.listing.tokens if a.listing is not None else 0
    return GaugeFigures(
        tier=a.tier, tier_meaning=a.tier_meaning, activated=a.activated,
        enabled=session.config.enabled, listing_form=a.listing_form if a.activated else "none",
        listing_tokens=listing_tokens,
        budget=budget.budget if budget else 0, cap=budget.cap if budget else 0,
        percent_leg=budget.percent_leg if budget else 0,
        threshold_pct=session.config.threshold_pct, context_length=session.context_length,
        binding=budget.binding if budget else "cap",
        eager_tokens=eager, visible_tokens=defs_tokens(visible),
        deferred_tokens=a.deferred_tokens if a.activated else 0,
        bridge_tokens=bridge, sent_tokens=defs_tokens(a.tool_defs),
        deferred_count=a.deferred_count if a.activated else 0,
        visible_count=len(visible) if a.activated else len(a.tool_defs),
    )


# --------------------------------------------------------------------------- exact counts


@dataclass(frozen=True)
class ExactCounts:
    """cl100k_base counts, worked out in a thread worker after each change."""

    session_key: int
    per_toolset: Mapping[str, int]
    eager: int
    deferred: int
    sent: int
    bridge: int


def exact_counts(session: SessionState, key: int) -> ExactCounts:
    """Slow on the first run over a big catalog (cached by content afterwards)."""
    a = session.assembly
    per = {ts.name: sum(exact_def_tokens(d) for d in ts.defs) for ts in session.workspace.toolsets}
    split = a.classification
    deferred = sum(exact_def_tokens(d) for d in split.deferrable) if split and a.activated else 0
    return ExactCounts(
        session_key=key, per_toolset=per,
        eager=sum(exact_def_tokens(d) for d in session.session_defs),
        deferred=deferred,
        sent=sum(exact_def_tokens(d) for d in a.tool_defs),
        bridge=sum(exact_def_tokens(d) for d in a.bridge_defs),
    )


# --------------------------------------------------------------------------- servers


# --------------------------------------------------------------------------- tools


class ToolRow(NamedTuple):
    """One tool's row (a named tuple: a change that alters every row builds ~5,000 of them,
    4x faster than a frozen dataclass)."""

    name: str
    status: str
    rule: str
    toolset: str
    tokens: int


def tool_rows_key(session: SessionState) -> tuple[object, ...]:
    """Everything :func:`tool_rows` depends on (the classification is content-cached)."""
    a = session.assembly
    return (id(session.workspace), session.detached, session.scope, id(a.classification),
            a.activated)


_named: dict[int, tuple[object, tuple[tuple[str, int], ...], tuple[str, ...]]] = {}
_decided: list[tuple[object, bool, dict[str, tuple[str, str]]]] = []


def _names_and_tokens(defs: tuple[Mapping[str, object], ...]
                      ) -> tuple[tuple[tuple[str, int], ...], tuple[str, ...]]:
    """((name, schema tokens) of each def, the names alone); cached for as long as the defs
    tuple lives."""
    cached = _named.get(id(defs))
    if cached is not None and cached[0] is defs:
        return cached[1], cached[2]
    pairs = tuple((def_name(d), estimate_tokens_from_schemas((d,))) for d in defs)
    names = tuple(name for name, _ in pairs)
    if len(_named) > 4096:
        _named.clear()
    _named[id(defs)] = (defs, pairs, names)
    return pairs, names


def _decisions(session: SessionState) -> dict[str, tuple[str, str]]:
    """name -> (status, rule) from the (content-cached) classification, reused while it is."""
    a = session.assembly
    split = a.classification
    if split is None:
        return {}
    for held, activated, decided in _decided:
        if held is split and activated == a.activated:
            return decided
    decided = {}
    deferred = Status.DEFERRED
    eager = not a.activated
    words: dict[tuple[object, object], tuple[str, str]] = {}  # one tuple per (status, rule)
    for name, status, rule, _toolset in split.rules:  # as .decisions, without 4,900 objects
        if name in decided:
            continue
        pair = words.get((status, rule))
        if pair is None:
            pair = words[(status, rule)] = ("visible" if eager and status is deferred
                                            else str(status), str(rule))
        decided[name] = pair
    _decided[:] = [(split, a.activated, decided), *_decided[:3]]
    return decided


_toolset_rows: dict[int, tuple[tuple[object, object, tuple[ToolRow, ...]], ...]] = {}


def tool_rows(session: SessionState) -> tuple[ToolRow, ...]:
    """Every tool of every loaded toolset, in workspace order, with its session status.

    A toolset whose statuses did not change keeps its row objects from the last call (a
    detach or a budget change rebuilds a few toolsets, not 4,900 rows)."""
    decided = _decisions(session)
    rows: list[ToolRow] = []
    unregistered = ("visible", "unregistered")
    for ts in session.workspace.toolsets:
        if ts.name in session.detached:
            fixed: tuple[str, str] | None = ("detached", "detached")
        elif not session.in_scope(ts.name):
            fixed = ("out of scope", "out-of-scope")
        else:
            fixed = None
        pairs, names = _names_and_tokens(ts.defs)
        # each name's (status, rule), looked up in C (a generator here was ~15 k Python
        # calls at every catch-up of the Tools pane at 4,900 tools)
        statuses: object = fixed or tuple(map(decided.get, names, repeat(unregistered)))
        held = _toolset_rows.get(id(ts), ())
        found = next((r for t, st, r in held if t is ts and st == statuses), None)
        if found is not None:
            rows.extend(found)
            continue
        toolset = ts.toolset_id  # named as every output names it (registry name)
        mine = tuple(ToolRow(name, *(fixed or decided.get(name, unregistered)), toolset, tokens)
                     for name, tokens in pairs)
        if len(_toolset_rows) > 4096:
            _toolset_rows.clear()
        # the last two states of each toolset: toggling a setting back reuses the rows
        _toolset_rows[id(ts)] = ((ts, statuses, mine), *held[:1])
        rows.extend(mine)
    return tuple(rows)


def listing_fit(tokens: int, budget: int) -> tuple[str, str]:
    """Glyph + word for a listing against the budget (an empty listing never "fits")."""
    if tokens <= 0:
        return ("\u2205 no listing" if budget > 0 else "\u2205 no listing, budget 0",
                "$outcome-warn")
    if tokens <= budget:
        return "\u2714 fits", "$within-budget"
    return "\u2716 over budget", "$over-budget bold"


def gauge_warnings(g: GaugeFigures, narrow: bool = False) -> list[str]:
    """What the numbers hide, in words: a saving below zero, eager schemas larger than the
    context, a listing budget of zero. *narrow*: each in one line of 80 columns (wrapped to
    two, a warning took a row from the table under it: at 80x24 the Tools table of
    cloudflare-scale showed one tool, of the real catalogs none)."""
    out = []
    if g.activated and g.saving < 0:
        out.append(f"tool search costs {fmt(-g.saving)} more than it saves: enabled: off is "
                   "cheaper" if narrow else
                   f"tool search costs {fmt(-g.saving)} tokens more than it saves: the bridge "
                   f"({fmt(g.bridge_tokens)}) outweighs the deferred schemas "
                   f"({fmt(g.deferred_tokens)}); enabled: off would be cheaper")
    if g.context_length and g.eager_tokens > g.context_length:
        if narrow:
            out.append(f"eager schemas {fmt(g.eager_tokens)} > context "
                       f"{fmt(g.context_length)}: " +
                       ("keep tool search on" if g.activated else "turn tool search on"))
        else:
            out.append(f"eager schemas ({fmt(g.eager_tokens)}) exceed the context "
                       f"({fmt(g.context_length)})" +
                       (": tool search must stay on" if g.activated else
                        ": turn tool search on"))
    if g.activated and g.budget <= 0:
        out.append("the listing budget is 0 tokens: no listing can be embedded")
    return out
