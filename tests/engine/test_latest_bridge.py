"""The ``latest`` bridge: batched search / describe / call shapes, caps and error strings."""

from __future__ import annotations

import json

import pytest

from toolsearch.bridge import Bridge
from toolsearch.classify import Registry
from toolsearch.config import ToolSearchConfig
from toolsearch.profiles.latest import (
    _MAX_DESCRIBE_NAMES_PER_CALL,
    _MAX_QUERIES_PER_CALL,
    NOT_FOUND_HINT,
    local_batch_error,
)
from toolsearch.tooldefs import make_def

ISSUE_SCHEMA = {
    "type": "object",
    "properties": {
        "repo": {"type": "string"},
        "title": {"type": "string"},
        "count": {"type": "integer"},
        "options": {"type": "object", "properties": {"count": {"type": "integer"}}},
    },
    "required": ["repo", "title"],
}
LONG_REQUIRED = {"type": "object", "required": [f"p{i:02d}" + "x" * 80 for i in range(40)]}

SESSION = [
    make_def("terminal", "Run a shell command."),
    make_def("mcp__github__create_issue", "Create a new issue in a repository.", ISSUE_SCHEMA),
    make_def("mcp__github__list_issues", "List issues in a repository.",
             {"type": "object", "properties": {"repo": {"type": "string"}}}),
    make_def("mcp__big__huge_tool", "word " * 200, LONG_REQUIRED),
    make_def("mcp__slack__post_message", "Post a message to a channel."),
    make_def("todo_list", "Manage the todo list."),
]
REGISTRY = Registry({
    "terminal": "terminal",
    "web_search": "web",
    "todo_list": "todo",
    "mcp__github__create_issue": "mcp-github",
    "mcp__github__list_issues": "mcp-github",
    "mcp__big__huge_tool": "mcp-big",
    "mcp__slack__post_message": "mcp-slack",
    "mcp__linear__create_issue": "mcp-linear",  # registered, not in this session
})
CONFIG = ToolSearchConfig.from_raw({}, profile="latest")


@pytest.fixture
def bridge() -> Bridge:
    return Bridge.create(SESSION, REGISTRY, CONFIG)


def run(bridge: Bridge, tool: str, args):
    reply = bridge.dispatch_sync(tool, args)
    json.dumps(reply.result)  # always JSON-serialisable
    return reply


# --------------------------------------------------------------------------- tool_search


@pytest.mark.parametrize(("args", "error"), [
    ({}, "queries is required and must be an array of strings"),
    ({"queries": 5}, "queries is required and must be an array of strings"),
    ({"query": "github"}, "queries is required and must be an array of strings"),
    ({"queries": []}, "queries is required and must contain at least one non-empty string"),
    ({"queries": ["", "  ", None]},
     "queries is required and must contain at least one non-empty string"),
    ({"queries": "  "}, "queries is required and must contain at least one non-empty string"),
    ({"queries": ["q"] * 8},
     "too many queries: 8 > max 7. Retry with fewer, more targeted queries."),
])
def test_search_errors(bridge, args, error):
    reply = run(bridge, "tool_search", args)
    assert reply.result == {"error": error}
    assert reply.activity.outcome == "invalid"


def test_search_cap_constant():
    assert _MAX_QUERIES_PER_CALL == 7 and _MAX_DESCRIBE_NAMES_PER_CALL == 10


def test_search_batch_shape(bridge):
    reply = run(bridge, "tool_search", {"queries": [" issues ", "", "github create", "issues"]})
    result = reply.result
    assert list(result) == ["queries", "total_available", "results", "tools"]
    assert result["queries"] == ["issues", "github create", "issues"]  # duplicates kept
    assert result["total_available"] == 5  # terminal stays direct; todo_list deferred
    groups = result["results"]
    assert [g["query"] for g in groups] == result["queries"]
    assert set(groups[0]["matches"]) == {"mcp__github__create_issue", "mcp__github__list_issues"}
    assert groups[1]["matches"][0] == "mcp__github__create_issue"
    assert all(set(g) == {"query", "matches"} for g in groups)
    tools = result["tools"]
    assert set(tools) == {"mcp__github__create_issue", "mcp__github__list_issues"}
    assert tools["mcp__github__create_issue"] == {
        "source": "mcp", "source_name": "mcp-github",
        "description": "Create a new issue in a repository.", "required": ["repo", "title"],
    }
    assert tools["mcp__github__list_issues"]["required"] == []
    assert reply.activity.outcome == "ok" and reply.activity.tool is None
    assert len(reply.hits) == 5


