"""A session's defs are its toolsets' defs in a row (registered chunks): classification,
grouping and content keys reuse each toolset's work when another one is attached or detached.
Knowing the chunks must never change a result: each step is checked against the same step over
the same defs with no chunks known."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from toolsearch import classify, listing, tooldefs
from toolsearch.caches import clear_caches
from toolsearch.config import ToolSearchConfig
from toolsearch.profiles import PROFILE_NAMES, get_profile
from toolsearch.session import SessionState
from toolsearch.toolsets import Toolset, ToolSpec, Workspace

SHARED = Path(__file__).resolve().parents[2].parent / "shared"


def workspace() -> Workspace:
    """Toolsets of every kind, two plugins exposing the same name (the first one registers
    it: detaching it hands the name to the second), and core tools on ``latest``'s defer
    list."""
    return Workspace(name="chunks", toolsets=(
        Toolset("alpha", "plugin", (ToolSpec("shared_tool", "Alpha's."), ToolSpec("a_only"))),
        Toolset("github", "mcp", (ToolSpec("create_issue", "Create an issue."),
                                  ToolSpec("tool_search", "A bridge name from a server."))),
        Toolset("core", "core", (ToolSpec("terminal", "Run."), ToolSpec("todo_list", "Todo."))),
        Toolset("beta", "plugin", (ToolSpec("shared_tool", "Beta's."), ToolSpec("b_only"))),
        Toolset("desktop_ui", "direct", (ToolSpec("read_terminal", "Read the pane."),)),
        Toolset("loose", "unregistered", (ToolSpec("loose_tool", "Nobody owns me."),)),
        Toolset("empty", "mcp", ()),
        Toolset("linear", "mcp", (ToolSpec("create_task", "Create a task."),)),
        Toolset("gamma", "plugin", (ToolSpec("computer_use", "Use the computer."),)),
    ))


def same_steps(state: SessionState) -> None:
    """Each chunked step equals the plain one over the same defs."""
    defs = state.session_defs
    assert tooldefs.chunks_of(defs) is not None
    reg = state.registry
    profile = state.config.profile
    defer = state.config.effective_defer_tools
    defer = frozenset(defer) if defer is not None else None
    chunked = classify._classify(defs, reg, defer, profile)
    flat = classify._classify_flat(list(defs), reg, defer, profile)
    for part in ("visible", "deferrable", "dropped"):
        a, b = getattr(chunked, part), getattr(flat, part)
        assert len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True)), part
    assert chunked.rules == flat.rules
    assert tooldefs._defs_json(defs) == tuple(map(tooldefs.compact, defs))
    deferrable = chunked.deferrable
    if deferrable:
        assert tooldefs.chunks_of(deferrable) is not None
    groups = listing._group(deferrable, reg, profile)
    plain = listing._group(list(deferrable), reg, profile)
    assert [(g.label, g.tools) for g in groups] == [(g.label, g.tools) for g in plain]


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_every_attachment_and_scope_gives_the_results_of_plain_defs(profile):
    ws = workspace()
    names = [t.name for t in ws.toolsets]
    base = SessionState.from_workspace(ws, profile=profile)
    checked = 0
    for k in range(len(names)):
        for detached in itertools.combinations(names, k):
            state = base
            for name in detached:
                state = state.toggled(name)
            same_steps(state)
            checked += 1
    scoped = base.with_scope(["github", "beta", "alpha"])
    same_steps(scoped)
    same_steps(scoped.toggled("alpha"))
    assert checked == 2 ** len(names) - 1


def test_the_shared_name_moves_to_the_second_plugin_when_the_first_is_detached():
    state = SessionState.from_workspace(workspace(), profile="seed")
    assert state.assembly.activated  # every chunk's work remembered
    moved = state.toggled("alpha").assembly
    decision = {r[0]: r[3] for r in moved.classification.rules}
    assert decision["shared_tool"] == "beta"
    assert state.assembly.classification.rules[0][3] == "alpha"


def test_a_profile_change_is_not_answered_from_another_profiles_chunks():
    state = SessionState.from_workspace(workspace(), profile="seed")
    seed = state.assembly.classification
    latest = state.with_profile(get_profile("latest")).assembly.classification
    assert "computer_use" not in seed.names(classify.Status.DEFERRED)
    assert "computer_use" in latest.names(classify.Status.DEFERRED)  # latest's defer list
    again = state.with_profile(get_profile("latest")).with_config(defer=["terminal"])
    assert "terminal" in again.assembly.classification.names(classify.Status.DEFERRED)


def test_real_catalogs_toggled_at_random_give_the_results_of_plain_defs():
    real = SHARED / "catalogs" / "real"
    if not real.is_dir():
        pytest.skip("shared real catalogs not present")
    from toolsearch.sources.catalog_file import load_dump_dir

    clear_caches()
    ws = load_dump_dir(real)
    names = [t.name for t in ws.toolsets]
    rng = random.Random(11)
    state = SessionState.from_workspace(ws, profile="bm25f")
    assert state.assembly.activated
    for _ in range(12):
        state = state.toggled(rng.choice(names))
        same_steps(state)
    fresh = state.assembly
    clear_caches()  # and the same assembly from nothing remembered
    again = SessionState(ws, ToolSearchConfig(profile=get_profile("bm25f")),
                         state.context_length, state.detached).assembly
    assert (fresh.listing_form, fresh.deferred_tokens, fresh.tier) == (
        again.listing_form, again.deferred_tokens, again.tier)
    assert fresh.listing is not None and again.listing is not None
    assert fresh.listing.text == again.listing.text


def test_the_registry_fingerprint_reads_entries_as_toolset_of_does():
    valid = classify.Registry({"a": "mcp-x", "b": "core"})
    assert valid.fingerprint[0] == frozenset({("a", "mcp-x"), ("b", "core")})
    odd = classify.Registry({"a": "mcp-x", "b": "", "c": ["x"], "d": 3})  # type: ignore[dict-item]
    assert odd.fingerprint[0] == frozenset({("a", "mcp-x"), ("b", None), ("c", None),
                                            ("d", None)})
    assert classify.Registry({"a": "mcp-x", "b": None}).fingerprint != valid.fingerprint  # type: ignore[dict-item]
