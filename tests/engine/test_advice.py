"""What would change it: the budgets the advice names really change the listing form."""

from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path

import pytest

from toolsearch.advice import closest_names, keep_visible, name_forms, server_advice
from toolsearch.classify import def_name
from toolsearch.session import SessionState
from toolsearch.sources.catalog_file import load_catalog_file
from toolsearch.toolsets import Toolset, ToolSpec, Workspace

SAMPLES = Path(__file__).resolve().parents[2] / "sample_catalogs"


def _workspace() -> Workspace:
    def server(name: str, count: int) -> Toolset:
        return Toolset(name, "mcp", tuple(
            ToolSpec(f"action_{i}", f"Do the {name} thing number {i} with a long enough "
                     "description to make full lines cost more than names.",
                     {"type": "object", "properties": {}}) for i in range(count)))

    core = Toolset("hermes-core", "core", (ToolSpec("terminal", "Run a shell command.", {}),))
    return Workspace(name="advice", toolsets=(core, server("alpha", 30), server("beta", 8)),
                     context_length=200_000)


def _form(state: SessionState, toolset: str) -> str:
    return next(r.listing_form for r in state.rows() if r.name == toolset)


@pytest.mark.parametrize("cap", [200, 400, 700])
def test_names_and_full_budgets_are_the_smallest_that_work(cap: int) -> None:
    state = SessionState.from_workspace(_workspace(), overrides={"listing_max_tokens": cap})
    for toolset in ("alpha", "beta"):
        advice = server_advice(state, toolset)
        assert advice is not None
        full = advice.would_list_full_at
        assert full is not None and full.reachable and full.threshold_pct is None
        assert _form(state.with_config(listing_max_tokens=full.listing_max_tokens),
                     toolset) == "full"
        assert _form(state.with_config(listing_max_tokens=full.budget - 1), toolset) != "full"
        names = advice.would_list_names_at
        if names is None:
            assert _form(state, toolset) in ("names", "full")
            continue
        assert _form(state, toolset) not in ("names", "full")
        assert _form(state.with_config(listing_max_tokens=names.budget), toolset) in (
            "names", "full")
        assert _form(state.with_config(listing_max_tokens=names.budget - 1), toolset) not in (
            "names", "full")


def test_the_percentage_leg_asks_for_threshold_pct_too() -> None:
    state = SessionState.from_workspace(_workspace(), context_length=10_000)  # 5% = 500
    advice = server_advice(state, "alpha")
    assert advice is not None and advice.would_list_full_at is not None
    need = advice.would_list_full_at
    assert need.budget > 500 and need.threshold_pct is not None
    fixed = state.with_config(threshold_pct=need.threshold_pct,
                              **({"listing_max_tokens": need.listing_max_tokens}
                                 if need.listing_max_tokens else {}))
    assert _form(fixed, "alpha") == "full"
    assert "threshold_pct \u2265" in advice.sentences()[-1]


def test_explain_json_carries_the_advice() -> None:
    state = SessionState.from_workspace(_workspace(), overrides={"listing_max_tokens": 200})
    data = state.explain("mcp__alpha__action_3").as_json()
    assert data["status"] == "deferred"
    assert data["would_list_full_at"]["budget"] > 200
    assert "enabled: off" in data["keep_visible"]
    assert data["did_you_mean"] == []
    visible = state.explain("terminal").as_json()
    assert visible["would_list_full_at"] is None and visible["keep_visible"] is None


def test_explain_without_advice_is_the_same_explanation_less_the_advice() -> None:
    state = SessionState.from_workspace(_workspace(), overrides={"listing_max_tokens": 200})
    for name in ("mcp__alpha__action_3", "terminal", "nope"):
        full, bare = state.explain(name), state.explain(name, advice=False)
        assert bare.advice is None
        assert dataclasses.replace(full, advice=None) == bare
    deferred = state.explain("mcp__alpha__action_3", advice=False)
    assert state.advised(deferred) == state.explain("mcp__alpha__action_3")
    assert state.explain("mcp__alpha__action_3").advice is not None


def test_keep_visible_under_latest_names_the_defer_list() -> None:
    state = SessionState.from_workspace(_workspace(), profile="latest",
                                        overrides={"defer": ["terminal"]})
    assert state.explain("terminal").status == "deferred"
    said = keep_visible(state, "terminal")
    assert said is not None and "defer" in said and "stays visible" in said
    mcp = keep_visible(state, "mcp__beta__action_1")
    assert mcp is not None and "enabled: off" in mcp


