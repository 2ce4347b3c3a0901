"""REFERENCE §3: activation, budget, tiers, the assembled tool list and the log line."""

from __future__ import annotations

import logging

import pytest
from reference_impl import fdef, names, ref_budget, ref_estimate, ref_listing

from toolsearch.assemble import (
    AssemblyResult,
    assemble_tool_defs,
    listing_token_budget,
    should_activate,
    tier_for_form,
)
from toolsearch.config import ToolSearchConfig
from toolsearch.schemas import bridge_tool_schemas

BRIDGES = ["tool_search", "tool_describe", "tool_call"]

REGISTRY = {
    "mcp__github__create_issue": "mcp-github",
    "mcp__github__list_issues": "mcp-github",
    "mcp__linear__create_task": "mcp-linear",
    "kanban_sync": "kanban",
    "terminal": "terminal",
    "read_terminal": "desktop_ui",
}


def session_defs() -> list[dict]:
    return [
        fdef("terminal", "Run a shell command.", {"command": {"type": "string"}}, ["command"]),
        fdef("mcp__github__create_issue", "Create an issue.", {"title": {"type": "string"}},
             ["title"]),
        fdef("read_terminal", "Read the terminal pane."),
        fdef("mcp__linear__create_task", "Create a Linear task."),
        fdef("unregistered_tool", "Nobody registered me."),
        fdef("kanban_sync", "Sync the board."),
        fdef("mcp__github__list_issues", "List issues."),
    ]


def config(**raw) -> ToolSearchConfig:
    return ToolSearchConfig.from_raw(raw)


# --------------------------------------------------------------------------- budget


@pytest.mark.parametrize(
    ("raw", "context", "budget"),
    [
        ({"threshold_pct": 5, "listing_max_tokens": 8000}, 200_000, 8000),
        ({"threshold_pct": 5, "listing_max_tokens": 8000}, 50_000, 2500),
        ({"threshold_pct": 5, "listing_max_tokens": 8000}, 0, 8000),
        ({"threshold_pct": 5, "listing_max_tokens": 8000}, None, 8000),
        ({}, 200_000, 4000),
        ({}, 40_000, 2000),
        ({}, None, 4000),
        ({}, -5, 4000),  # not > 0: the fixed 10 000 leg
        ({"listing_max_tokens": 60000}, None, 10000),
        ({"threshold_pct": 0}, 200_000, 0),
        ({"threshold_pct": 100, "listing_max_tokens": 60000}, 30_000, 30000),
        ({"threshold_pct": 2.5}, 100_001, 2500),  # int() truncates 2500.025
        ({"threshold_pct": 5}, 1, 0),
    ],
)
def test_listing_token_budget(raw, context, budget):
    cfg = config(**raw)
    assert listing_token_budget(cfg, context) == budget
    assert budget == ref_budget(cfg.threshold_pct, cfg.listing_max_tokens, context)


@pytest.mark.parametrize(
    ("enabled", "tokens", "expected"),
    [("off", 100, False), ("off", 0, False), ("on", 0, False), ("auto", 0, False),
     ("on", 1, True), ("auto", 1, True), ("auto", -3, False)],
)
def test_should_activate_ignores_context(enabled, tokens, expected):
    cfg = config(enabled=enabled)
    for context in (None, 0, 1, 200_000):
        assert should_activate(cfg, tokens, context) is expected


@pytest.mark.parametrize(
    ("form", "tier"),
    [("full", 1), ("names", 1), ("mixed", 1), ("groups", 2), ("none", 2)],
)
def test_tier_for_form(form, tier):
    assert tier_for_form(form) == tier


# --------------------------------------------------------------------------- tier 0


def test_result_defaults():
    result = AssemblyResult(tool_defs=(), activated=False)
    assert (result.deferred_count, result.deferred_tokens, result.threshold_tokens,
            result.tier, result.listing_form) == (0, 0, 0, 0, "none")


def test_no_deferrable_is_a_passthrough():
    defs = [fdef("terminal"), fdef("unregistered_tool"), fdef("read_terminal")]
    result = assemble_tool_defs(defs, REGISTRY, context_length=200_000)
    assert result.activated is False
    assert list(result.tool_defs) == defs
    assert (result.deferred_count, result.deferred_tokens, result.threshold_tokens,
            result.tier, result.listing_form) == (0, 0, 0, 0, "none")
    assert result.log_line is None


