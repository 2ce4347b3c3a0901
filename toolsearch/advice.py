"""What would change it: the operator's question after "why".

For a server whose tools are deferred, the smallest listing budget at which its tools keep their
names in the listing, and the smallest at which they get full lines, turned into the
``listing_max_tokens`` (and, where the percentage leg binds, ``threshold_pct``) to set. For a
deferred tool, what would keep it visible, said plainly. Unknown names get the closest names.

The listing form of one server only grows with the budget (full is all-or-nothing, and the mixed
form collapses a fixed order of servers until the listing fits), so a binary search over the
budget finds the smallest one exactly, with the same listing builder the session uses.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .classify import Rule, Status, decide
from .listing import build_listing
from .tokens import CHARS_PER_TOKEN

if TYPE_CHECKING:
    from .session import SessionState

CAP_LOW, CAP_HIGH = 200, 60_000
"""The range ``listing_max_tokens`` is clamped to (config.py)."""
NAMES_FORMS = frozenset({"names", "full"})


@dataclass(frozen=True)
class BudgetNeed:
    """The smallest listing budget giving a server a richer form, and what to set for it."""

    budget: int
    listing_max_tokens: int | None
    """The value to set, or None when the current cap already allows the budget."""
    threshold_pct: float | None
    """The value to set, or None when the percentage leg already allows the budget."""
    reachable: bool = True
    """False when no allowed setting reaches the budget (above the 60,000 cap)."""
    limit: str = ""
    """When unreachable, what stands in the way, in words ("" means the 60,000 cap)."""

    def as_json(self) -> dict[str, Any]:
        return {"budget": self.budget, "listing_max_tokens": self.listing_max_tokens,
                "threshold_pct": self.threshold_pct, "reachable": self.reachable}

    def sentence(self, what: str) -> str:
        if not self.reachable:
            limit = self.limit or f"the {CAP_HIGH:,} listing_max_tokens allows"
            return f"{what} would need a listing budget of {self.budget:,} tokens, above {limit}"
        sets = []
        if self.listing_max_tokens is not None:
            sets.append(f"listing_max_tokens \u2265 {self.listing_max_tokens:,}")
        if self.threshold_pct is not None:
            sets.append(f"threshold_pct \u2265 {_pct_text(self.threshold_pct)}")
        how = " and ".join(sets) if sets else "the current settings"
        return f"{what} from a budget of {self.budget:,} tokens: {how}"


def _pct_text(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class ServerAdvice:
    """For one server: its listing form now and the smallest budgets for names / full lines."""

    toolset: str
    form: str
    would_list_names_at: BudgetNeed | None
    would_list_full_at: BudgetNeed | None
    note: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "toolset": self.toolset, "form": self.form,
            "would_list_names_at": (self.would_list_names_at.as_json()
                                    if self.would_list_names_at else None),
            "would_list_full_at": (self.would_list_full_at.as_json()
                                   if self.would_list_full_at else None),
            "note": self.note,
        }

    def sentences(self) -> list[str]:
        out = [self.note] if self.note else []
        if self.would_list_names_at is not None:
            out.append(self.would_list_names_at.sentence("Names listed"))
        if self.would_list_full_at is not None:
            out.append(self.would_list_full_at.sentence("Full lines"))
        return out


def _form_at(session: SessionState, label: str, budget: int) -> str:
    a = session.assembly
    split = a.classification
    defs = split.deferrable if split is not None else ()
    listing = build_listing(defs, session.registry, budget, session.config.profile,
                            session.unavailable)
    if not label:  # the listing as a whole
        return listing.form
    group = listing.group(label)
    return group.form if group is not None else "none"


def _smallest(session: SessionState, label: str, forms: frozenset[str], low: int,
              high: int) -> int | None:
    """The smallest budget in (low, high] giving *label* one of *forms*; None if none does."""
    if _form_at(session, label, high) not in forms:
        return None
    while high - low > 1:
        mid = (low + high) // 2
        if _form_at(session, label, mid) in forms:
            high = mid
        else:
            low = mid
    return high


def _everyone(session: SessionState, form: str) -> int:
    """The smallest budget at which every server gets *form* (``full`` or ``names``): the
    listing's own size in that form is the first guess, checked, then searched if it is off."""
    listing = session.assembly.listing
    text = listing.uniform(form) if listing is not None else None
    forms = frozenset({"full"}) if form == "full" else NAMES_FORMS
    if text is not None:
        guess = math.ceil(len(text) / CHARS_PER_TOKEN)
        for candidate in (guess - 1, guess, guess + 1, guess + 2):
            if candidate > 0 and _form_at(session, "", candidate) in forms and \
                    _form_at(session, "", candidate - 1) not in forms:
                return candidate
    return _smallest(session, "", forms, 0, 10 * CAP_HIGH) or 10 * CAP_HIGH


