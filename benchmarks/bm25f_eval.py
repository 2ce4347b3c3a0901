"""Shared helpers for the bm25f tuning and measurement scripts (not shipped)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from recall_suite import half_of  # noqa: E402,F401  (one split for tuning and reporting)

from toolsearch import bm25f, recall  # noqa: E402
from toolsearch.sources.catalog_file import load_dump_dir, load_real_dump  # noqa: E402

SHARED = ROOT.parent / "shared"
REAL = SHARED / "catalogs" / "real"


def union_catalog():
    return recall.search_catalog_for(load_dump_dir(REAL), "seed")


def azure_catalog():
    return recall.search_catalog_for(load_real_dump(REAL / "azure-mcp.json"), "seed")


def live_catalog():
    return recall.search_catalog_for(load_dump_dir(REAL / "livemcpbench"), "seed")


def evaluate(index: bm25f.Index, queries: Sequence[recall.Query],
             params: bm25f.Params = bm25f.DEFAULT_PARAMS, k: int = 5) -> dict[str, float]:
    known = set(index.names)
    n = h1 = h5 = 0
    rr = 0.0
    for q in queries:
        gold = {g for slot in q.gold for g in slot if g in known}
        if not gold:
            continue
        hits = bm25f.search(index, q.text, k, params)
        rank = next((i for i, h in enumerate(hits, 1) if h.name in gold), 0)
        n += 1
        h1 += rank == 1
        h5 += rank > 0
        rr += 1 / rank if rank else 0
    d = max(n, 1)
    return {"n": n, "r1": h1 / d, "r5": h5 / d, "mrr": rr / d}
