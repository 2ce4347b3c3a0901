"""REFERENCE §4 (G1): catalog entries, search text, tokenizer, source / source_name."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference_impl import fdef, ref_search_text, ref_tokenize

from toolsearch.catalog import (
    CatalogEntry,
    build_catalog,
    entry_source,
    param_names,
    search_text,
    tokenize,
)
from toolsearch.tooldefs import freeze

# --------------------------------------------------------------------------- tokenizer


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", []),
        (None, []),
        ("   ", []),
        ("!!!", []),
        ("Create GitHub Issue", ["create", "github", "issue"]),
        ("mcp__github__create_issue", ["mcp", "github", "create", "issue"]),
        ("a b c", ["a", "b", "c"]),  # no minimum length
        ("the and of", ["the", "and", "of"]),  # no stop words
        ("issues creating ran", ["issues", "creating", "ran"]),  # no stemming in G1
        ("v1.2 HTTP2", ["v1", "2", "http2"]),
        ("café naïve", ["caf", "na", "ve"]),  # non-ASCII letters are separators
        ("日本語text", ["text"]),
        ("ÀB", ["b"]),
        ("x-y:z.w/q", ["x", "y", "z", "w", "q"]),
        ("repeat repeat", ["repeat", "repeat"]),
        ("١٢٣ 123", ["123"]),  # non-ASCII digits are separators too
    ],
)
def test_tokenize(text, tokens):
    assert tokenize(text) == tokens


@given(st.text())
def test_tokenize_matches_the_regex_reference(text):
    assert tokenize(text) == ref_tokenize(text)


# --------------------------------------------------------------------------- search text


def test_search_text_fields_and_separators():
    d = fdef("mcp__git-hub.v2:create_issue", "Open an issue.",
             {"owner": {"type": "string"}, "repo_name": {"type": "string"}})
    assert search_text(d) == "mcp  git hub v2 create issue Open an issue. owner repo_name"


def test_search_text_without_description_or_params():
    assert search_text(fdef("plain", None)) == "plain  "
    d = {"type": "function", "function": {"name": "x"}}
    assert search_text(d) == "x  "


def test_nested_schema_bodies_and_param_descriptions_are_not_indexed():
    d = fdef("tool", "Top.", {
        "options": {"type": "object", "description": "secretdescription",
                    "properties": {"nestedparam": {"type": "string"}}},
        "count": {"type": "integer", "enum": ["enumvalue"]},
    })
    tokens = tokenize(search_text(d))
    assert tokens == ["tool", "top", "options", "count"]
    for hidden in ("nestedparam", "secretdescription", "enumvalue", "object", "integer",
                   "string", "type"):
        assert hidden not in tokens


@pytest.mark.parametrize(
    "params",
    [None, "x", [], {"type": "object"}, {"properties": None}, {"properties": ["a", "b"]}],
)
def test_malformed_parameters_index_no_params(params):
    d = {"type": "function", "function": {"name": "n", "description": "d", "parameters": params}}
    assert param_names(d) == []
    assert tokenize(search_text(d)) == ["n", "d"]


def test_non_string_description_counts_as_empty():
    d = {"type": "function", "function": {"name": "n", "description": 42}}
    assert tokenize(search_text(d)) == ["n"]


@given(
    st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=20),
    st.one_of(st.none(), st.text(max_size=30)),
    st.lists(st.text(max_size=8), max_size=4, unique=True),
)
def test_search_text_matches_the_reference(name, description, params):
    d = fdef(name, description, {p: {"type": "string"} for p in params})
    assert tokenize(search_text(d)) == ref_tokenize(ref_search_text(d))


# --------------------------------------------------------------------------- sources


@pytest.mark.parametrize(
    ("registry", "expected"),
    [
        ({"t": "mcp-github"}, ("mcp", "mcp-github")),
        ({"t": "kanban"}, ("plugin", "kanban")),
        ({"t": "desktop_ui"}, ("plugin", "desktop_ui")),
        ({"t": "mcp"}, ("plugin", "mcp")),  # the prefix is "mcp-", not "mcp"
        ({}, ("other", "")),
        ({"t": ""}, ("other", "")),
        ({"t": None}, ("other", "")),
        (None, ("other", "")),
    ],
)
def test_entry_source(registry, expected):
    assert entry_source("t", registry) == expected


# --------------------------------------------------------------------------- build_catalog


def test_build_catalog_entries_in_input_order_and_nameless_skipped():
    defs = [
        fdef("mcp__github__create_issue", "Create an issue.", {"title": {"type": "string"}}),
        fdef(None, "nameless"),
        fdef("", "empty name"),
        fdef("kanban_sync", None),
        fdef("loose", "Unregistered tool."),
    ]
    registry = {"mcp__github__create_issue": "mcp-github", "kanban_sync": "kanban"}
    catalog = build_catalog(defs, registry)
    assert [e.name for e in catalog] == ["mcp__github__create_issue", "kanban_sync", "loose"]
    assert len(catalog) == 3
    first, second, third = catalog.entries
    assert (first.source, first.source_name) == ("mcp", "mcp-github")
    assert (second.source, second.source_name) == ("plugin", "kanban")
    assert (third.source, third.source_name) == ("other", "")
    assert first.description == "Create an issue."
    assert second.description == ""
    assert first.schema == defs[0]
    assert first.tokens == ("mcp", "github", "create", "issue", "create", "an", "issue", "title")
    assert (first.label, second.label, third.label) == ("github", "kanban", "other")


def test_catalog_entries_are_frozen():
    catalog = build_catalog([fdef("a", "b")], {"a": "mcp-x"})
    assert isinstance(catalog.entries, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        catalog.entries[0].name = "z"  # type: ignore[misc]
    assert isinstance(catalog.entries[0], CatalogEntry)


def test_catalog_is_rebuilt_from_content_every_time():
    registry = {"a": "mcp-x", "b": "mcp-x"}
    one = build_catalog([fdef("a", "alpha")], registry)
    two = build_catalog([fdef("a", "alpha"), fdef("b", "beta")], registry)
    assert [e.name for e in one] == ["a"]
    assert [e.name for e in two] == ["a", "b"]
    changed = build_catalog([fdef("a", "gamma")], registry)
    assert changed.entries[0].description == "gamma"
    # a registry change is seen too, even for identical defs
    moved = build_catalog([fdef("a", "alpha")], {"a": "kanban"})
    assert moved.entries[0].source == "plugin"


def test_frozen_and_plain_defs_build_the_same_catalog():
    d = fdef("a", "Alpha tool.", {"x": {"type": "string"}})
    plain = build_catalog([d], {"a": "mcp-x"})
    frozen = build_catalog([freeze(d)], {"a": "mcp-x"})
    assert [(e.name, e.tokens, e.source) for e in plain] == \
        [(e.name, e.tokens, e.source) for e in frozen]


def test_corpus_statistics():
    catalog = build_catalog([fdef("a", "x x y"), fdef("b", "y")], {})
    assert catalog.doc_lengths == (4, 2)
    assert catalog.avgdl == 3.0
    assert catalog.df["x"] == 1 and catalog.df["y"] == 2
    assert catalog.tf(0, "x") == 2 and catalog.tf(1, "x") == 0


def test_empty_catalog():
    catalog = build_catalog([], {})
    assert len(catalog) == 0 and catalog.avgdl == 0.0
