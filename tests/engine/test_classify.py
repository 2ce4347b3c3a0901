"""REFERENCE §1 (G1 order) plus the seed rule that desktop_ui / project never defer."""

from __future__ import annotations

import pytest
from reference_impl import fdef, names

from toolsearch.classify import (
    BRIDGE_TOOL_NAMES,
    HERMES_CORE_TOOLS,
    Decision,
    Registry,
    Rule,
    Status,
    as_registry,
    classify_tools,
    decide,
    def_name,
    default_core,
    is_deferrable_tool_name,
)

REGISTRY = {
    "terminal": "terminal",
    "todo": "todo",
    "mcp__github__create_issue": "mcp-github",
    "mcp__linear__create_task": "mcp-linear",
    "kanban_sync": "kanban",
    "read_terminal": "desktop_ui",
    "gui_tour": "desktop_ui",
    "desktop_project": "project",
    "setup_mcp": "setup",
    "web_search": "mcp-web",  # a core name registered under an mcp- toolset stays core
    "tool_search": "mcp-evil",  # a bridge name is a bridge whatever the registry says
    "broken": "",  # an empty toolset string is no entry
}


def test_bridge_names():
    assert BRIDGE_TOOL_NAMES == frozenset({"tool_search", "tool_describe", "tool_call"})


REFERENCE_CORE = frozenset("""
    web_search web_extract terminal process_manage read_file write_file patch search_files
    vision_analyze image_generate skills_list skill_view skill_manage browser_navigate
    browser_snapshot browser_click browser_type browser_scroll browser_back browser_press
    browser_get_images browser_vision browser_console browser_cdp browser_dialog browser_exec
    text_to_speech todo_list memory session_search clarify execute_code delegate_task
    cronjob_manage ha_list_entities ha_get_state ha_list_services ha_call_service kanban_show
    kanban_list kanban_complete kanban_block kanban_request_review kanban_request_changes
    kanban_heartbeat kanban_comment kanban_create kanban_link kanban_unblock kanban_attach
    kanban_attach_url kanban_attachments computer_use
""".split())


def test_core_list_is_the_newest_published_list():
    assert HERMES_CORE_TOOLS == REFERENCE_CORE
    assert len(HERMES_CORE_TOOLS) == 53
    for name in ("web_search", "terminal", "process_manage", "todo_list", "cronjob_manage",
                 "clarify", "computer_use", "kanban_attachments", "browser_exec", "memory"):
        assert name in HERMES_CORE_TOOLS
    assert BRIDGE_TOOL_NAMES.isdisjoint(HERMES_CORE_TOOLS)


def test_seed_core_keeps_the_old_names():
    core = default_core("seed")
    for old in ("todo", "process", "cronjob"):
        assert old in core
    assert HERMES_CORE_TOOLS <= core
    assert "todo" not in default_core("latest")


@pytest.mark.parametrize(
    ("name", "status", "rule", "toolset"),
    [
        ("tool_search", Status.DROPPED, Rule.BRIDGE, None),
        ("tool_describe", Status.DROPPED, Rule.BRIDGE, None),
        ("tool_call", Status.DROPPED, Rule.BRIDGE, None),
        ("terminal", Status.VISIBLE, Rule.CORE, "terminal"),
        ("todo", Status.VISIBLE, Rule.CORE, "todo"),
        ("process", Status.VISIBLE, Rule.CORE, None),  # core even when unregistered
        ("cronjob", Status.VISIBLE, Rule.CORE, None),
        ("clarify", Status.VISIBLE, Rule.CORE, None),
        ("web_search", Status.VISIBLE, Rule.CORE, "mcp-web"),
        ("unknown_tool", Status.VISIBLE, Rule.UNREGISTERED, None),
        ("broken", Status.VISIBLE, Rule.UNREGISTERED, None),
        ("mcp__github__create_issue", Status.DEFERRED, Rule.MCP, "mcp-github"),
        ("mcp__linear__create_task", Status.DEFERRED, Rule.MCP, "mcp-linear"),
        ("kanban_sync", Status.DEFERRED, Rule.PLUGIN, "kanban"),
        ("read_terminal", Status.VISIBLE, Rule.DIRECT_SURFACE, "desktop_ui"),
        ("gui_tour", Status.VISIBLE, Rule.DIRECT_SURFACE, "desktop_ui"),
        ("desktop_project", Status.VISIBLE, Rule.DIRECT_SURFACE, "project"),
        # ``setup`` is a G3 surface only: in the seed profile it is a plugin toolset.
        ("setup_mcp", Status.DEFERRED, Rule.PLUGIN, "setup"),
        ("", Status.VISIBLE, Rule.NAMELESS, None),
    ],
)
def test_decide_seed(name, status, rule, toolset):
    decision = decide(name, REGISTRY)
    assert decision == Decision(name, status, rule, toolset)
    assert decision.deferrable is (status is Status.DEFERRED)
    assert is_deferrable_tool_name(name, REGISTRY) is (status is Status.DEFERRED)