def test_search_bare_string_and_limit(bridge):
    result = run(bridge, "tool_search", {"queries": "github", "limit": 1}).result
    assert result["queries"] == ["github"] and len(result["results"][0]["matches"]) == 1
    result = run(bridge, "tool_search", {"queries": ["github"], "limit": "abc"}).result
    assert len(result["results"][0]["matches"]) == 2


def test_search_limit_clamped_to_25():
    defs = [make_def(f"mcp__s__tool_{i}", "A tool.") for i in range(40)]
    b = Bridge.create(defs, {f"mcp__s__tool_{i}": "mcp-s" for i in range(40)}, CONFIG)
    result = b.dispatch_sync("tool_search", {"queries": ["tool"], "limit": 999}).result
    assert len(result["results"][0]["matches"]) == 25


def test_search_clips_description_and_required(bridge):
    tools = run(bridge, "tool_search", {"queries": ["huge"]}).result["tools"]
    entry = tools["mcp__big__huge_tool"]
    assert len(entry["description"]) == 501 and entry["description"].endswith("\u2026")
    assert len(entry["required"]) == 32 and all(len(r) == 64 for r in entry["required"])


def test_search_zero_hit_group_fallback(bridge):
    result = run(bridge, "tool_search", {"queries": ["issues", "zzz github"]}).result
    assert "available_sources" not in result and "hint" not in result
    hit, miss = result["results"]
    assert set(hit) == {"query", "matches"}
    assert miss["matches"] == []
    assert miss["available_sources"] == [
        {"name": "big", "tool_count": 1}, {"name": "github", "tool_count": 2},
        {"name": "slack", "tool_count": 1}, {"name": "todo", "tool_count": 1},
    ]
    for phrase in ("This query returned no lexical matches", "remain available",
                   "before concluding"):
        assert phrase in miss["hint"]


def test_search_empty_catalog_has_no_fallback():
    b = Bridge.create([make_def("terminal")], {"terminal": "terminal"}, CONFIG)
    result = b.dispatch_sync("tool_search", {"queries": ["x"]}).result
    assert result["total_available"] == 0 and result["results"] == [{"query": "x",
                                                                     "matches": []}]


# --------------------------------------------------------------------------- tool_describe


@pytest.mark.parametrize(("args", "error"), [
    ({}, "names is required and must be an array of strings"),
    ({"names": {"a": 1}}, "names is required and must be an array of strings"),
    ({"names": [" "]}, "names is required and must contain at least one non-empty string"),
    ({"names": [f"n{i}" for i in range(11)]},
     "too many names: 11 > max 10. Retry with fewer names per call."),
])
def test_describe_errors(bridge, args, error):
    assert run(bridge, "tool_describe", args).result == {"error": error}


def test_describe_dedupes_before_cap(bridge):
    result = run(bridge, "tool_describe", {"names": ["mcp__slack__post_message"] * 11}).result
    assert list(result["tools"]) == ["mcp__slack__post_message"]


def test_describe_batch(bridge):
    reply = run(bridge, "tool_describe", {"names": [
        "mcp__github__create_issue", "mcp__github__create_issue", "terminal", "Web-Search",
        "mcp__linear__create_issue", "nope", "todo_list",
    ]})
    result = reply.result
    assert list(result["tools"]) == ["mcp__github__create_issue", "todo_list"]
    assert result["tools"]["mcp__github__create_issue"] == {
        "description": "Create a new issue in a repository.", "parameters": ISSUE_SCHEMA}
    assert result["not_found"] == ["mcp__linear__create_issue", "nope"]
    assert result["hint"] == NOT_FOUND_HINT
    assert result["errors"] == {
        "terminal": "'terminal' is a directly-listed tool, not a deferred one. Call it "
                    "directly instead of via tool_call.",
        "Web-Search": "'web_search' is not available in this session: its toolset is disabled "
                      "or hidden, or its requirements are not met. Do not retry it.",
    }
    assert reply.activity.tool == "mcp__github__create_issue"
    assert reply.activity.outcome == "ok"


def test_describe_bare_string(bridge):
    result = run(bridge, "tool_describe", {"names": "mcp__slack__post_message"}).result
    assert result == {"tools": {"mcp__slack__post_message": {
        "description": "Post a message to a channel.",
        "parameters": {"type": "object", "properties": {}}}}}


# --------------------------------------------------------------------------- tool_call


