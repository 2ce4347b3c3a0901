"""The plain-dict path: each def is encoded at most once per call, an unchanged def is
recognised without re-encoding, and a def mutated in place is always noticed."""

from __future__ import annotations

import copy

import pytest

from toolsearch import tooldefs
from toolsearch.assemble import assemble_tool_defs
from toolsearch.bridge import Bridge
from toolsearch.caches import clear_caches
from toolsearch.classify import Registry
from toolsearch.config import ToolSearchConfig
from toolsearch.tokens import estimate_tokens_from_schemas

CONFIG = ToolSearchConfig()


def plain(name: str, description: str) -> dict:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}},
                       "required": ["q"]}}}


def workload(n: int = 40) -> tuple[list[dict], Registry]:
    defs = [plain("terminal", "Run a shell command.")]
    defs += [plain(f"mcp__svc__tool_{i}", f"Tool number {i} does thing {i}.") for i in range(n)]
    reg = Registry({d["function"]["name"]: "mcp-svc" for d in defs[1:]})
    return defs, reg


@pytest.fixture
def encodes(monkeypatch):
    """Count every JSON encoding of a def."""
    calls: list[object] = []
    real = tooldefs._encode

    def counting(value):
        calls.append(value)
        return real(value)

    monkeypatch.setattr(tooldefs, "_encode", counting)
    clear_caches()
    return calls


def assemble(defs, reg, **config):
    return assemble_tool_defs(defs, reg, context_length=200_000,
                              config=CONFIG.with_values(**config) if config else CONFIG)


def test_a_new_list_is_encoded_once_per_def(encodes):
    defs, reg = workload()
    assemble(defs, reg)
    assert sorted(map(id, encodes)) == sorted(map(id, defs))


def test_the_same_list_with_a_changed_config_encodes_nothing(encodes):
    defs, reg = workload()
    assemble(defs, reg)
    for cap in (900, 1200, 1500, 300):
        encodes.clear()
        result = assemble(defs, reg, listing_max_tokens=cap)
        assert encodes == []
        assert result.budget is not None and result.budget.cap == cap


def test_equal_dicts_rebuilt_each_turn_are_not_re_encoded(encodes):
    defs, reg = workload()
    assemble(defs, reg)
    encodes.clear()
    assemble(copy.deepcopy(defs), reg, listing_max_tokens=900)
    assert encodes == []


@pytest.mark.parametrize("turns_before", [1, 2, 3])
def test_a_def_mutated_in_place_is_noticed(turns_before):
    clear_caches()
    defs, reg = workload()
    for _ in range(turns_before):  # first sighting, the snapshot, steady state
        before = assemble(defs, reg)
    target = defs[5]["function"]
    target["description"] = "Completely different words about zebras and a much longer text."
    after = assemble(defs, reg)
    assert "zebras" in (after.listing_text or "")
    assert "zebras" not in (before.listing_text or "")
    assert after.deferred_tokens == estimate_tokens_from_schemas(
        [copy.deepcopy(d) for d in defs[1:]])
    # a nested schema change and a new key are noticed too
    target["parameters"]["properties"]["extra"] = {"type": "integer"}
    changed = assemble(defs, reg)
    assert changed.deferred_tokens > after.deferred_tokens
    hits, _ = Bridge.create(defs, reg, CONFIG).search_hits("zebras extra", 5)
    assert hits and hits[0].name == target["name"]


def test_a_replaced_value_type_is_noticed_before_the_snapshot():
    """The first re-sighting compares an exact image: True is not 1 (JSON differs)."""
    clear_caches()
    defs, reg = workload(3)
    assemble(defs, reg)
    defs[1]["function"]["parameters"]["additionalProperties"] = 1
    assemble(defs, reg)
    defs[1]["function"]["parameters"]["additionalProperties"] = True
    assemble(defs, reg)
    assert '"additionalProperties":true' in tooldefs.compact(defs[1])


def test_unserialisable_defs_still_assemble(encodes):
    defs, reg = workload(3)
    defs[1]["function"]["parameters"]["weird"] = {1, 2}  # a set: not JSON
    result = assemble(defs, reg)
    assert result.activated and result.deferred_count == 3