def test_seed_ignores_defer_tools():
    # The curated defer list is a G2+ feature; the seed profile never consults it.
    assert not is_deferrable_tool_name("terminal", REGISTRY, defer_tools={"terminal"})
    assert not is_deferrable_tool_name("read_terminal", REGISTRY, defer_tools={"read_terminal"})
    assert not is_deferrable_tool_name("unknown_tool", REGISTRY, defer_tools={"unknown_tool"})


def test_core_never_defers_even_if_registered_as_mcp():
    assert not is_deferrable_tool_name("web_search", {"web_search": "mcp-x"})


def test_registry_core_override_and_extra_core():
    reg = Registry({"mine": "plugin_x", "terminal": "mcp-t"}, core=frozenset({"mine"}))
    assert decide("mine", reg).rule is Rule.CORE
    assert decide("terminal", reg).rule is Rule.MCP  # replaced core set no longer has it
    reg = Registry({"mine": "plugin_x"}, extra_core=frozenset({"mine"}))
    assert decide("mine", reg).rule is Rule.CORE
    assert decide("terminal", reg).rule is Rule.CORE


def test_none_registry_means_everything_unregistered():
    assert decide("mcp__a__b", None).rule is Rule.UNREGISTERED


@pytest.mark.parametrize("value", [None, 3, ["mcp-x"], ""])
def test_malformed_registry_entry_is_no_entry(value):
    assert decide("x", {"x": value}).rule is Rule.UNREGISTERED


def test_as_registry_accepts_plain_dict_and_registry():
    reg = as_registry({"a": "mcp-a"})
    assert isinstance(reg, Registry) and reg.toolset_of("a") == "mcp-a"
    assert as_registry(reg) is reg
    assert as_registry(None).toolsets == {}


def test_registry_is_immutable():
    reg = Registry({"a": "mcp-a"})
    with pytest.raises(TypeError):
        reg.toolsets["b"] = "x"  # type: ignore[index]


@pytest.mark.parametrize(
    ("rule", "fragment"),
    [
        (Rule.BRIDGE, "reserved bridge name"),
        (Rule.CORE, "core never defers"),
        (Rule.UNREGISTERED, "never silently removed"),
        (Rule.MCP, "MCP toolset 'mcp-github'"),
        (Rule.DIRECT_SURFACE, "session-gated GUI surface"),
        (Rule.PLUGIN, "plugin tool of toolset 'kanban'"),
        (Rule.NAMELESS, "without a function name"),
    ],
)
def test_every_decision_has_a_reason(rule, fragment):
    name = {Rule.BRIDGE: "tool_call", Rule.CORE: "terminal", Rule.UNREGISTERED: "nope",
            Rule.MCP: "mcp__github__create_issue", Rule.DIRECT_SURFACE: "gui_tour",
            Rule.PLUGIN: "kanban_sync", Rule.NAMELESS: ""}[rule]
    decision = decide(name, REGISTRY)
    assert decision.rule is rule
    assert fragment in decision.reason
    if name:
        assert f"'{name}'" in decision.reason


def test_rule_ids_are_short_and_stable():
    assert {r.value for r in Rule} >= {"bridge", "core", "unregistered", "mcp-toolset",
                                        "direct-surface", "plugin", "nameless"}


# --------------------------------------------------------------------------- classify_tools


