"""REFERENCE §8–9 (G1): bridge dispatch, error strings, guards, probe, activity events."""

from __future__ import annotations

import json
from itertools import count

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_impl import fdef

from toolsearch.bridge import (
    ActivityEvent,
    Bridge,
    DryRunExecutor,
    ExecutionResult,
    clamp_limit,
    resolve_underlying_call,
    scoped_deferrable_names,
    tool_error,
    validate_deferred_call_args,
)
from toolsearch.config import ToolSearchConfig

REGISTRY = {
    "terminal": "terminal",
    "mcp__github__create_issue": "mcp-github",
    "mcp__github__list_issues": "mcp-github",
    "mcp__linear__create_task": "mcp-linear",
    "kanban_sync": "kanban",
    "read_terminal": "desktop_ui",
    "mcp__secret__danger": "mcp-secret",  # registered, deferrable, but not in the session
}

CREATE_ISSUE = fdef(
    "mcp__github__create_issue",
    "Create a new issue in a GitHub repository.",
    {"owner": {"type": "string"}, "repo": {"type": "string"}, "title": {"type": "string"},
     "labels": {"type": "array"}},
    ["owner", "repo", "title"],
)
LIST_ISSUES = fdef("mcp__github__list_issues", "List issues of a repository.",
                   {"repo": {"type": "string"}})
CREATE_TASK = fdef("mcp__linear__create_task", "Create a task in Linear. " + "x" * 500,
                   {"title": {"type": "string"}}, ["title"])
KANBAN = {"type": "function", "function": {"name": "kanban_sync", "description": "Sync."}}
SESSION = [
    fdef("terminal", "Run a command.", {"command": {"type": "string"}}, ["command"]),
    CREATE_ISSUE,
    fdef("read_terminal", "Read the pane."),
    LIST_ISSUES,
    CREATE_TASK,
    KANBAN,
    fdef("unregistered_tool", "Loose."),
]


def make_bridge(session=SESSION, registry=REGISTRY, config=None, executor=None, clock=None):
    kwargs = {} if clock is None else {"clock": clock}
    return Bridge.create(session, registry, config, executor or DryRunExecutor(), **kwargs)


def test_tool_error_shape():
    assert tool_error("boom") == {"error": "boom"}
    assert tool_error("boom", hint="h", parameters={}) == {"error": "boom", "hint": "h",
                                                          "parameters": {}}


# --------------------------------------------------------------------------- tool_search


@pytest.mark.parametrize("args", [{}, {"query": ""}, {"query": "   "}, {"query": None},
                                  {"query": 0}, {"limit": 3}])
async def test_search_requires_a_query(args):
    reply = await make_bridge().dispatch("tool_search", args)
    assert reply.result == {"error": "query is required"}
    assert (reply.activity.bridge, reply.activity.tool, reply.activity.outcome) == \
        ("tool_search", None, "invalid")


async def test_search_result_shape():
    reply = await make_bridge().dispatch("tool_search", {"query": "  create github issue  "})
    result = reply.result
    assert list(result) == ["query", "total_available", "matches"]
    assert result["query"] == "create github issue"
    assert result["total_available"] == 4  # the session's deferrable tools only
    first = result["matches"][0]
    assert first == {"name": "mcp__github__create_issue", "source": "mcp",
                     "source_name": "mcp-github",
                     "description": "Create a new issue in a GitHub repository."}
    assert [m["name"] for m in result["matches"]] == [h.name for h in reply.hits]
    json.dumps(result, ensure_ascii=False)
    assert (reply.activity.tool, reply.activity.outcome) == (None, "ok")


async def test_search_covers_plugin_tools_and_never_core_or_unregistered():
    reply = await make_bridge().dispatch("tool_search", {"query": "sync"})
    assert reply.result["matches"][0]["name"] == "kanban_sync"
    assert reply.result["matches"][0]["source"] == "plugin"
    assert reply.result["matches"][0]["description"] == "Sync."
    for query in ("terminal command", "loose unregistered", "read pane"):
        reply = await make_bridge().dispatch("tool_search", {"query": query})
        names = [m["name"] for m in reply.result.get("matches", [])]
        assert not {"terminal", "unregistered_tool", "read_terminal"} & set(names)


