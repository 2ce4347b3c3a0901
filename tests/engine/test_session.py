"""SessionState: explain (visible / deferred / dropped / unknown), rows, toggles recompute."""

from __future__ import annotations

import pytest

from toolsearch.session import SessionState
from toolsearch.tokens import estimate_tokens_from_schemas, exact_def_tokens
from toolsearch.toolsets import Toolset, ToolsetStatus, ToolSpec, Workspace

ISSUE_SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}},
                "required": ["title"]}


def workspace() -> Workspace:
    return Workspace(
        name="test",
        toolsets=(
            Toolset("core", "core", (ToolSpec("terminal", "Run a command."),
                                     ToolSpec("my_core_tool", "Custom core."))),
            Toolset("github", "mcp", (
                ToolSpec("create_issue", "Create an issue. In a repo.", ISSUE_SCHEMA),
                ToolSpec("list_issues", "List issues."),
            )),
            Toolset("linear", "mcp", (ToolSpec("create_task", "Create a task."),)),
            Toolset("kanban", "plugin", (ToolSpec("kanban_sync", "Sync the board."),)),
            Toolset("desktop_ui", "direct", (ToolSpec("read_terminal", "Read the pane."),)),
            Toolset("loose", "unregistered", (ToolSpec("loose_tool", "Nobody owns me."),)),
            Toolset("broken", "mcp", (), status=ToolsetStatus.ERROR, error="refused"),
        ),
    )


@pytest.fixture
def state() -> SessionState:
    return SessionState.from_workspace(workspace())


def test_from_workspace_defaults(state):
    assert state.context_length == 200_000
    assert state.config.profile.name == "seed"
    assert state.scope is None and state.detached == frozenset()


def test_from_workspace_takes_overrides_and_catalog_settings():
    ws = Workspace(toolsets=workspace().toolsets, context_length=50_000,
                   tool_search={"listing_max_tokens": 300, "threshold_pct": 7})
    s = SessionState.from_workspace(ws, overrides={"threshold_pct": 9})
    assert s.context_length == 50_000
    assert (s.config.listing_max_tokens, s.config.threshold_pct) == (300, 9.0)
    assert SessionState.from_workspace(ws, context_length=1000).context_length == 1000


def test_assembly(state):
    result = state.assembly
    assert result.activated and result.tier == 1 and result.listing_form == "full"
    assert result.visible_names == ("terminal", "my_core_tool", "read_terminal", "loose_tool")
    assert result.deferred_names == ("mcp__github__create_issue", "mcp__github__list_issues",
                                     "mcp__linear__create_task", "kanban_sync")


# --------------------------------------------------------------------------- explain


def test_explain_visible_core(state):
    e = state.explain("terminal")
    assert (e.status, e.rule, e.toolset) == ("visible", "core", "core")
    assert "core never defers" in e.reason
    assert e.listing_line is None
    d = state.def_by_name["terminal"]
    assert e.schema_tokens == estimate_tokens_from_schemas([d])
    assert e.schema_tokens_exact == exact_def_tokens(d)


def test_explain_kind_core_extends_the_core_set(state):
    e = state.explain("my_core_tool")
    assert (e.status, e.rule) == ("visible", "core")


def test_explain_deferred_mcp_with_listing_line(state):
    e = state.explain(" mcp__github__create_issue ")
    assert e.name == "mcp__github__create_issue"
    assert (e.status, e.rule, e.toolset) == ("deferred", "mcp-toolset", "mcp-github")
    assert e.listing_line == "- mcp__github__create_issue: Create an issue."
    assert e.schema_tokens == estimate_tokens_from_schemas(
        [state.def_by_name["mcp__github__create_issue"]])


def test_explain_deferred_plugin(state):
    e = state.explain("kanban_sync")
    assert (e.status, e.rule, e.toolset) == ("deferred", "plugin", "kanban")
    assert e.listing_line == "- kanban_sync: Sync the board."


def test_explain_direct_surface_and_unregistered(state):
    assert (state.explain("read_terminal").status, state.explain("read_terminal").rule) == \
        ("visible", "direct-surface")
    e = state.explain("loose_tool")
    assert (e.status, e.rule, e.toolset) == ("visible", "unregistered", "loose")


@pytest.mark.parametrize("name", ["tool_search", "tool_describe", "tool_call"])
def test_explain_dropped_bridge(state, name):
    e = state.explain(name)
    assert (e.status, e.rule) == ("dropped", "bridge")
    assert e.schema_tokens is None and e.listing_line is None


def test_explain_unknown(state):
    e = state.explain("no_such_tool")
    assert (e.status, e.rule, e.toolset) == ("unknown", "not-in-defs", None)
    assert "not a tool of any loaded source" in e.reason
    assert e.schema_tokens is None


def test_explain_detached(state):
    detached = state.toggled("github")
    e = detached.explain("mcp__github__create_issue")
    assert (e.status, e.rule, e.toolset) == ("unknown", "not-in-defs", "mcp-github")
    assert "detached" in e.reason
    assert e.schema_tokens is not None