@pytest.mark.parametrize(("args", "error", "outcome"), [
    ({}, "tool_call requires 'calls' (an array of {name, arguments})", "invalid"),
    ({"calls": "[oops"}, "tool_call 'calls' is not valid JSON: Expecting value: line 1 column 2 "
     "(char 1)", "invalid"),
    ({"calls": []}, "tool_call 'calls' must be a non-empty array of {name, arguments}",
     "invalid"),
    ({"calls": 7}, "tool_call 'calls' must be a non-empty array of {name, arguments}",
     "invalid"),
    ({"calls": ["x"]}, "tool_call calls[0] must be an object with 'name' and 'arguments'",
     "invalid"),
    ({"calls": [{"arguments": {}}]}, "tool_call calls[0] requires a 'name'", "invalid"),
    ({"name": ""}, "tool_call calls[0] requires a 'name'", "invalid"),
    ({"calls": [{"name": "tool_call", "arguments": {}}]},
     "tool_call cannot invoke 'tool_call' (it is itself a bridge tool)", "recursion"),
    ({"calls": [{"name": "x", "arguments": "{bad"}]},
     "tool_call calls[0].arguments is not valid JSON: Expecting property name enclosed in "
     "double quotes: line 1 column 2 (char 1)", "invalid"),
    ({"calls": [{"name": "x", "arguments": "[1]"}]},
     "tool_call calls[0].arguments must be an object", "invalid"),
    ({"calls": [{"name": "x", "arguments": 3}]},
     "tool_call calls[0].arguments must be an object", "invalid"),
    ({"calls": [{"name": "mcp__slack__post_message"}, 5]},
     "tool_call calls[1] must be an object with 'name' and 'arguments'", "invalid"),
])
def test_call_normalisation_errors(bridge, args, error, outcome):
    reply = run(bridge, "tool_call", args)
    assert reply.result == {"error": error}
    assert reply.activity.outcome == outcome


@pytest.mark.parametrize("calls", [
    [{"name": "mcp__slack__post_message", "arguments": {}}],
    {"name": "mcp__slack__post_message", "arguments": {}},
    json.dumps([{"name": "mcp__slack__post_message", "arguments": {}}]),
    json.dumps({"name": "mcp__slack__post_message"}),
    [{"name": " mcp__slack__post_message ", "arguments": None}],
    [{"name": "mcp__slack__post_message", "arguments": "  "}],
    [{"name": "mcp__slack__post_message", "arguments": ""}],
    [{"name": "mcp__slack__post_message", "arguments": "{}"}],
])
def test_call_shapes_accepted(bridge, calls):
    reply = run(bridge, "tool_call", {"calls": calls})
    assert reply.activity.outcome == "ok"
    assert reply.activity.tool == "mcp__slack__post_message"
    assert reply.result == {"dry_run": True, "tool": "mcp__slack__post_message",
                            "arguments": {}}


def test_call_legacy_shape(bridge):
    reply = run(bridge, "tool_call", {"name": "mcp__github__create_issue",
                                      "arguments": '{"repo": "a/b", "title": "t"}'})
    assert reply.activity.outcome == "ok"
    assert reply.result["arguments"] == {"repo": "a/b", "title": "t"}
    assert reply.activity.arguments == {"repo": "a/b", "title": "t"}


def test_local_batch_error(bridge):
    calls = [{"name": "mcp__slack__post_message", "arguments": {"text": "hi"}},
             {"name": "mcp__github__list_issues", "arguments": {}},
             {"name": "mcp__github__list_issues", "arguments": {}}]
    reply = run(bridge, "tool_call", {"calls": calls})
    assert reply.result == {"error": (
        "tool_call takes exactly one entry for local tools; you sent 3. Retry with only: "
        '{"name": "mcp__slack__post_message", "arguments": {"text": "hi"}} then issue the '
        "remaining 2 call(s) as separate tool_call invocations. Only connectors__ names may be "
        "batched together.")}
    assert reply.activity.tool == "mcp__slack__post_message"
    assert reply.activity.outcome == "invalid"


def test_local_batch_error_clips_long_args():
    text = local_batch_error([("a", {"x": "y" * 1500}), ("b", {})])
    assert 'Retry with only: {"name": "a", "arguments": {...}} then issue the remaining 1 ' \
        "call(s)" in text
    text = local_batch_error([("a", {"x": "y" * 1480}), ("b", {})])
    assert '"arguments": {"x": "yyy' in text