async def test_search_description_is_clipped_to_400_chars():
    reply = await make_bridge().dispatch("tool_search", {"query": "linear task"})
    match = reply.result["matches"][0]
    assert match["name"] == "mcp__linear__create_task"
    assert match["description"] == CREATE_TASK["function"]["description"][:400]
    assert len(match["description"]) == 400


@pytest.mark.parametrize(
    ("limit", "expected"),
    [(None, 5), ("3", 3), (3, 3), (2.9, 2), (0, 1), (-4, 1), (20, 20), (21, 20), (10**6, 20),
     ("abc", 5), ("", 5), ([], 5), ({}, 5), (True, 1), (float("inf"), 5), (float("nan"), 5)],
)
def test_clamp_limit(limit, expected):
    assert clamp_limit(limit, ToolSearchConfig()) == expected


def test_clamp_limit_follows_the_config():
    config = ToolSearchConfig.from_raw({"search_default_limit": 2, "max_search_limit": 3})
    assert [clamp_limit(v, config) for v in (None, 1, 3, 4, "x")] == [2, 1, 3, 3, 2]


async def test_search_limit_is_applied():
    session = SESSION + [fdef(f"mcp__github__tool_{i}", "github thing") for i in range(30)]
    registry = {**REGISTRY, **{f"mcp__github__tool_{i}": "mcp-github" for i in range(30)}}
    bridge = make_bridge(session, registry)
    for limit, expected in ((None, 5), (2, 2), (0, 1), (999, 20), ("x", 5)):
        args = {"query": "github"} if limit is None else {"query": "github", "limit": limit}
        reply = await bridge.dispatch("tool_search", args)
        assert len(reply.result["matches"]) == expected, limit


async def test_zero_hits_carry_available_sources_and_a_hint():
    reply = await make_bridge().dispatch("tool_search", {"query": "weather forecast"})
    result = reply.result
    assert result["matches"] == []
    assert result["total_available"] == 4
    assert result["available_sources"] == [
        {"name": "github", "tool_count": 2},
        {"name": "kanban", "tool_count": 1},
        {"name": "linear", "tool_count": 1},
    ]
    assert "remain available" in result["hint"]
    assert "before concluding" in result["hint"]
    assert list(result)[-2:] == ["available_sources", "hint"]
    assert reply.activity.outcome == "ok"


async def test_no_sources_block_when_there_are_hits_or_no_catalog():
    hit = await make_bridge().dispatch("tool_search", {"query": "github"})
    assert "available_sources" not in hit.result and "hint" not in hit.result
    empty = make_bridge(session=[fdef("terminal")])
    reply = await empty.dispatch("tool_search", {"query": "github"})
    assert reply.result == {"query": "github", "total_available": 0, "matches": []}


async def test_search_fallback_hit():
    reply = await make_bridge().dispatch("tool_search", {"query": "linea"})
    assert [m["name"] for m in reply.result["matches"]] == ["mcp__linear__create_task"]
    assert reply.hits[0].fallback and reply.hits[0].score == 0.1


# --------------------------------------------------------------------------- tool_describe


@pytest.mark.parametrize("args", [{}, {"name": ""}, {"name": "  "}, {"name": None}])
async def test_describe_requires_a_name(args):
    reply = await make_bridge().dispatch("tool_describe", args)
    assert reply.result == {"error": "name is required"}
    assert (reply.activity.tool, reply.activity.outcome) == (None, "invalid")


@pytest.mark.parametrize("name", ["terminal", "read_terminal", "unregistered_tool", "nope",
                                  "tool_search", "tool_call"])
async def test_describe_not_deferrable(name):
    reply = await make_bridge().dispatch("tool_describe", {"name": name})
    assert reply.result == {"error": (
        f"'{name}' is not a deferrable tool. If you see it in the tools list already, call it "
        "directly; otherwise check the spelling against tool_search.")}
    assert (reply.activity.tool, reply.activity.outcome) == (name, "not_deferrable")


async def test_describe_found():
    reply = await make_bridge().dispatch("tool_describe", {"name": " mcp__github__create_issue "})
    assert reply.result == {
        "name": "mcp__github__create_issue",
        "description": CREATE_ISSUE["function"]["description"],
        "parameters": CREATE_ISSUE["function"]["parameters"],
    }
    assert list(reply.result) == ["name", "description", "parameters"]
    assert (reply.activity.tool, reply.activity.outcome) == ("mcp__github__create_issue", "ok")


