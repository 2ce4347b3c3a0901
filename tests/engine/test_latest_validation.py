"""G3 argument validation (REFERENCE §12): nullable, $ref, coercion, paths, detail, fail-open."""

from __future__ import annotations

import pytest

from toolsearch.tooldefs import make_def
from toolsearch.validation import (
    clip_detail,
    coerce_value,
    error_path,
    has_remote_ref,
    normalize_nullable,
    validate_call_args,
)

PARAMS = {
    "type": "object",
    "properties": {
        "q": {"type": "string"},
        "n": {"type": "integer", "minimum": 1},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "integer"}},
        "options": {"type": "object", "properties": {"count": {"type": "integer"}},
                    "additionalProperties": False},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "note": {"type": "string", "nullable": True},
    },
    "required": ["q"],
}
SCHEMAS = {"t": make_def("t", "", PARAMS)}


def check(args):
    return validate_call_args("t", args, SCHEMAS)


@pytest.mark.parametrize(("args", "path", "constraint"), [
    ({"q": "x", "options": {"count": "many"}}, "arguments.options.count", "type"),
    ({"q": "x", "tags": [1, "two"]}, "arguments.tags[1]", "type"),
    ({"q": "x", "n": 0}, "arguments.n", "minimum"),
    ({"q": "x", "n": "0"}, "arguments.n", "minimum"),  # coerced, then checked
    ({"q": "x", "mode": "c"}, "arguments.mode", "enum"),
    ({"q": "x", "options": {"other": 1}}, "arguments.options", "additionalProperties"),
    ({"q": 5}, "arguments.q", "type"),
    ({"q": None}, "arguments.q", "type"),  # present-but-null passes step 1, fails step 2
])
def test_validation_paths(args, path, constraint):
    error, kind = check(args)
    assert kind == "invalid"
    assert error["path"] == path and error["constraint"] == constraint
    assert error["error"].startswith(f"tool_call to 't' failed argument validation at {path} "
                                     f"({constraint}): ")
    assert error["error"].endswith(". The tool was NOT invoked.")
    assert error["parameters"] == PARAMS
    assert error["hint"] == "Retry tool_call with 'arguments' matching the parameters schema " \
        "above."
    assert list(error) == ["error", "path", "constraint", "parameters", "hint"]


@pytest.mark.parametrize("args", [
    {"q": "x"},
    {"q": "x", "n": "3", "ratio": "2.5", "flag": "true", "tags": "[1, 2]"},
    {"q": "x", "tags": 7},  # a lone value for an array property becomes [value] (§13)
    {"q": "x", "note": None},
    {"q": "x", "extra": {"anything": 1}},
    {"q": "007"},  # a string stays a string when the schema wants a string
])
def test_validation_passes(args):
    assert check(args) == (None, "")


def test_missing_required_first():
    error, kind = check({"n": "bad"})
    assert kind == "missing" and error["path"] == "arguments" and \
        error["constraint"] == "required"
    assert error["error"] == ("tool_call to 't' is missing required argument(s): q. The tool "
                              "was NOT invoked.")


def test_array_root_path():
    assert error_path([0]) == "arguments[0]"
    assert error_path(["a", 2, "b"]) == "arguments.a[2].b"
    assert error_path([]) == "arguments"


@pytest.mark.parametrize(("schema", "expected"), [
    ({"type": "string", "nullable": True}, {"type": ["string", "null"]}),
    ({"type": ["string", "integer"], "nullable": True},
     {"type": ["string", "integer", "null"]}),
    ({"enum": ["a"], "nullable": True}, {"anyOf": [{"enum": ["a"]}, {"type": "null"}]}),
    ({"type": "string", "nullable": False}, {"type": "string"}),
    ({"type": "object", "properties": {"x": {"type": "integer", "nullable": True}},
      "default": {"nullable": True}},
     {"type": "object", "properties": {"x": {"type": ["integer", "null"]}},
      "default": {"nullable": True}}),
    ({"examples": [{"nullable": True, "type": "string"}]},
     {"examples": [{"nullable": True, "type": "string"}]}),
])
def test_normalize_nullable(schema, expected):
    assert normalize_nullable(schema) == expected


def test_remote_ref_skips_validation():
    assert has_remote_ref({"properties": {"a": {"$ref": "https://x/y.json"}}})
    assert not has_remote_ref({"properties": {"a": {"$ref": "#/$defs/a"}}})
    schemas = {"t": make_def("t", "", {"type": "object", "properties": {
        "a": {"$ref": "other.json#/a"}, "n": {"type": "integer"}}})}
    assert validate_call_args("t", {"n": "x"}, schemas) == (None, "")


def test_local_ref_validated():
    params = {"type": "object", "$defs": {"c": {"type": "integer"}},
              "properties": {"c": {"$ref": "#/$defs/c"}}}
    error, kind = validate_call_args("t", {"c": "x"}, {"t": make_def("t", "", params)})
    assert kind == "invalid" and error["path"] == "arguments.c"


@pytest.mark.parametrize("params", [
    {"type": "object", "properties": {"a": {"type": "no-such-type"}}},  # check_schema fails
    {"type": "object", "properties": {"a": {"minimum": "zero"}}},
])
def test_malformed_schema_fails_open(params):
    assert validate_call_args("t", {"a": 1}, {"t": make_def("t", "", params)}) == (None, "")


def test_unknown_tool_or_missing_parameters_pass():
    assert validate_call_args("nope", {}, SCHEMAS) == (None, "")
    assert validate_call_args("t", {}, {"t": {"type": "function", "function": {"name": "t"}}}) \
        == (None, "")
    assert validate_call_args("t", {}, {"t": "garbage"}) == (None, "")


def test_coerce_value():
    schema = {"type": "object", "properties": {
        "i": {"type": "integer"}, "f": {"type": "number"}, "b": {"type": ["boolean", "null"]},
        "s": {"type": ["string", "integer"]}, "z": {"type": "null"}}}
    got = coerce_value({"i": " 4 ", "f": "1e3", "b": "False", "s": "5", "z": "null",
                        "other": "7"}, schema)
    # a list of types is tried in order, the first that changes the value wins (§13)
    assert got == {"i": 4, "f": 1000, "b": False, "s": 5, "z": None, "other": "7"}
    assert type(got["f"]) is int  # an integral number becomes an int
    assert coerce_value({"i": "4.5"}, schema) == {"i": "4.5"}
    assert coerce_value({"f": "nan"}, schema) == {"f": "nan"}
    original = {"i": "4"}
    coerce_value(original, schema)
    assert original == {"i": "4"}


def test_detail_clipped_and_collapsed():
    assert clip_detail("a  \n b") == "a b"
    long = clip_detail("x" * 700)
    assert len(long) == 600 and long.endswith("...")
    assert clip_detail("y" * 600) == "y" * 600


def test_long_detail_in_message():
    params = {"type": "object", "properties": {"e": {"enum": [f"value-{i}" for i in range(200)]}}}
    error, _ = validate_call_args("t", {"e": "zzz"}, {"t": make_def("t", "", params)})
    detail = error["error"].split("(enum): ", 1)[1].rsplit(". The tool was NOT invoked.", 1)[0]
    assert len(detail) == 600 and detail.endswith("...")