@pytest.mark.parametrize(("name", "error", "outcome"), [
    ("terminal", "'terminal' is a directly-listed tool, not a deferred one. Call it directly "
     "instead of via tool_call.", "not_deferrable"),
    (" Terminal ", "'terminal' is a directly-listed tool, not a deferred one. Call it directly "
     "instead of via tool_call.", "not_deferrable"),
    ("web search", "'web_search' is not available in this session: its toolset is disabled or "
     "hidden, or its requirements are not met. Do not retry it.", "not_available"),
    ("create_issue", "'create_issue' is not a known tool name. Deferred tools must be invoked "
     "through tool_call by the exact name tool_search returns (e.g. mcp__<server>__<tool>). "
     "Did you mean 'mcp__github__create_issue', 'mcp__linear__create_issue'?",
     "not_deferrable"),
    ("frobnicate", "'frobnicate' is not a known tool name. Deferred tools must be invoked "
     "through tool_call by the exact name tool_search returns (e.g. mcp__<server>__<tool>). "
     "Use tool_search to find the exact name.", "not_deferrable"),
])
def test_call_not_deferrable_wording(bridge, name, error, outcome):
    reply = run(bridge, "tool_call", {"calls": [{"name": name, "arguments": {}}]})
    assert reply.result == {"error": error}
    assert reply.activity.outcome == outcome


def test_call_scope_gate(bridge):
    reply = run(bridge, "tool_call", {"calls": [{"name": "mcp__linear__create_issue",
                                                 "arguments": {}}]})
    assert reply.result == {"error": "'mcp__linear__create_issue' is not available in this "
                            "session. Use tool_search to find tools you can call."}
    assert reply.activity.outcome == "out_of_scope"


def test_call_missing_required(bridge):
    reply = run(bridge, "tool_call", {"calls": [{"name": "mcp__github__create_issue",
                                                 "arguments": {"repo": "a/b"}}]})
    assert reply.result == {
        "error": "tool_call to 'mcp__github__create_issue' is missing required argument(s): "
                 "title. The tool was NOT invoked.",
        "path": "arguments", "constraint": "required", "parameters": ISSUE_SCHEMA,
        "hint": "Retry tool_call with 'arguments' matching the parameters schema above.",
    }
    assert reply.activity.outcome == "missing_args"


def test_call_validation_failure_not_invoked(bridge):
    executor = bridge.executor
    reply = run(bridge, "tool_call", {"calls": [{"name": "mcp__github__create_issue",
        "arguments": {"repo": "a/b", "title": "t", "options": {"count": "many"}}}]})
    assert reply.result["error"] == (
        "tool_call to 'mcp__github__create_issue' failed argument validation at "
        "arguments.options.count (type): 'many' is not of type 'integer'. The tool was NOT "
        "invoked.")
    assert reply.result["path"] == "arguments.options.count"
    assert reply.result["constraint"] == "type"
    assert reply.activity.outcome == "invalid"
    assert executor.calls == []


def test_call_hands_the_tool_the_coerced_arguments(bridge):
    """REFERENCE §13: validation coerces a copy, and the coerced arguments are what the tool
    receives (Hermes' dispatch coerces before every call)."""
    reply = run(bridge, "tool_call", {"calls": [{"name": "mcp__github__create_issue",
        "arguments": {"repo": "a/b", "title": "t", "count": "3"}}]})
    assert reply.activity.outcome == "ok"
    assert reply.result["arguments"] == {"repo": "a/b", "title": "t", "count": 3}
    assert reply.activity.arguments["count"] == 3


def test_seed_profile_untouched():
    b = Bridge.create(SESSION, REGISTRY, ToolSearchConfig())
    assert "matches" in b.dispatch_sync("tool_search", {"query": "issues"}).result


def test_junk_arguments_never_raise():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                        st.text(max_size=12))
    junk = st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(
            ["name", "arguments", "calls", "queries", "names", "limit", "x"]), inner,
            max_size=4)), max_leaves=12)
    b = Bridge.create(SESSION, REGISTRY, CONFIG)

    @settings(max_examples=300, deadline=None)
    @given(st.sampled_from(["tool_search", "tool_describe", "tool_call"]), junk)
    def check(tool, args):
        reply = b.dispatch_sync(tool, args)
        json.dumps(reply.result, default=str)
        assert reply.activity.outcome in {"ok", "missing_args", "out_of_scope", "recursion",
                                          "not_deferrable", "not_available", "invalid",
                                          "error"}

    check()