async def test_describe_without_parameters_defaults_to_empty_object():
    reply = await make_bridge().dispatch("tool_describe", {"name": "kanban_sync"})
    assert reply.result == {"name": "kanban_sync", "description": "Sync.", "parameters": {}}


async def test_describe_deferrable_but_not_in_session():
    reply = await make_bridge().dispatch("tool_describe", {"name": "mcp__secret__danger"})
    assert reply.result == {"error": "'mcp__secret__danger' is not currently available. "
                                     "Re-run tool_search to refresh."}
    assert reply.activity.outcome == "not_available"


# --------------------------------------------------------------------------- resolve


def json_error(text: str) -> str:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return f"tool_call 'arguments' is not valid JSON: {exc}"
    raise AssertionError("expected invalid JSON")


NOT_DEFERRABLE = ("'{n}' is not a deferrable tool. If it appears in the model-facing tools list "
                  "already, call it directly instead of via tool_call.")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, (None, {}, "tool_call requires a 'name' argument")),
        ({"name": ""}, (None, {}, "tool_call requires a 'name' argument")),
        ({"name": "   "}, (None, {}, "tool_call requires a 'name' argument")),
        ({"name": None, "arguments": {}}, (None, {}, "tool_call requires a 'name' argument")),
        ("not a mapping", (None, {}, "tool_call requires a 'name' argument")),
        ({"name": "tool_search"},
         (None, {}, "tool_call cannot invoke 'tool_search' (it is itself a bridge tool)")),
        ({"name": " tool_call ", "arguments": "{bad"},
         (None, {}, "tool_call cannot invoke 'tool_call' (it is itself a bridge tool)")),
        ({"name": "tool_describe", "arguments": {"name": "x"}},
         (None, {}, "tool_call cannot invoke 'tool_describe' (it is itself a bridge tool)")),
        ({"name": "mcp__github__list_issues", "arguments": "{bad"},
         (None, {}, json_error("{bad"))),
        ({"name": "terminal", "arguments": "{bad"}, (None, {}, json_error("{bad"))),
        ({"name": "mcp__github__list_issues", "arguments": ""}, (None, {}, json_error(""))),
        ({"name": "mcp__github__list_issues", "arguments": "[1, 2]"},
         (None, {}, "tool_call 'arguments' must be an object")),
        ({"name": "mcp__github__list_issues", "arguments": [1]},
         (None, {}, "tool_call 'arguments' must be an object")),
        ({"name": "mcp__github__list_issues", "arguments": 5},
         (None, {}, "tool_call 'arguments' must be an object")),
        ({"name": "mcp__github__list_issues", "arguments": '"text"'},
         (None, {}, "tool_call 'arguments' must be an object")),
        ({"name": "terminal", "arguments": [1]},
         (None, {}, "tool_call 'arguments' must be an object")),
        ({"name": "terminal", "arguments": {}}, (None, {}, NOT_DEFERRABLE.format(n="terminal"))),
        ({"name": "read_terminal"}, (None, {}, NOT_DEFERRABLE.format(n="read_terminal"))),
        ({"name": "ghost"}, (None, {}, NOT_DEFERRABLE.format(n="ghost"))),
        ({"name": "mcp__github__list_issues"}, ("mcp__github__list_issues", {}, None)),
        ({"name": "mcp__github__list_issues", "arguments": None},
         ("mcp__github__list_issues", {}, None)),
        ({"name": " mcp__github__list_issues ", "arguments": '{"repo": "x"}'},
         ("mcp__github__list_issues", {"repo": "x"}, None)),
        ({"name": "kanban_sync", "arguments": {"a": [1, {"b": None}]}},
         ("kanban_sync", {"a": [1, {"b": None}]}, None)),
        # registered + deferrable globally: resolve succeeds, the scope gate decides later
        ({"name": "mcp__secret__danger", "arguments": {}}, ("mcp__secret__danger", {}, None)),
    ],
)
def test_resolve_underlying_call(args, expected):
    assert resolve_underlying_call(args, REGISTRY) == expected


def test_json_error_text_has_the_exception_message():
    _, _, error = resolve_underlying_call({"name": "kanban_sync", "arguments": "{'a': 1}"},
                                          REGISTRY)
    assert error is not None
    assert error.startswith("tool_call 'arguments' is not valid JSON: ")
    assert error.endswith("(char 1)")