def _need(session: SessionState, budget: int) -> BudgetNeed:
    b = session.assembly.budget
    config = session.config
    if budget > CAP_HIGH:
        return BudgetNeed(budget, None, None, reachable=False)
    cap = max(budget, CAP_LOW) if config.listing_max_tokens < budget else None
    pct: float | None = None
    if b is not None and b.percent_leg < budget:
        context = session.context_length or 0
        if context <= 0:  # the fixed leg without a context: no threshold_pct reaches further
            return BudgetNeed(budget, cap, None, reachable=False,
                              limit=f"the fixed {b.percent_leg:,}-token leg used without a "
                                    "context length (set one)")
        pct = math.ceil(budget * 100 / context * 100) / 100  # two decimals, rounded up
        while int(context * pct / 100) < budget:
            pct = round(pct + 0.01, 2)
        if pct > 100:
            return BudgetNeed(budget, cap, None, reachable=False,
                              limit=f"the whole context of {context:,} tokens "
                                    "(threshold_pct stops at 100)")
    return BudgetNeed(budget, cap, pct)


_advice_memo: dict[tuple[int, str], tuple[SessionState, Any]] = {}
MEMO_SIZE = 64


def _session_memo(session: SessionState, what: str, make: Callable[[SessionState, str], Any]
                  ) -> Any:
    """One value per (session state, what), kept for the last few states."""
    key = (id(session), what)
    hit = _advice_memo.get(key)
    if hit is not None and hit[0] is session:
        return hit[1]
    value = make(session, what)
    if len(_advice_memo) >= MEMO_SIZE:
        _advice_memo.pop(next(iter(_advice_memo)))
    _advice_memo[key] = (session, value)
    return value


def server_advice(session: SessionState, toolset: str) -> ServerAdvice | None:
    """What would give *toolset*'s deferred tools names, then full lines, in the listing
    (memoised per session state: a highlighted row asks again on every move)."""
    found: ServerAdvice | None = _session_memo(session, f"server:{toolset}",
                                               lambda state, _: _server_advice(state, toolset))
    return found


def _server_advice(session: SessionState, toolset: str) -> ServerAdvice | None:
    ts = next((t for t in session.workspace.toolsets if t.name == toolset), None)
    a = session.assembly
    if ts is None or not a.activated or a.listing is None:
        return None
    group = a.listing.group(ts.label)
    if group is None:
        return None
    if session.config.listing == "off":
        return ServerAdvice(toolset, "none", None, None,
                            "listing is off: no listing at all (set listing: auto)")
    current = a.budget.budget if a.budget else 0
    form = group.form
    # full lines are all or nothing, so that budget is the same for every server
    full = None if form == "full" else _session_memo(session, "full", _everyone)
    names = None if form in NAMES_FORMS else _smallest(
        session, ts.label, NAMES_FORMS, current,
        max(current + 1, _session_memo(session, "names", _everyone)))
    return ServerAdvice(toolset, form, _need(session, names) if names else None,
                        _need(session, full) if full else None)


def keep_visible(session: SessionState, name: str) -> str | None:
    """For a deferred tool: what would keep it visible, said plainly (None if not deferred)."""
    config = session.config
    decision = decide(name, session.registry, defer_tools=config.effective_defer_tools,
                      profile=config.profile)
    if decision.status is not Status.DEFERRED:
        return None
    off = (f"enabled: off keeps it visible (and sends all "
           f"{session.assembly.deferred_tokens:,} deferred tokens eagerly)")
    if decision.rule is Rule.DEFER_LIST:
        rest = config.effective_defer_tools or frozenset()
        after = decide(name, session.registry, defer_tools=rest - {name},
                       profile=config.profile)
        if after.status is Status.DEFERRED:
            return (f"Taking it out of the defer list would not help: it would still defer "
                    f"(rule {after.rule.value}). Only {off}.")
        return ("Remove it from tools.tool_search.defer and it stays visible "
                f"(rule {after.rule.value}).")
    kind = "an MCP tool" if decision.rule is Rule.MCP else "a non-core plugin tool"
    return f"Only {off}: no other key keeps {kind} visible."


NEAR_RATIO = 0.4
"""The least similarity (difflib's ratio) a suggested name may have: one whose last part sits
inside the asked name's (or the other way round)."""
NEAR_FULL = 0.6
"""The least similarity of any other suggested name."""