def test_empty_input_is_a_passthrough():
    result = assemble_tool_defs([], REGISTRY)
    assert result.activated is False and result.tool_defs == ()


def test_passthrough_strips_incoming_bridges():
    defs = [fdef("terminal"), fdef("tool_search"), fdef("tool_call")]
    result = assemble_tool_defs(defs, REGISTRY)
    assert names(result.tool_defs) == ["terminal"]
    assert result.activated is False


@pytest.mark.parametrize("context", [200_000, 50_000, None, 0])
def test_enabled_off_is_a_passthrough_with_its_fields(context, caplog):
    defs = session_defs()
    cfg = config(enabled="off")
    with caplog.at_level(logging.INFO, logger="tools.tool_search"):
        result = assemble_tool_defs(defs, REGISTRY, context_length=context, config=cfg)
    deferrable = [d for d in defs if REGISTRY.get(names([d])[0], "").startswith("mcp-")
                  or names([d])[0] == "kanban_sync"]
    assert result.activated is False
    assert list(result.tool_defs) == defs
    assert result.deferred_count == 4 == len(deferrable)
    assert result.deferred_tokens == ref_estimate(deferrable)
    assert result.threshold_tokens == int((context or 0) * 5.0 / 100)
    assert (result.tier, result.listing_form) == (0, "none")
    assert not [r for r in caplog.records if r.name == "tools.tool_search"]


# --------------------------------------------------------------------------- activation


def test_activated_defs_are_visible_in_order_then_the_three_bridges():
    defs = session_defs()
    result = assemble_tool_defs(defs, REGISTRY, context_length=200_000)
    assert result.activated is True
    assert names(result.tool_defs) == ["terminal", "read_terminal", "unregistered_tool",
                                       *BRIDGES]
    assert result.tool_defs[0] == defs[0]
    assert result.deferred_count == 4
    deferrable = [defs[1], defs[3], defs[5], defs[6]]
    assert result.deferred_tokens == ref_estimate(deferrable)
    assert result.threshold_tokens == 4000
    assert (result.tier, result.listing_form) == (1, "full")
    text, form = ref_listing(deferrable, REGISTRY, 4000)
    assert form == "full"
    assert result.listing_text == text
    assert list(result.tool_defs[-3:]) == list(bridge_tool_schemas(4, listing=text,
                                                                   listing_form="full"))
    assert result.visible_names == ("terminal", "read_terminal", "unregistered_tool")
    assert result.deferred_names == ("mcp__github__create_issue", "mcp__linear__create_task",
                                     "kanban_sync", "mcp__github__list_issues")


def test_enabled_on_and_auto_are_identical():
    defs = session_defs()
    on = assemble_tool_defs(defs, REGISTRY, context_length=200_000, config=config(enabled="on"))
    auto = assemble_tool_defs(defs, REGISTRY, context_length=200_000,
                              config=config(enabled="auto"))
    assert on.tool_defs == auto.tool_defs and on.log_line == auto.log_line


def test_incoming_bridges_are_stripped_and_assembly_is_idempotent():
    defs = session_defs()
    clean = assemble_tool_defs(defs, REGISTRY, context_length=200_000)
    stale = [fdef("tool_call", "old"), *defs, fdef("tool_search", "stale listing")]
    again = assemble_tool_defs(stale, REGISTRY, context_length=200_000)
    assert again.tool_defs == clean.tool_defs
    # assembling the assembled output: the old bridges are stripped, no duplicates appear
    twice = assemble_tool_defs(clean.tool_defs, REGISTRY, context_length=200_000)
    assert names(twice.tool_defs) == ["terminal", "read_terminal", "unregistered_tool"]
    assert twice.activated is False
    assert names(twice.tool_defs).count("tool_search") == 0