def test_resolve_returns_a_fresh_mutable_dict():
    args = {"x": [1]}
    name, parsed, _ = resolve_underlying_call({"name": "kanban_sync", "arguments": args},
                                              REGISTRY)
    assert parsed == args
    parsed["x"].append(2)
    assert args == {"x": [1]}


# --------------------------------------------------------------------------- scope & probe


def test_scoped_deferrable_names():
    assert scoped_deferrable_names(SESSION, REGISTRY) == frozenset({
        "mcp__github__create_issue", "mcp__github__list_issues", "mcp__linear__create_task",
        "kanban_sync"})
    assert scoped_deferrable_names([fdef(None), fdef("terminal"), fdef("tool_call")],
                                   REGISTRY) == frozenset()


SCHEMAS = {"t": fdef("t", "", {"a": {"type": "string"}, "b": {"type": "integer"}}, ["a", "b"])}


@pytest.mark.parametrize(
    ("args", "missing"),
    [
        ({}, "a, b"),
        ({"a": "x"}, "b"),
        ({"b": 1}, "a"),
        ({"a": None, "b": None}, None),  # only key absence counts: null passes
        ({"a": 5, "b": "wrong type"}, None),  # no type checking
        ({"a": "x", "b": 1, "extra": True}, None),  # extra keys pass
        ({"A": "x", "B": 1}, "a, b"),  # keys are case-sensitive
    ],
)
def test_probe_only_key_absence_counts(args, missing):
    result = validate_deferred_call_args("t", args, SCHEMAS)
    if missing is None:
        assert result is None
        return
    assert result == {
        "error": f"tool_call to 't' is missing required argument(s): {missing}. "
                 "The tool was NOT invoked.",
        "parameters": SCHEMAS["t"]["function"]["parameters"],
        "hint": "Retry tool_call with 'arguments' matching the parameters schema above.",
    }
    assert list(result) == ["error", "parameters", "hint"]


@pytest.mark.parametrize(
    "schema",
    [
        None,
        "not a dict",
        [],
        {"type": "function", "function": "nope"},
        {"type": "function", "function": {"name": "t"}},  # no parameters
        {"type": "function", "function": {"parameters": "x"}},
        {"type": "function", "function": {"parameters": {"required": "a"}}},  # not a list
        {"type": "function", "function": {"parameters": {"required": []}}},  # empty
        {"type": "function", "function": {"parameters": {"properties": {}}}},  # missing
        {"type": "function", "function": {"parameters": {"required": [1, None, {"a": 1}]}}},
    ],
)
def test_probe_malformed_schema_never_blocks(schema):
    assert validate_deferred_call_args("t", {}, {"t": schema}) is None


def test_probe_unknown_tool_is_none():
    assert validate_deferred_call_args("ghost", {}, SCHEMAS) is None


def test_probe_ignores_non_string_required_entries():
    schema = {"type": "function", "function": {"parameters": {"required": [1, "a", None]}}}
    result = validate_deferred_call_args("t", {}, {"t": schema})
    assert result is not None
    assert "missing required argument(s): a." in result["error"]


def test_probe_accepts_a_bare_function_schema():
    # not {"type": "function", ...}: the schema itself is the function object
    schema = {"name": "t", "parameters": {"type": "object", "required": ["q"]}}
    result = validate_deferred_call_args("t", {}, {"t": schema})
    assert result is not None and result["parameters"] == schema["parameters"]


def test_probe_any_exception_is_none():
    class Exploding(dict):
        def get(self, *_):
            raise RuntimeError("boom")

    assert validate_deferred_call_args("t", {}, Exploding()) is None

    class BadArgs(dict):
        def __contains__(self, key):
            raise RuntimeError("boom")

    assert validate_deferred_call_args("t", BadArgs(), SCHEMAS) is None


# --------------------------------------------------------------------------- tool_call


async def test_call_ok_runs_the_executor_with_the_underlying_call():
    executor = DryRunExecutor()
    bridge = make_bridge(executor=executor)
    args = {"owner": "o", "repo": "r", "title": "t"}
    reply = await bridge.dispatch("tool_call", {"name": "mcp__github__create_issue",
                                                "arguments": json.dumps(args)})
    assert executor.calls == [("mcp__github__create_issue", args)]
    assert reply.result == {"dry_run": True, "tool": "mcp__github__create_issue",
                            "arguments": args}
    assert (reply.activity.bridge, reply.activity.tool, reply.activity.outcome) == \
        ("tool_call", "mcp__github__create_issue", "ok")
    assert reply.activity.arguments == args
    assert reply.activity.headline().startswith(
        "tool_call \u2192 mcp__github__create_issue {")