def name_forms(lowered: str) -> tuple[str, ...]:
    """The ways an operator may write a tool's (lower-cased) name without its server: for an
    MCP tool, without the ``mcp__`` prefix (``firecrawl_scrape``) and bare (``scrape``);
    any other name as it is."""
    if not lowered.startswith("mcp__"):
        return (lowered,)
    rest = lowered[len("mcp__"):]
    return tuple(dict.fromkeys((rest.replace("__", "_"), rest.rsplit("__", 1)[-1])))


def closest_names(name: str, names: Iterable[str], limit: int = 3) -> list[str]:
    """The known tool names closest to *name* (for "did you mean"): a name whose last part
    ("scrape" of ``mcp__firecrawl__scrape``) sits inside the asked one's comes first. A name
    asked without the ``mcp__server__`` prefix (``post_twet``, or a word typed in the app's
    filter) is compared with each MCP tool's name without it: against the full names the
    prefix alone kept the ratio under the threshold, and nothing was suggested.

    Fast enough for a keystroke at thousands of names: difflib keeps the asked name's index
    between candidates, both quick ratios bound ratio() from above (a name that cannot reach
    the threshold is never compared in full: a pasted 120,000-character name took 30 s), and
    candidates are compared in full best bound first, stopping once no bound can beat the
    answer (a misspelt name took 0.2-0.9 s at 3,313 tools, every one compared in full)."""
    wanted = name.lower()
    tail = wanted.rsplit("__", 1)[-1]
    bare = not wanted.startswith("mcp__")
    matcher: difflib.SequenceMatcher[str] = difflib.SequenceMatcher(None, "", wanted,
                                                                     autojunk=False)
    bounded = []  # (-inside, -bound, candidate, forms that can reach the threshold)
    for candidate in dict.fromkeys(names):
        lowered = candidate.lower()
        own_tail = lowered.rsplit("__", 1)[-1]
        inside = bool(own_tail) and (own_tail in tail or tail in own_tail)
        forms = []
        bound = 0.0
        for form in name_forms(lowered) if bare else (lowered,):
            matcher.set_seq1(form)
            if matcher.real_quick_ratio() < NEAR_RATIO:
                continue
            quick = matcher.quick_ratio()
            if quick >= (NEAR_RATIO if inside else NEAR_FULL):
                forms.append(form)
                bound = max(bound, quick)
        if forms:
            bounded.append((-int(inside), -bound, candidate, forms))
    bounded.sort()
    found: list[tuple[int, float, str]] = []
    for inside_key, bound_key, candidate, forms in bounded:
        if len(found) >= limit and (inside_key, bound_key, candidate) > found[limit - 1]:
            break  # neither this bound nor any after it beats the answer
        ratio = 0.0
        for form in forms:
            matcher.set_seq1(form)
            ratio = max(ratio, matcher.ratio())
        if ratio >= (NEAR_RATIO if inside_key else NEAR_FULL):
            found.append((inside_key, -ratio, candidate))
            found.sort()
    return [c for _, _, c in found[:limit]]


@dataclass(frozen=True)
class ToolAdvice:
    """What would change one tool's explanation (see :func:`tool_advice`)."""

    keep_visible: str | None = None
    server: ServerAdvice | None = None
    did_you_mean: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        server = self.server
        return {
            "would_list_names_at": (server.would_list_names_at.as_json()
                                    if server and server.would_list_names_at else None),
            "would_list_full_at": (server.would_list_full_at.as_json()
                                   if server and server.would_list_full_at else None),
            "keep_visible": self.keep_visible,
            "did_you_mean": list(self.did_you_mean),
        }

    def sentences(self) -> list[str]:
        """The tool's own answer (what keeps it visible) first, then its server's budgets: a
        box cut short (the app's Tools explanation at 80x24) keeps what is about this tool."""
        out = [self.keep_visible] if self.keep_visible else []
        if self.server:
            out += self.server.sentences()
        if self.did_you_mean:
            out.append("Did you mean: " + ", ".join(self.did_you_mean) + "?")
        return out


def tool_advice(session: SessionState, name: str, status: str,
                toolset: str | None) -> ToolAdvice:
    """Advice for an explained tool: closest names when unknown, else what would change it."""
    if status == "unknown" and toolset is None:
        return ToolAdvice(did_you_mean=tuple(closest_names(name, session.def_by_name)))
    if status != "deferred":
        return ToolAdvice()
    owner = session.toolset_of.get(name)
    server = server_advice(session, owner) if owner else None
    return ToolAdvice(keep_visible(session, name), server)