def test_classify_splits_preserving_order_and_drops_bridges():
    defs = [
        fdef("mcp__linear__create_task"),
        fdef("terminal"),
        fdef("tool_search"),
        fdef("kanban_sync"),
        fdef("unknown_tool"),
        fdef(None, "nameless"),
        fdef("mcp__github__create_issue"),
        fdef("read_terminal"),
        fdef("tool_call"),
        fdef("todo"),
    ]
    result = classify_tools(defs, REGISTRY)
    assert names(result.visible) == ["terminal", "unknown_tool", "", "read_terminal", "todo"]
    assert names(result.deferrable) == ["mcp__linear__create_task", "kanban_sync",
                                        "mcp__github__create_issue"]
    assert names(result.dropped) == ["tool_search", "tool_call"]
    assert [d.name for d in result.decisions] == names(defs)
    # the defs are passed through unchanged
    assert result.visible[0] == defs[1]
    assert result.deferrable[0] == defs[0]


def test_classify_unpacks_as_visible_and_deferrable():
    visible, deferrable = classify_tools([fdef("terminal"), fdef("mcp__a__b")], {"mcp__a__b": "mcp-a"})
    assert names(visible) == ["terminal"] and names(deferrable) == ["mcp__a__b"]


def test_classify_returns_tuples():
    result = classify_tools([fdef("terminal")], REGISTRY)
    assert isinstance(result.visible, tuple) and isinstance(result.deferrable, tuple)
    assert isinstance(result.decisions, tuple)


def test_unknown_tools_are_never_removed():
    # regression guard for OpenClaw #84141 ("cron lost its tool")
    defs = [fdef("cron_scheduler"), fdef("mystery")]
    result = classify_tools(defs, {})
    assert names(result.visible) == ["cron_scheduler", "mystery"]
    assert not result.deferrable and not result.dropped


def test_classify_empty_and_odd_defs():
    assert classify_tools([], REGISTRY).visible == ()
    odd = [{"type": "function"}, {"type": "function", "function": "x"},
           {"type": "function", "function": {"name": 7}}]
    result = classify_tools(odd, REGISTRY)
    assert len(result.visible) == 3
    assert all(d.rule is Rule.NAMELESS for d in result.decisions)


def test_classify_accepts_registry_object_and_plain_dict_alike():
    defs = [fdef(n) for n in REGISTRY]
    assert classify_tools(defs, REGISTRY) == classify_tools(defs, Registry(REGISTRY))


def test_def_name():
    assert def_name(fdef("abc")) == "abc"
    assert def_name({"function": {"name": None}}) == ""
    assert def_name("not a def") == ""
    assert def_name(None) == ""


@pytest.mark.parametrize("value", [["mcp-x"], {"toolset": "mcp-x"}, None, 7, ""])
def test_malformed_registry_values_never_raise_anywhere(value):
    # "lookup raised / malformed entry" -> no entry: visible, listed under "other"
    from toolsearch.assemble import assemble_tool_defs
    from toolsearch.catalog import build_catalog
    from toolsearch.listing import build_catalog_listing_with_form

    registry = {"x": value, "mcp__y__t": "mcp-y"}
    defs = [fdef("x", "ex"), fdef("mcp__y__t", "why")]
    result = classify_tools(defs, registry)
    assert names(result.visible) == ["x"] and names(result.deferrable) == ["mcp__y__t"]
    assert build_catalog([defs[0]], registry).entries[0].source == "other"
    text, form = build_catalog_listing_with_form([defs[0]], registry, 1000)
    assert form == "full" and "other tools (1):" in text
    assert assemble_tool_defs(defs, registry).activated is True


def test_a_core_tools_reason_names_the_defer_list_where_the_profile_checks_one():
    """Under latest the defer list comes before core: naming a core tool there defers it, so
    "no config can change that" was wrong; under seed (no defer list) it holds, and a GUI
    surface is not "direct unless named in the defer list" there."""
    from toolsearch.classify import decide

    latest = decide("terminal", {"terminal": "terminal"}, defer_tools=frozenset(),
                    profile="latest")
    assert latest.rule is Rule.CORE and "unless named in tools.tool_search.defer" in \
        latest.reason and "no config" not in latest.reason
    deferred = decide("terminal", {"terminal": "terminal"}, defer_tools={"terminal"},
                      profile="latest")
    assert deferred.rule is Rule.DEFER_LIST
    seed = decide("terminal", {"terminal": "terminal"}, profile="seed")
    assert "no config can change that" in seed.reason