def test_did_you_mean_puts_the_same_last_part_first() -> None:
    names = ["mcp__firecrawl__crawl", "mcp__firecrawl__scrape", "mcp__firecrawl__crawl_cancel",
             "mcp__github__create_issue"]
    assert closest_names("mcp__firecrawl__firecrawl_scrape", names)[0] == \
        "mcp__firecrawl__scrape"
    assert closest_names("zzz", names) == []
    state = SessionState.from_workspace(_workspace())
    data = state.explain("mcp__alpha__action_33").as_json()
    assert data["status"] == "unknown"
    assert "mcp__alpha__action_3" in data["did_you_mean"]


def test_did_you_mean_finds_a_misspelt_name_written_without_its_server() -> None:
    """The name as the operator knows it (the README's ``post_tweet``, a word typed in the
    app's filter) is compared with each MCP tool's bare name: against the full names the
    ``mcp__server__`` prefix alone kept it under the threshold and nothing was offered."""
    state = SessionState.from_workspace(load_catalog_file(SAMPLES / "seed-demo.yaml"))
    names = [def_name(d) for d in state.session_defs]
    assert closest_names("post_twet", names)[0] == "mcp__xactions__post_tweet"
    assert closest_names("scrap", names)[0] == "mcp__firecrawl__scrape"
    assert "mcp__firecrawl__scrape" in closest_names("firecrawl_scrap", names)
    assert state.explain("post_twet").as_json()["did_you_mean"][0] == \
        "mcp__xactions__post_tweet"


def _closest_in_full(name, names, limit=3):
    """closest_names without the quick bounds: every name compared in full."""
    wanted, tail, scored = name.lower(), name.lower().rsplit("__", 1)[-1], []
    for candidate in dict.fromkeys(names):
        lowered = candidate.lower()
        own_tail = lowered.rsplit("__", 1)[-1]
        forms = name_forms(lowered) if not wanted.startswith("mcp__") else (lowered,)
        ratio = max(difflib.SequenceMatcher(None, f, wanted, autojunk=False).ratio()
                    for f in forms)
        inside = bool(own_tail) and (own_tail in tail or tail in own_tail)
        if ratio >= 0.6 or inside and ratio >= 0.4:
            scored.append((-int(inside), -ratio, candidate))
    return [c for _, _, c in sorted(scored)[:limit]]


def test_closest_names_skips_hopeless_names_without_changing_the_answer(monkeypatch):
    """The quick ratios only skip names that cannot reach the threshold: the same answer as
    comparing every name in full; a pasted 120,000-character name is never compared in full
    (it took 30 s)."""
    state = SessionState.from_workspace(load_catalog_file(SAMPLES / "seed-demo.yaml"))
    names = [def_name(d) for d in state.session_defs]
    for asked in ("mcp__firecrawl__firecrawl_scrape", "scrape", "mcp__xactions__tweet",
                  "firecrawl", "x", "mcp__firecrawl__scrpe", "home_timeline", "zzz", "",
                  "post_twet", "scrap", "firecrawl_scrap"):
        assert closest_names(asked, names) == _closest_in_full(asked, names), asked

    def no_full_compare(self):
        raise AssertionError("compared in full")

    monkeypatch.setattr(difflib.SequenceMatcher, "ratio", no_full_compare)
    assert closest_names("mcp__firecrawl__" + "s" * 120_000, names) == []


def test_closest_names_at_thousands_of_tools_compares_few_names_in_full(monkeypatch):
    """A misspelt name typed in the app's Tools filter at 3,313 tools compared hundreds of
    names in full (0.2-0.9 s on the UI thread per pause in typing); best bound first, the
    answer is the same and a handful of full comparisons find it."""
    state = SessionState.from_workspace(load_catalog_file(SAMPLES / "cloudflare-scale.yaml"))
    names = list(state.def_by_name)
    asked = ("zone_hold_lists", "mcp__cloudflare__zone_hold_lists", "post_twet", "zone")
    expected = {a: _closest_in_full(a, names) for a in asked}
    full = difflib.SequenceMatcher.ratio
    calls = []

    def counted(self):
        calls.append(1)
        return full(self)

    monkeypatch.setattr(difflib.SequenceMatcher, "ratio", counted)
    for a in asked:
        calls.clear()
        assert closest_names(a, names) == expected[a], a
        assert len(calls) <= 60, (a, len(calls))
    assert expected["zone_hold_lists"][0] == "mcp__cloudflare__zone_holds_list"
