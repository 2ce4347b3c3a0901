"""REFERENCE §7 (G1 bridge schemas) and the listing framing of §6."""

from __future__ import annotations

import pytest

from toolsearch.schemas import bridge_tool_schemas, search_description

LISTING = ("Deferred tool catalog (call schemas via `tool_describe`, invoke via `tool_call`):\n"
           "github tools (1):\n- mcp__github__create_issue: Create an issue.")


def fn(defs, index):
    return defs[index]["function"]


def test_three_bridges_in_order_with_openai_shape():
    defs = bridge_tool_schemas(12)
    assert [fn(defs, i)["name"] for i in range(3)] == ["tool_search", "tool_describe",
                                                      "tool_call"]
    for d in defs:
        assert d["type"] == "function"
        assert set(d["function"]) == {"name", "description", "parameters"}
        assert d["function"]["parameters"]["type"] == "object"


def test_tool_search_parameters():
    params = fn(bridge_tool_schemas(3), 0)["parameters"]
    assert list(params["properties"]) == ["query", "limit"]
    assert params["properties"]["query"]["type"] == "string"
    assert "create github issue" in params["properties"]["query"]["description"]
    assert params["properties"]["limit"]["type"] == "integer"
    assert "default 5" in params["properties"]["limit"]["description"]
    assert list(params["required"]) == ["query"]


def test_tool_describe_parameters():
    f = fn(bridge_tool_schemas(3), 1)
    assert list(f["parameters"]["properties"]) == ["name"]
    assert f["parameters"]["properties"]["name"]["type"] == "string"
    assert list(f["parameters"]["required"]) == ["name"]
    assert "JSON schema" in f["description"] and "tool_search" in f["description"]
    assert "tool_call" in f["description"]


def test_tool_call_parameters():
    f = fn(bridge_tool_schemas(3), 2)
    props = f["parameters"]["properties"]
    assert list(props) == ["name", "arguments"]
    assert props["name"]["type"] == "string"
    assert props["arguments"]["type"] == "object"
    assert list(f["parameters"]["required"]) == ["name", "arguments"]
    for words in ("deferred tool", "tool_describe", "hooks", "approvals"):
        assert words in f["description"]


@pytest.mark.parametrize("count", [0, 1, 172, 3300])
def test_search_description_base(count):
    text = fn(bridge_tool_schemas(count), 0)["description"]
    assert text.startswith(f"Search {count} additional tools that are loaded on demand")
    for words in ("`limit`", "name and description", "tool_describe", "tool_call",
                  "top of the system prompt", "need no search"):
        assert words in text
    assert text == search_description(count)


@pytest.mark.parametrize("form", ["full", "names", "mixed", "groups", "", "none"])
def test_only_tool_search_changes_with_a_listing(form):
    bare = bridge_tool_schemas(5)
    listed = bridge_tool_schemas(5, listing=LISTING, listing_form=form)
    assert listed[1] == bare[1] and listed[2] == bare[2]
    assert listed[0]["function"]["parameters"] == bare[0]["function"]["parameters"]
    assert listed[0]["function"]["description"] != bare[0]["function"]["description"]


def test_no_listing_means_base_only():
    base = search_description(5)
    assert search_description(5, None, "full") == base
    assert search_description(5, "", "groups") == base
    assert "\n" not in base


def split(text):
    parts = text.split("\n\n")
    assert len(parts) == 3, parts
    return parts


def test_groups_framing():
    text = search_description(7, LISTING, "groups")
    base, framing, listing = split(text)
    assert base == search_description(7)
    assert listing == LISTING
    lower = framing.lower()
    for words in ("connected", "are reachable", "search here first", "do not claim",
                  "terminal/browser", "without searching"):
        assert words in lower
    assert "ARE reachable" in framing and "FIRST" in framing and "do NOT claim" in framing
    assert "names not listed" not in framing


@pytest.mark.parametrize("form", ["full", "names", "", "none"])
def test_listed_framing(form):
    base, framing, listing = split(search_description(7, LISTING, form))
    assert base == search_description(7)
    assert listing == LISTING
    lower = framing.lower()
    for words in ("every deferred capability is listed", "tool_describe", "skip tool_search"):
        assert words in lower
    assert "do NOT claim it is unavailable" in framing
    assert "names not listed" not in framing


def test_mixed_framing_adds_one_sentence():
    full = split(search_description(7, LISTING, "full"))[1]
    mixed = split(search_description(7, LISTING, "mixed"))[1]
    assert mixed.startswith(full + " ")
    extra = mixed[len(full) + 1:]
    assert '"names not listed"' in extra and "tool_search first" in extra
    assert extra.count(".") == 1 and extra.endswith(".")


def test_default_form_is_the_empty_string():
    assert bridge_tool_schemas(3, listing=LISTING) == bridge_tool_schemas(
        3, listing=LISTING, listing_form="")
    assert search_description(3, LISTING) == search_description(3, LISTING, "full")


def test_schemas_are_immutable():
    defs = bridge_tool_schemas(1)
    assert isinstance(defs, tuple)
    with pytest.raises(TypeError):
        defs[0]["function"]["name"] = "x"
