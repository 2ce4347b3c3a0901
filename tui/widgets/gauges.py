"""Gauges: tier and meaning, listing against budget, the binding leg, the saving, the bridge.

Numbers are always printed beside any bar (STYLE §9); colour only reinforces the words.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from toolsearch.session import SessionState

from ..view import (
    TIER_STYLES,
    ExactCounts,
    GaugeFigures,
    fmt,
    gauge_figures,
    gauge_warnings,
    listing_fit,
)

BAR_WIDTH = 20
NARROW = 100


def bar(value: int, total: int, width: int = BAR_WIDTH) -> str:
    if total <= 0:
        return "\u2591" * width
    filled = min(width, round(width * value / total))
    return "\u2588" * filled + "\u2591" * (width - filled)


def binding_words(g: GaugeFigures) -> str:
    if not g.context_length and g.binding != "cap":  # no percentage: the fixed leg binds
        return "the fixed 10,000 binds" if g.binding == "percent" else "both legs bind"
    if g.binding == "both":
        return "both legs bind"
    return "listing_max_tokens binds" if g.binding == "cap" else "threshold_pct binds"


SHORT_MEANINGS = {
    0: "everything eager",
    1: "bridge + per-tool listing",
    2: "bridge only: found via tool_search",
}


def _fitting(width: int, full: Content, short: Content) -> Content:
    """*full* where it fits in *width* columns (or the width is unknown), else *short*."""
    return full if not width or full.cell_length <= width else short


def compact_lines(g: GaugeFigures, exact: ExactCounts | None, width: int = 0) -> list[Content]:
    """Four lines for terminals narrower than 100 columns, each within *width* where it can
    be: the Tier line leaves out the tier's meaning, the Schemas line its deferred figure,
    where they would not fit (at 80x24 on the 4,932 real tools both wrapped, and the Tools
    table kept one row)."""
    fit, fit_style = listing_fit(g.listing_tokens, g.budget)
    state = "" if g.activated else (" \u00b7 tool search off" if g.enabled == "off"
                                     else " \u00b7 no tool can be deferred")
    binds = {"cap": "cap binds", "percent": "% binds" if g.context_length else "fixed binds",
             "both": "both bind"}[g.binding]
    leg = f"{g.threshold_pct:g}% of {fmt(g.context_length)}" if g.context_length else \
        "no context: fixed"
    schemas = Content.assemble(("Schemas ", "bold"),
                               f"eager {fmt(g.eager_tokens)} \u2192 sent {fmt(g.sent_tokens)} "
                               "\u00b7 ", (f"saving {fmt(g.saving)} ({g.saving_pct:.1f}%)",
                                             "bold"))
    deferred = f" \u00b7 deferred {fmt(g.deferred_tokens)}"
    tier = Content.assemble((f"Tier {g.tier}", f"{TIER_STYLES[g.tier]} bold"))
    listing = Content.assemble(f"{state} \u00b7 listing {g.listing_form} "
                               f"{fmt(g.listing_tokens)}/{fmt(g.budget)} ", (fit, fit_style))
    return [
        _fitting(width, tier + f" \u25b8 {SHORT_MEANINGS[g.tier]}" + listing, tier + listing),
        Content.assemble(("Budget ", "bold"),
                         f"min(cap {fmt(g.cap)}, {leg} = "
                         f"{fmt(g.percent_leg)}) = {fmt(g.budget)} \u00b7 ", (binds, "bold")),
        _fitting(width, schemas + deferred, schemas),
        Content.assemble(("Exact ", "bold"),
                         f"eager {fmt(exact.eager if exact else None)} \u2192 sent "
                         f"{fmt(exact.sent if exact else None)} \u00b7 bridge "
                         f"{fmt(g.bridge_tokens)} (exact {fmt(exact.bridge if exact else None)})"),
    ]


def gauge_lines(g: GaugeFigures, exact: ExactCounts | None, narrow: bool,
                width: int = 0) -> list[Content]:
    """The pane's lines; *exact* is None while the counts are being worked out."""
    if narrow:
        return compact_lines(g, exact, width)
    tier = Content.assemble((f"Tier {g.tier}", f"{TIER_STYLES[g.tier]} bold"), " \u25b8 ",
                            g.tier_meaning)
    if not g.activated:
        state = "off (enabled: off)" if g.enabled == "off" else "inactive: no tool can be deferred"
        tier = Content.assemble(tier, f" \u00b7 tool search {state}")
    fit, fit_style = listing_fit(g.listing_tokens, g.budget)
    listing = Content.assemble(
        ("Listing ", "bold"), (bar(g.listing_tokens, g.budget, BAR_WIDTH), fit_style),
        f" {fmt(g.listing_tokens)} / {fmt(g.budget)} tokens ", (fit, fit_style),
        f" \u00b7 form {g.listing_form}",
    )
    # without a context length threshold_pct plays no part: the leg is a fixed 10,000
    # ("threshold_pct 5% of context no context (fixed 10,000)" read as a percentage of it)
    leg = (f"threshold_pct {g.threshold_pct:g}% of context {fmt(g.context_length)}"
           if g.context_length else "no context length: fixed")
    budget = Content.assemble(
        ("Budget ", "bold"),
        f"min(listing_max_tokens {fmt(g.cap)}, {leg} "
        f"= {fmt(g.percent_leg)}) = {fmt(g.budget)} \u00b7 ", (binding_words(g), "bold"))
    ex_eager = exact.eager if exact else None
    ex_sent = exact.sent if exact else None
    ex_deferred = exact.deferred if exact else None
    saving = Content.assemble(
        ("Schemas ", "bold"),
        f"eager {fmt(g.eager_tokens)} \u2192 sent {fmt(g.sent_tokens)} \u00b7 ",
        (f"saving {fmt(g.saving)} tokens ({g.saving_pct:.1f}%)", "bold"),
        f" \u00b7 deferred {fmt(g.deferred_tokens)} ({g.deferred_count} tools)",
    )
    exact_line = Content.assemble(
        ("Exact   ", "bold"),
        f"cl100k: eager {fmt(ex_eager)} \u2192 sent {fmt(ex_sent)} \u00b7 deferred "
        f"{fmt(ex_deferred)}",
    )
    bridge_exact = exact.bridge if exact else None
    bridge = Content.assemble(
        ("Bridge  ", "bold"),
        f"3 bridge defs cost {fmt(g.bridge_tokens)} tokens (exact {fmt(bridge_exact)}), "
        f"listing included \u00b7 {g.visible_count} visible tools {fmt(g.visible_tokens)}"
        if g.activated else "no bridge: every schema is sent eagerly",
    )
    return [tier, listing, budget, saving, exact_line, bridge]


