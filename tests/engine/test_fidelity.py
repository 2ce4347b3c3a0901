"""REFERENCE §13: what the ``latest`` profile's ``tool_call`` hands to the tool, and the public
resolver following the same rules as the bridge."""

from __future__ import annotations

import pytest

from toolsearch.bridge import Bridge, DryRunExecutor, resolve_underlying_call
from toolsearch.classify import Registry
from toolsearch.coercion import coerce_arguments
from toolsearch.config import ToolSearchConfig
from toolsearch.tooldefs import make_def

LATEST = ToolSearchConfig.from_raw({}, profile="latest")
SEED = ToolSearchConfig()
REGISTRY = Registry({"todo_list": "todo", "terminal": "terminal",
                     "mcp__gh__create_issue": "mcp-gh", "mcp__gh__run": "mcp-gh"})

PARAMS = {"type": "object", "properties": {
    "count": {"type": "integer"},
    "ratio": {"type": "number"},
    "flag": {"type": "boolean"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
    "strict": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
    "note": {"type": "string", "nullable": True},
    "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    "either": {"type": ["integer", "string"]},
}}
RUN = make_def("mcp__gh__run", "Run a job.", PARAMS)


# --------------------------------------------------------------------------- the resolver


def test_latest_resolver_takes_the_calls_batch_with_blank_arguments():
    """§13 example: a blank ``arguments`` string is ``{}``; ``todo_list`` is deferred by the
    curated defer list."""
    got = resolve_underlying_call({"calls": [{"name": "todo_list", "arguments": ""}]},
                                  REGISTRY, LATEST)
    assert got == ("todo_list", {}, None)


@pytest.mark.parametrize("arguments", [None, "", "   "])
def test_latest_resolver_blank_arguments_in_the_legacy_shape(arguments):
    assert resolve_underlying_call({"name": "mcp__gh__run", "arguments": arguments},
                                   REGISTRY, LATEST) == ("mcp__gh__run", {}, None)


def test_latest_resolver_rejects_a_core_tool_with_the_g3_wording():
    name, args, error = resolve_underlying_call(
        {"calls": [{"name": "terminal", "arguments": {}}]}, REGISTRY, LATEST)
    assert (name, args) == (None, {})
    assert error == ("'terminal' is a directly-listed tool, not a deferred one. Call it "
                     "directly instead of via tool_call.")
    assert "not a deferrable tool" not in error


def test_latest_resolver_reports_malformed_arguments_per_entry():
    _, _, error = resolve_underlying_call({"calls": [{"name": "mcp__gh__run",
                                                      "arguments": "{oops"}]}, REGISTRY, LATEST)
    assert error is not None and error.startswith("tool_call calls[0].arguments is not valid "
                                                  "JSON: ")


def test_latest_resolver_refuses_a_local_batch():
    _, _, error = resolve_underlying_call({"calls": [
        {"name": "mcp__gh__run", "arguments": {}}, {"name": "todo_list", "arguments": {}}]},
        REGISTRY, LATEST)
    assert error is not None and error.startswith(
        "tool_call takes exactly one entry for local tools; you sent 2.")


def test_seed_resolver_keeps_the_seed_rules():
    assert resolve_underlying_call({"calls": [{"name": "todo_list"}]}, REGISTRY, SEED)[2] == \
        "tool_call requires a 'name' argument"
    assert "is not a deferrable tool" in resolve_underlying_call(
        {"name": "terminal"}, REGISTRY, SEED)[2]


# --------------------------------------------------------------------------- coercion


def _delivered(arguments):
    """The arguments the tool receives through the latest bridge (dry-run executor)."""
    executor = DryRunExecutor()
    bridge = Bridge.create((RUN,), REGISTRY, LATEST, executor)
    reply = bridge.dispatch_sync("tool_call", {"calls": [{"name": "mcp__gh__run",
                                                          "arguments": arguments}]})
    return reply, executor.calls


def test_the_tool_receives_the_coerced_arguments():
    """§13: ``{"count": "42"}`` with ``count: integer`` reaches the tool as ``{"count": 42}``."""
    reply, calls = _delivered({"count": "42"})
    assert reply.activity.outcome == "ok"
    assert calls == [("mcp__gh__run", {"count": 42})]
    assert type(calls[0][1]["count"]) is int


@pytest.mark.parametrize("value", ["", "{}", "   "])
def test_an_optional_free_object_from_a_blank_or_empty_string(value):
    """§13: ``{"parameters": ""}`` and ``{"parameters": "{}"}`` reach it as ``{}``."""
    reply, calls = _delivered({"parameters": value})
    assert reply.activity.outcome == "ok"
    assert calls == [("mcp__gh__run", {"parameters": {}})]


def test_a_blank_string_for_an_object_that_requires_keys_stays_and_is_reported():
    reply, calls = _delivered({"strict": ""})
    assert calls == []
    assert reply.activity.outcome == "invalid"
    assert reply.result["path"] == "arguments.strict" and reply.result["constraint"] == "type"


@pytest.mark.parametrize(("value", "expected"), [
    ("42", 42), (" 7 ", 7), ("4.0", 4), ("1e3", 1000), ("4.5", "4.5"), ("nan", "nan"),
    ("inf", "inf"), ("x", "x"), (3, 3),
])
def test_integer_coercion(value, expected):
    got = coerce_arguments({"count": value}, PARAMS)["count"]
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(("value", "expected"), [
    ("2.5", 2.5), ("3", 3), ("-inf", "-inf"), ("NaN", "NaN"),
])
def test_number_coercion(value, expected):
    got = coerce_arguments({"ratio": value}, PARAMS)["ratio"]
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(("value", "expected"), [
    (" TRUE ", True), ("false", False), ("yes", "yes"), ("1", "1"),
])
def test_boolean_coercion(value, expected):
    assert coerce_arguments({"flag": value}, PARAMS)["flag"] is expected or \
        coerce_arguments({"flag": value}, PARAMS)["flag"] == expected


@pytest.mark.parametrize(("value", "expected"), [
    ('["a", "b"]', ["a", "b"]), ("a", ["a"]), (5, [5]), ({"k": 1}, [{"k": 1}]),
    ('{"k": 1}', ['{"k": 1}']), (["x"], ["x"]), (None, None),
])
def test_array_coercion(value, expected):
    assert coerce_arguments({"tags": value}, PARAMS)["tags"] == expected


@pytest.mark.parametrize(("key", "value", "expected"), [
    ("note", " NULL ", None), ("maybe", "null", None), ("count", "null", "null"),
    ("maybe", "5", "5"),  # no top-level type: only the null rule applies
    ("either", "5", 5),  # a list of types is tried in order; the first that changes wins
    ("parameters", '{"x": "y"}', {"x": "y"}), ("parameters", "[1]", "[1]"),
])
def test_null_object_and_type_lists(key, value, expected):
    assert coerce_arguments({key: value}, PARAMS)[key] == expected


def test_unknown_keys_and_the_original_are_untouched():
    original = {"count": "1", "other": "2", "nested": {"count": "3"}}
    got = coerce_arguments(original, PARAMS)
    assert got == {"count": 1, "other": "2", "nested": {"count": "3"}}
    assert original == {"count": "1", "other": "2", "nested": {"count": "3"}}
    assert coerce_arguments({"a": "1"}, None) == {"a": "1"}