async def test_call_null_and_wrong_types_pass_the_probe():
    executor = DryRunExecutor()
    reply = await make_bridge(executor=executor).dispatch("tool_call", {
        "name": "mcp__github__create_issue",
        "arguments": {"owner": None, "repo": 5, "title": [], "extra": 1}})
    assert reply.activity.outcome == "ok"
    assert len(executor.calls) == 1


async def test_call_missing_args_returns_the_schema_and_does_not_run():
    executor = DryRunExecutor()
    reply = await make_bridge(executor=executor).dispatch("tool_call", {
        "name": "mcp__github__create_issue", "arguments": {"owner": "o"}})
    assert executor.calls == []
    assert reply.result == {
        "error": "tool_call to 'mcp__github__create_issue' is missing required argument(s): "
                 "repo, title. The tool was NOT invoked.",
        "parameters": CREATE_ISSUE["function"]["parameters"],
        "hint": "Retry tool_call with 'arguments' matching the parameters schema above.",
    }
    assert (reply.activity.tool, reply.activity.outcome) == ("mcp__github__create_issue",
                                                             "missing_args")


async def test_call_out_of_scope_is_rejected():
    executor = DryRunExecutor()
    reply = await make_bridge(executor=executor).dispatch("tool_call", {
        "name": "mcp__secret__danger", "arguments": {}})
    assert reply.result == {"error": "'mcp__secret__danger' is not available in this session. "
                                     "Use tool_search to find tools you can call."}
    assert (reply.activity.tool, reply.activity.outcome) == ("mcp__secret__danger",
                                                             "out_of_scope")
    assert executor.calls == []


async def test_scope_gate_comes_before_the_probe():
    # a required-args probe never leaks an out-of-scope tool's schema
    registry = {**REGISTRY, "mcp__secret__danger": "mcp-secret"}
    reply = await make_bridge(registry=registry).dispatch("tool_call", {
        "name": "mcp__secret__danger"})
    assert reply.activity.outcome == "out_of_scope" and "parameters" not in reply.result


@pytest.mark.parametrize(
    ("args", "outcome", "tool"),
    [
        ({"name": "tool_search", "arguments": {"query": "x"}}, "recursion", "tool_search"),
        ({"name": "tool_call"}, "recursion", "tool_call"),
        ({"name": "terminal", "arguments": {"command": "ls"}}, "not_deferrable", "terminal"),
        ({"name": "ghost"}, "not_deferrable", "ghost"),
        ({}, "invalid", None),
        ({"name": "kanban_sync", "arguments": "{bad"}, "invalid", "kanban_sync"),
        ({"name": "kanban_sync", "arguments": [1]}, "invalid", "kanban_sync"),
    ],
)
async def test_call_resolution_errors_and_their_outcomes(args, outcome, tool):
    executor = DryRunExecutor()
    reply = await make_bridge(executor=executor).dispatch("tool_call", args)
    _, _, error = resolve_underlying_call(args, REGISTRY)
    assert reply.result == {"error": error}
    assert (reply.activity.bridge, reply.activity.tool, reply.activity.outcome) == \
        ("tool_call", tool, outcome)
    assert executor.calls == []


async def test_recursion_guard_message_is_byte_exact():
    reply = await make_bridge().dispatch("tool_call", {"name": "tool_search"})
    assert reply.result == {
        "error": "tool_call cannot invoke 'tool_search' (it is itself a bridge tool)"}


class Raising:
    async def execute(self, tool_name, arguments):
        raise RuntimeError("server went away")


class Failing:
    async def execute(self, tool_name, arguments):
        return ExecutionResult(False, error="rate limited")


async def test_executor_that_raises_is_an_error_outcome():
    reply = await make_bridge(executor=Raising()).dispatch("tool_call", {
        "name": "mcp__github__list_issues", "arguments": {}})
    assert reply.result == {"error": "RuntimeError: server went away"}
    assert (reply.activity.tool, reply.activity.outcome) == ("mcp__github__list_issues", "error")


