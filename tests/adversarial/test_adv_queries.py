"""Hostile tool_search queries (issue 9 / 11): a 1 MB query is answered by every profile and
leaves no per-word memo behind (a gateway answers such queries for as long as it runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolsearch.profiles import PROFILE_NAMES
from toolsearch.session import SessionState
from toolsearch.sources.catalog_file import load_catalog_file

REPO = Path(__file__).resolve().parents[2]


def _memo_size(memo: dict) -> int:
    """Entries in a catalog's memo, counting one level of nested dicts (bm25f's index)."""
    total = 0
    for value in memo.values():
        total += 1
        inner = getattr(value, "memo", None)  # the bm25f index keeps its own memo
        if isinstance(inner, dict):
            total += sum(len(v) if isinstance(v, dict) else 1 for v in inner.values())
    return total


def _made_up(seed: int, size: int = 1_000_000) -> str:
    words, length, i = [], 0, 0
    while length < size:
        word = f"qz{seed}x{i:06d}k"
        words.append(word)
        length += len(word) + 1
        i += 1
    return "scrape the page " + " ".join(words)


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_a_1mb_query_is_answered_and_leaves_no_per_word_memo(profile: str) -> None:
    state = SessionState.from_workspace(
        load_catalog_file(REPO / "sample_catalogs" / "seed-demo.yaml"), profile=profile)
    bridge = state.bridge()
    bridge.dispatch_sync("tool_search", {"query": "scrape a web page"})
    first = bridge.dispatch_sync("tool_search", {"query": _made_up(1)})
    after_first = _memo_size(bridge.catalog.memo)
    second = bridge.dispatch_sync("tool_search", {"query": _made_up(2)})
    after_second = _memo_size(bridge.catalog.memo)
    assert first.result is not None and second.result is not None
    assert after_second - after_first <= 100, (after_first, after_second)