class GaugesPane(Vertical):
    """Always on screen, above the tabs."""

    DEFAULT_CSS = """
    GaugesPane { height: auto; }
    GaugesPane Static { height: auto; }
    """

    # repaint=False: a container draws nothing itself, its children repaint what changed
    # (repainting the whole pane on every change cost 2-4 ms of the frame at 4,900 tools)
    session: reactive[SessionState | None] = reactive(None, init=False, repaint=False)
    exact: reactive[ExactCounts | None] = reactive(None, init=False, repaint=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.figures: GaugeFigures | None = None

    def compose(self) -> ComposeResult:
        yield Static("Loading sources\u2026", id="gauge-text")

    def on_mount(self) -> None:
        self._render_gauges()

    def watch_session(self) -> None:
        self._render_gauges()

    def watch_exact(self) -> None:
        self._render_gauges()

    def on_resize(self) -> None:
        self._render_gauges()

    def _render_gauges(self) -> None:
        if not self.is_mounted or self.session is None:
            return
        self.figures = gauge_figures(self.session)
        exact = self.exact
        if exact is not None and exact.session_key != id(self.session):
            exact = None
        narrow = 0 < self.size.width < NARROW
        static = self.query_one("#gauge-text", Static)
        lines = gauge_lines(self.figures, exact, narrow,
                            static.content_region.width or self.size.width - 2)
        label = "\u26a0 " if narrow else "\u26a0 Warning "  # the glyph and words say it
        lines += [Content.assemble((label, "$outcome-warn bold"), text)
                  for text in gauge_warnings(self.figures, narrow)]
        text = Content("\n").join(lines)
        # Lay the screen out again only when the wrapped height changes: a layout pass over
        # every pane costs 10-35 ms with ~5,000 tools loaded, a repaint of six lines almost
        # nothing.
        width, height = static.content_region.width, static.content_region.height
        static.update(text, layout=width <= 0 or len(text.wrap(width)) != height)
        self.call_after_refresh(self._check_height)

    def _check_height(self) -> None:
        """The text's wrapped height against the height it was laid out with: a layout that
        ran at another width (the first frames, a resize) left the gauges 12 lines tall for
        6 lines of text at 80×24, hiding the Servers table."""
        static = self.query_one("#gauge-text", Static)
        width, height = static.content_region.width, static.content_region.height
        content = static.content
        if width > 0 and isinstance(content, Content) and len(content.wrap(width)) != height:
            static.refresh(layout=True)
