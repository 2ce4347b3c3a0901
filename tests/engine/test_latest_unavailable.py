"""REFERENCE §6.8 / §12: the ``latest`` listing and zero-hit fallback name declared MCP servers
that are unavailable; the ``seed`` profile does not."""

from __future__ import annotations

from toolsearch.listing import LISTING_HEADER, Unavailable, build_listing
from toolsearch.session import SessionState
from toolsearch.toolsets import Toolset, ToolsetStatus, ToolSpec, Workspace

REG = {"mcp__alpha__ping": "mcp-alpha", "mcp__zeta__pong": "mcp-zeta"}
DEFS = [
    {"type": "function", "function": {"name": "mcp__alpha__ping", "description": "Ping a host.",
                                      "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {"name": "mcp__zeta__pong", "description": "Pong back.",
                                      "parameters": {"type": "object", "properties": {}}}},
]
DOWN = (Unavailable("mid", "connection refused"), Unavailable("beta", "timed out", 4))


def test_latest_interleaves_unavailable_rows_label_sorted():
    listing = build_listing(DEFS, REG, 4000, "latest", DOWN)
    assert listing.form == "full"
    assert listing.text == "\n".join([
        LISTING_HEADER,
        "alpha tools (1):", "- mcp__alpha__ping: Ping a host.",
        "beta (4 tools unavailable: timed out)",
        "mid (tools unavailable: connection refused)",
        "zeta tools (1):", "- mcp__zeta__pong: Pong back.",
    ])


def test_unavailable_rows_count_toward_the_budget_and_never_collapse():
    rows = tuple(Unavailable(f"down{i}", "x" * 40) for i in range(3))
    plain = build_listing(DEFS, REG, 4000, "latest")
    with_rows = build_listing(DEFS, REG, 4000, "latest", rows)
    extra = sum(len(r.render()) + 1 for r in rows)
    assert len(with_rows.text) == len(plain.text) + extra
    tight = (len(plain.text) + extra) // 4  # the full form no longer fits
    collapsed = build_listing(DEFS, REG, tight, "latest", rows)
    assert collapsed.form in ("names", "mixed", "groups")
    assert all(r.render() in collapsed.text for r in rows)


def test_seed_ignores_unavailable_servers():
    assert build_listing(DEFS, REG, 4000, "seed", DOWN).text == build_listing(DEFS, REG, 4000,
                                                                              "seed").text


def _state(profile: str) -> SessionState:
    ws = Workspace("t", (
        Toolset("alpha", "mcp", (ToolSpec("ping", "Ping a host."),)),
        Toolset("broken", "mcp", (), ToolsetStatus.ERROR, "cannot start 'srv': not found"),
    ))
    return SessionState.from_workspace(ws, profile=profile)


def test_session_passes_failed_servers_to_the_latest_listing_and_bridge():
    latest = _state("latest")
    assert "broken (tools unavailable: cannot start 'srv': not found)" in \
        latest.assembly.listing_text
    reply = latest.bridge().dispatch_sync("tool_search", {"queries": ["zzz"]})
    sources = reply.result["results"][0]["available_sources"]
    assert [s["name"] for s in sources] == ["alpha", "broken"]
    assert "unavailable" in sources[1] and "not found" in sources[1]["unavailable"]
    seed = _state("seed")
    assert "broken" not in seed.assembly.listing_text
    assert [s["name"] for s in seed.bridge().dispatch_sync(
        "tool_search", {"query": "zzz"}).result["available_sources"]] == ["alpha"]