def test_listing_off_is_tier_2_with_form_none():
    result = assemble_tool_defs(session_defs(), REGISTRY, context_length=200_000,
                                config=config(listing="off"))
    assert result.activated is True
    assert (result.tier, result.listing_form, result.listing_text) == (2, "none", None)
    assert names(result.tool_defs)[-3:] == BRIDGES
    assert result.tool_defs[-3]["function"]["description"] == \
        bridge_tool_schemas(4)[0]["function"]["description"]


@pytest.mark.parametrize(
    ("defs_count", "raw", "context", "form", "tier"),
    [
        (40, {"listing_max_tokens": 60000}, 1_000_000, "full", 1),
        (40, {"threshold_pct": 0.5}, 80_000, "names", 1),  # 400-token budget
        (400, {"threshold_pct": 1}, 80_000, "mixed", 1),
        (400, {"threshold_pct": 0.08}, 80_000, "groups", 2),  # 64-token budget
        (400, {"threshold_pct": 0.01}, 80_000, "none", 2),  # 8-token budget
        (40, {"threshold_pct": 0}, 80_000, "none", 2),
    ],
)
def test_tier_follows_the_listing_form(defs_count, raw, context, form, tier):
    defs, registry = [], {}
    for i in range(defs_count):
        srv = "big" if i % 40 else "small"
        name = f"mcp__{srv}__tool_number_{i:04d}"
        defs.append(fdef(name, f"Performs operation {i} on the {srv} service."))
        registry[name] = f"mcp-{srv}"
    cfg = config(**raw)
    result = assemble_tool_defs(defs, registry, context_length=context, config=cfg)
    budget = ref_budget(cfg.threshold_pct, cfg.listing_max_tokens, context)
    assert result.threshold_tokens == budget
    assert (result.listing_form, result.tier) == (form, tier)
    assert (result.listing_text, result.listing_form) == ref_listing(defs, registry, budget)


# --------------------------------------------------------------------------- the log line


def test_log_line_is_byte_exact_on_the_tool_search_logger(caplog):
    defs = session_defs()
    with caplog.at_level(logging.INFO, logger="tools.tool_search"):
        result = assemble_tool_defs(defs, REGISTRY, context_length=200_000)
    tokens = result.deferred_tokens
    expected = (f"tool_search activated (tier 1): 3 core/visible tools kept, 4 deferred "
                f"(~{tokens} tokens), listing full (budget ~4000 tokens)")
    records = [r for r in caplog.records if r.name == "tools.tool_search"]
    assert len(records) == 1
    assert records[0].levelno == logging.INFO
    assert records[0].getMessage() == expected
    assert result.log_line == expected


def test_log_line_for_tier_2(caplog):
    with caplog.at_level(logging.INFO, logger="tools.tool_search"):
        result = assemble_tool_defs(session_defs(), REGISTRY, context_length=None,
                                    config=config(listing="off", listing_max_tokens=300))
    assert caplog.records[-1].getMessage() == (
        f"tool_search activated (tier 2): 3 core/visible tools kept, 4 deferred "
        f"(~{result.deferred_tokens} tokens), listing none (budget ~300 tokens)")


def test_seed_demo_shaped_log_line(caplog):
    # SPEC §5: 11 core tools + firecrawl (27) + xactions (145) at 200K with defaults
    core = ["web_search", "web_extract", "terminal", "read_file", "write_file", "patch",
            "search_files", "memory", "clarify", "todo", "execute_code"]
    defs = [fdef(n, "core") for n in core]
    registry = {}
    for srv, count in (("firecrawl", 27), ("xactions", 145)):
        for i in range(count):
            name = f"mcp__{srv}__t{i}"
            defs.append(fdef(name, "x"))
            registry[name] = f"mcp-{srv}"
    with caplog.at_level(logging.INFO, logger="tools.tool_search"):
        result = assemble_tool_defs(defs, registry, context_length=200_000)
    assert caplog.records[-1].getMessage() == (
        f"tool_search activated (tier 1): 11 core/visible tools kept, 172 deferred "
        f"(~{result.deferred_tokens} tokens), listing full (budget ~4000 tokens)")


def test_result_is_immutable():
    result = assemble_tool_defs(session_defs(), REGISTRY, context_length=200_000)
    assert isinstance(result.tool_defs, tuple)
    with pytest.raises(AttributeError):
        result.tier = 2  # type: ignore[misc]
