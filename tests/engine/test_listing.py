"""REFERENCE §6 (G1): short descriptions, line formats, grouping, per-server degradation."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_impl import fdef, ref_listing, ref_render, ref_short_description

from toolsearch.listing import (
    LISTING_HEADER,
    build_catalog_listing,
    build_catalog_listing_with_form,
    build_listing,
    group_defs,
    short_description,
)

HEADER = "Deferred tool catalog (call schemas via `tool_describe`, invoke via `tool_call`):"
ELLIPSIS = "\u2026"


def test_header_is_byte_exact():
    assert LISTING_HEADER == HEADER


# --------------------------------------------------------------------------- short description


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello world! More", "Hello world"),
        ("v1.2 release notes", "v1."),
        ("What is this? Another", "What is this"),
        ("Open an issue. Then more.", "Open an issue."),
        ("No sentence end", "No sentence end"),
        ("Line one\nLine two", "Line one Line two"),  # whitespace collapses before the cut
        ("  spaced\t\tout   words  ", "spaced out words"),
        ("", ""),
        (None, ""),
        ("   \n\t ", ""),
        ("!leading bang", ""),
        (".", "."),
        ("e.g. this", "e."),  # G1 has no abbreviation rule
        ("Use e.g. this. Next", "Use e."),
        ("Ends with dot.", "Ends with dot."),
        ("x" * 60, "x" * 60),  # exactly 60 is kept
        ("x" * 61, "x" * 60 + ELLIPSIS),  # no space: hard cut at 60
        ("a" * 50 + " bcdefgh, ijklm", "a" * 50 + " bcdefgh" + ELLIPSIS),  # back to space, strip ,
        ("a" * 55 + " bc; de fg", "a" * 55 + " bc" + ELLIPSIS),
        ("a" * 56 + ":: " + "b" * 10, "a" * 56 + ELLIPSIS),
        ("word " * 20, "word " * 11 + "word" + ELLIPSIS),
        ("Short first. " + "x" * 100, "Short first."),
        ("A" * 70 + ". tail", "A" * 60 + ELLIPSIS),
    ],
)
def test_short_description(text, expected):
    assert short_description(text) == expected


@given(st.one_of(st.none(), st.text(max_size=140),
                 st.lists(st.sampled_from(["word", "a,", "b;", "c:", " ", "\n", ".", "!",
                                           "?", "é", "x" * 30]), max_size=12).map("".join)))
def test_short_description_matches_the_reference(text):
    got = short_description(text)
    assert got == ref_short_description(text)
    assert len(got) <= 61


# --------------------------------------------------------------------------- line formats

REGISTRY = {
    "mcp__github__create_issue": "mcp-github",
    "mcp__github__list_issues": "mcp-github",
    "kanban_sync": "kanban",
}


def test_full_form_lines():
    defs = [
        fdef("mcp__github__list_issues", "List issues. Paged."),
        fdef("mcp__github__create_issue", "Create an issue! Really."),
        fdef("kanban_sync", ""),
        fdef("loose_tool", "Not registered."),
    ]
    text, form = build_catalog_listing_with_form(defs, REGISTRY, 4000)
    assert form == "full"
    assert text == "\n".join([
        HEADER,
        "github tools (2):",
        "- mcp__github__create_issue: Create an issue",
        "- mcp__github__list_issues: List issues.",
        "kanban tools (1):",
        "- kanban_sync",
        "other tools (1):",
        "- loose_tool: Not registered.",
    ])
    assert build_catalog_listing(defs, REGISTRY, 4000) == text


def test_names_and_summary_formats():
    tools = [("a", "x"), ("b", "")]
    assert ref_render("srv", tools, "names") == "srv tools (2):\na, b"
    listing = build_listing([fdef("b"), fdef("a", "x")], {"a": "mcp-srv", "b": "mcp-srv"}, 4000)
    group = listing.group("srv")
    assert group is not None
    assert group.render("names") == "srv tools (2):\na, b"
    assert group.render("summary") == (
        "srv (2 tools \u2014 names not listed; discover via `tool_search`)")
    assert group.render("full") == "srv tools (2):\n- a: x\n- b"


def test_labels_sorted_and_tools_sorted_by_name_then_description():
    registry = {"z_tool": "mcp-zeta", "a_tool": "mcp-alpha", "B_tool": "Beta",
                "dup": "mcp-alpha", "loose": None}
    defs = [fdef("z_tool", "z"), fdef("dup", "second"), fdef("loose"), fdef("a_tool", "a"),
            fdef("B_tool", "b"), fdef("dup", "first")]
    groups = group_defs(defs, registry)
    assert [g.label for g in groups] == ["Beta", "alpha", "other", "zeta"]
    assert groups[1].tools == (("a_tool", "a"), ("dup", "first"), ("dup", "second"))


def test_mcp_prefix_only_is_stripped_from_labels():
    registry = {"a": "mcp-mcp-x", "b": "mcpish", "c": "plugin-mcp-"}
    assert [g.label for g in group_defs([fdef("a"), fdef("b"), fdef("c")], registry)] == \
        ["mcp-x", "mcpish", "plugin-mcp-"]


def test_nameless_defs_are_skipped_and_empty_input_is_none():
    assert build_catalog_listing_with_form([], {}, 4000) == (None, "none")
    assert build_catalog_listing_with_form([fdef(None, "x"), fdef("", "y")], {}, 4000) == \
        (None, "none")


# --------------------------------------------------------------------------- degradation


def server(label: str, count: int, width: int = 12) -> tuple[list[dict], dict[str, str]]:
    defs, registry = [], {}
    for i in range(count):
        name = f"mcp__{label}__{'t' * width}_{i:03d}"
        defs.append(fdef(name, f"Does thing number {i} for {label}. More text."))
        registry[name] = f"mcp-{label}"
    return defs, registry


def catalog(*servers: tuple[str, int]) -> tuple[list[dict], dict[str, str]]:
    defs, registry = [], {}
    for label, count in servers:
        d, r = server(label, count)
        defs += d
        registry.update(r)
    return defs, registry


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4.0)


def uniform(defs, registry, form):
    return build_listing(defs, registry, 10**9).uniform(form)


def test_full_when_it_fits_exactly():
    defs, registry = catalog(("big", 30), ("small", 3))
    full = uniform(defs, registry, "full")
    assert build_catalog_listing_with_form(defs, registry, tokens(full)) == (full, "full")


def test_names_when_full_is_one_token_over():
    defs, registry = catalog(("big", 30), ("small", 3))
    full = uniform(defs, registry, "full")
    names = uniform(defs, registry, "names")
    assert tokens(names) < tokens(full) - 1
    assert build_catalog_listing_with_form(defs, registry, tokens(full) - 1) == (names, "names")
    assert build_catalog_listing_with_form(defs, registry, tokens(names)) == (names, "names")


def test_mixed_collapses_the_largest_names_block_first():
    defs, registry = catalog(("big", 30), ("small", 3))
    names = uniform(defs, registry, "names")
    text, form = build_catalog_listing_with_form(defs, registry, tokens(names) - 1)
    assert form == "mixed"
    assert "big (30 tools \u2014 names not listed; discover via `tool_search`)" in text
    assert "small tools (3):" in text
    assert text.split("\n")[0] == HEADER
    assert tokens(text) <= tokens(names) - 1


def test_groups_when_every_server_is_summarised():
    defs, registry = catalog(("big", 30), ("small", 3))
    summary = uniform(defs, registry, "summary")
    text, form = build_catalog_listing_with_form(defs, registry, tokens(summary))
    assert (text, form) == (summary, "groups")
    assert text == "\n".join([
        HEADER,
        "big (30 tools \u2014 names not listed; discover via `tool_search`)",
        "small (3 tools \u2014 names not listed; discover via `tool_search`)",
    ])


def test_none_when_even_every_summary_is_too_big():
    defs, registry = catalog(("big", 30), ("small", 3))
    summary = uniform(defs, registry, "summary")
    assert build_catalog_listing_with_form(defs, registry, tokens(summary) - 1) == (None, "none")
    assert build_catalog_listing_with_form(defs, registry, 0) == (None, "none")
    assert build_catalog_listing_with_form(defs, registry, -5) == (None, "none")


def test_collapse_ties_go_by_label_ascending():
    # identical names-block lengths: "aa" collapses before "bb"
    registry = {}
    for label, letter in (("bb", "x"), ("aa", "y")):
        for i in range(10):
            registry[f"{letter}_tool_{i}"] = f"mcp-{label}"
    defs = [fdef(name, "desc") for name in registry]
    groups = {g.label: g for g in group_defs(defs, registry)}
    assert len(groups["aa"].render("names")) == len(groups["bb"].render("names"))
    expected = "\n".join([HEADER, groups["aa"].render("summary"), groups["bb"].render("names")])
    text, form = build_catalog_listing_with_form(defs, registry, tokens(expected))
    assert (text, form) == (expected, "mixed")


def test_collapsing_a_tiny_group_can_grow_the_text():
    # a one-tool names block is shorter than its summary line, so collapsing does not help:
    # the loop still collapses in order and only a fit returns
    registry = {"x_1": "mcp-bb", "y_1": "mcp-aa"}
    defs = [fdef("x_1", "desc"), fdef("y_1", "desc")]
    names = uniform(defs, registry, "names")
    summary = uniform(defs, registry, "summary")
    assert len(summary) > len(names)
    assert build_catalog_listing_with_form(defs, registry, tokens(names) - 1) == (None, "none")


def test_a_huge_server_cannot_cost_a_small_server_its_names():
    # the Cloudflare-vs-Linear case: one huge server collapses, the small one keeps names
    defs, registry = catalog(("cloudflare", 400), ("linear", 24))
    text, form = build_catalog_listing_with_form(defs, registry, 1200)
    assert form == "mixed"
    assert "cloudflare (400 tools \u2014 names not listed" in text
    assert "linear tools (24):" in text


def test_result_groups_record_their_forms():
    defs, registry = catalog(("big", 30), ("small", 3))
    names = uniform(defs, registry, "names")
    listing = build_listing(defs, registry, tokens(names) - 1)
    assert {g.label: g.form for g in listing.groups} == {"big": "summary", "small": "names"}
    assert listing.tokens == tokens(listing.text)
    first_small = sorted(n for n in registry if "small" in n)[0]
    assert listing.line_for(first_small) == ", ".join(sorted(n for n in registry if "small" in n))
    assert listing.line_for(sorted(registry)[0]).startswith("big (30 tools")
    assert listing.line_for("nope") is None
    none = build_listing(defs, registry, 1)
    assert none.text is None and {g.form for g in none.groups} == {"none"}


# --------------------------------------------------------------------------- properties


@st.composite
def listing_inputs(draw):
    labels = draw(st.lists(st.sampled_from(["github", "linear", "slack", "kanban", "Zed", "a"]),
                           min_size=1, max_size=4, unique=True))
    defs, registry = [], {}
    count = draw(st.integers(min_value=0, max_value=14))
    for i in range(count):
        name = draw(st.sampled_from(["create", "list", "get", "x", "delete_all_the_things"]))
        name = f"{name}_{i}" if draw(st.booleans()) else name  # duplicates allowed
        desc = draw(st.one_of(st.none(), st.text(max_size=80),
                              st.sampled_from(["Do it. Now", "Fetch! x", "v1.2 notes", ""])))
        defs.append(fdef(name if draw(st.integers(0, 9)) else None, desc))
        choice = draw(st.integers(min_value=0, max_value=len(labels)))
        if choice < len(labels):
            registry[name] = (f"mcp-{labels[choice]}" if draw(st.booleans())
                              else labels[choice])
    budget = draw(st.integers(min_value=-1, max_value=400))
    return defs, registry, budget


@settings(max_examples=250, suppress_health_check=[HealthCheck.too_slow])
@given(listing_inputs(), st.randoms(use_true_random=False))
def test_listing_within_budget_permutation_stable_and_equal_to_the_reference(data, rnd):
    defs, registry, budget = data
    text, form = build_catalog_listing_with_form(defs, registry, budget)
    assert (text, form) == ref_listing(defs, registry, budget)
    if text is None:
        assert form == "none"
    else:
        assert math.ceil(len(text) / 4.0) <= budget
        assert form in ("full", "names", "mixed", "groups")
        assert text.startswith(HEADER + "\n")
        assert "\n\n" not in text
    shuffled = list(defs)
    rnd.shuffle(shuffled)
    assert build_catalog_listing_with_form(shuffled, registry, budget) == (text, form)


def test_byte_stable_under_permutation_of_a_big_catalog():
    defs, registry = catalog(("big", 60), ("mid", 20), ("small", 4))
    rng = random.Random(7)
    for budget in (100, 300, 600, 1500, 4000):
        expected = build_catalog_listing_with_form(defs, registry, budget)
        assert expected == ref_listing(defs, registry, budget)
        for _ in range(3):
            shuffled = list(defs)
            rng.shuffle(shuffled)
            assert build_catalog_listing_with_form(shuffled, registry, budget) == expected