def test_explain_out_of_scope(state):
    scoped = state.with_scope({"core", "linear"})
    e = scoped.explain("mcp__github__list_issues")
    assert (e.status, e.rule) == ("unknown", "not-in-defs")
    assert "outside this session's scope" in e.reason
    assert scoped.explain("mcp__linear__create_task").status == "deferred"


def test_explain_when_tool_search_is_off(state):
    off = state.with_config(enabled="off")
    e = off.explain("mcp__github__create_issue")
    assert (e.status, e.rule) == ("visible", "mcp-toolset")
    assert "Tool search is off" in e.reason
    assert e.listing_line is None


def test_explain_names_line_and_no_line_without_listing(state):
    listing = state.assembly.listing
    assert listing is not None
    names_tokens = -(-len(listing.uniform("names")) // 4)
    assert names_tokens < -(-len(listing.uniform("full")) // 4)
    names = state.with_context(names_tokens * 20)  # 5 % of it is exactly the names size
    assert names.assembly.listing_form == "names"
    assert names.explain("mcp__github__list_issues").listing_line == \
        "mcp__github__create_issue, mcp__github__list_issues"
    tiny = state.with_config(threshold_pct=0)
    assert tiny.assembly.listing_form == "none"
    assert tiny.explain("mcp__github__list_issues").listing_line is None


def test_explain_as_json_keys(state):
    assert list(state.explain("terminal").as_json()) == [
        "name", "status", "rule", "reason", "toolset", "schema_tokens", "schema_tokens_exact",
        "listing_line", "would_list_names_at", "would_list_full_at", "keep_visible",
        "did_you_mean"]


# --------------------------------------------------------------------------- rows & toggles


def test_rows(state):
    rows = {r.name: r for r in state.rows()}
    assert list(rows) == ["core", "github", "linear", "kanban", "desktop_ui", "loose", "broken"]
    assert rows["github"].listing_form == "full"
    assert rows["github"].tool_count == 2
    assert rows["github"].tokens == estimate_tokens_from_schemas(workspace().toolsets[1].defs)
    assert rows["core"].listing_form == "eager"
    assert rows["broken"].listing_form == "-"
    assert all(r.attached and r.in_scope for r in rows.values())


def test_rows_detached_and_out_of_scope(state):
    rows = {r.name: r for r in state.toggled("github").with_scope(
        {"core", "github", "kanban"}).rows()}
    assert (rows["github"].attached, rows["github"].listing_form) == (False, "detached")
    assert (rows["linear"].in_scope, rows["linear"].listing_form) == (False, "out of scope")
    assert rows["kanban"].listing_form == "full"


def test_toggling_a_server_recomputes(state):
    assert state.assembly.deferred_count == 4
    without = state.toggled("github")
    assert without.assembly.deferred_count == 2
    assert "mcp__github__create_issue" not in without.assembly.deferred_names
    back = without.toggled("github")
    assert back.detached == frozenset()
    assert back.assembly.tool_defs == state.assembly.tool_defs
    # the registry follows attachment: a detached server's tools are unregistered
    assert without.registry.toolset_of("mcp__github__create_issue") is None


def test_detaching_every_deferrable_server_drops_to_tier_0(state):
    s = state
    for name in ("github", "linear", "kanban"):
        s = s.toggled(name)
    assert s.assembly.activated is False and s.assembly.tier == 0


def test_scope_toggle_recomputes(state):
    s = state.scope_toggled("linear")
    assert "linear" not in s.scope
    assert "mcp__linear__create_task" not in s.assembly.deferred_names
    assert s.bridge().scoped_names() == frozenset({
        "mcp__github__create_issue", "mcp__github__list_issues", "kanban_sync"})
    assert s.scope_toggled("linear").assembly.deferred_count == 4


def test_config_and_context_changes_recompute(state):
    assert state.assembly.threshold_tokens == 4000
    assert state.with_context(40_000).assembly.threshold_tokens == 2000
    assert state.with_config(listing="off").assembly.tier == 2
    assert state.with_config(listing_max_tokens=5).config.listing_max_tokens == 200
    # the original state is untouched (immutable values)
    assert state.assembly.tier == 1 and state.config.listing == "auto"


async def test_bridge_from_state_is_scoped(state):
    bridge = state.with_scope({"core", "github"}).bridge()
    reply = await bridge.dispatch("tool_call", {"name": "mcp__linear__create_task"})
    assert reply.activity.outcome == "out_of_scope"
    reply = await bridge.dispatch("tool_call", {"name": "mcp__github__create_issue",
                                                "arguments": {}})
    assert reply.activity.outcome == "missing_args"


def test_deferred_tokens_exact(state):
    split = state.assembly.classification
    assert state.deferred_tokens_exact() == sum(exact_def_tokens(d) for d in split.deferrable)