async def test_executor_reporting_failure_is_an_error_outcome():
    reply = await make_bridge(executor=Failing()).dispatch("tool_call", {
        "name": "mcp__github__list_issues", "arguments": {}})
    assert reply.result == {"error": "rate limited"}
    assert reply.activity.outcome == "error"


async def test_dry_run_executor_records_every_call():
    executor = DryRunExecutor()
    bridge = make_bridge(executor=executor)
    await bridge.dispatch("tool_call", {"name": "kanban_sync"})
    await bridge.dispatch("tool_call", {"name": "mcp__github__list_issues",
                                        "arguments": {"repo": "a"}})
    await bridge.dispatch("tool_call", {"name": "terminal"})
    assert executor.calls == [("kanban_sync", {}), ("mcp__github__list_issues", {"repo": "a"})]


# --------------------------------------------------------------------------- dispatch


async def test_dispatch_times_each_call_with_the_injected_clock():
    ticks = count(start=10.0, step=0.25)
    bridge = make_bridge(clock=lambda: next(ticks))
    reply = await bridge.dispatch("tool_search", {"query": "github"})
    assert reply.activity.ms == 250.0
    assert reply.activity.as_json()["ms"] == 250.0


async def test_dispatch_accepts_json_string_arguments():
    bridge = make_bridge()
    reply = await bridge.dispatch("tool_search", '{"query": "github", "limit": 1}')
    assert len(reply.result["matches"]) == 1
    bad = await bridge.dispatch("tool_search", "{not json")
    assert bad.result == {"error": "query is required"}


async def test_dispatch_unknown_bridge_name():
    reply = await make_bridge().dispatch("mcp__github__list_issues", {})
    assert "error" in reply.result
    assert reply.activity.outcome == "invalid"


def test_dispatch_sync():
    reply = make_bridge().dispatch_sync("tool_describe", {"name": "kanban_sync"})
    assert reply.result["name"] == "kanban_sync"


def test_activity_event_json():
    event = ActivityEvent("tool_call", "x", "ok", {"a": 1}, 1.23456)
    assert event.as_json() == {"bridge": "tool_call", "tool": "x", "outcome": "ok",
                               "arguments": {"a": 1}, "ms": 1.235}
    assert ActivityEvent("tool_search", None, "ok", {"query": "q"}, 0).headline() == \
        'tool_search {"query": "q"}'


def test_bridge_scope_is_the_session_defs():
    bridge = make_bridge()
    assert bridge.scoped_names() == scoped_deferrable_names(SESSION, REGISTRY)
    assert [d["function"]["name"] for d in bridge.deferrable_defs] == [
        "mcp__github__create_issue", "mcp__github__list_issues", "mcp__linear__create_task",
        "kanban_sync"]


# --------------------------------------------------------------------------- robustness

_LEAF = st.one_of(st.none(), st.integers(), st.text(max_size=8), st.booleans(), st.just({1, 2}))
_JUNK = st.recursive(
    _LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["name", "description", "parameters", "properties", "required",
                         "type", "function", "query", "arguments", "limit"]), inner, max_size=4),
    max_leaves=10,
)
_NAME = st.sampled_from(["mcp__github__list_issues", "kanban_sync", "terminal", "tool_call",
                         "", "loose"])
_DEF = st.builds(lambda n, d, p: {"type": "function", "function": {
    "name": n, "description": d, "parameters": p}}, _NAME, _JUNK, _JUNK)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_DEF, _JUNK), max_size=6), st.sampled_from(["on", "off"]),
       st.sampled_from(["tool_search", "tool_describe", "tool_call"]), _JUNK)
def test_junk_defs_and_arguments_never_raise(defs, listing, bridge_name, args):
    from toolsearch.assemble import assemble_tool_defs

    config = ToolSearchConfig.from_raw({"listing": listing})
    result = assemble_tool_defs(defs, REGISTRY, context_length=200_000, config=config)
    if result.activated:
        assert [d["function"]["name"] for d in result.tool_defs[-3:]] == [
            "tool_search", "tool_describe", "tool_call"]
    bridge = make_bridge(session=defs, config=config)
    for call_args in (args, {"query": "x", "name": "kanban_sync", "arguments": args}):
        reply = bridge.dispatch_sync(bridge_name, call_args)
        json.dumps(reply.result, ensure_ascii=False, default=str)
        assert reply.activity.outcome in ("ok", "missing_args", "out_of_scope", "recursion",
                                          "not_deferrable", "not_available", "invalid", "error")
