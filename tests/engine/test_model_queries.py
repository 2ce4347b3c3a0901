"""Our model-style query sets (``queries/models-*.jsonl``): well formed, and every gold name is a
searchable tool of the real catalogs. No recall figure is asserted here: these sets are held out
from tuning, and their figures are ``toolsearch bench recall``'s job."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolsearch import recall
from toolsearch.recall import load_queries
from toolsearch.sources.catalog_file import load_dump_dir

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
FILES = sorted((ROOT / "queries").glob("models-*.jsonl"))
KINDS = {"keywords", "plain", "typo"}


def test_model_query_files_are_well_formed():
    assert FILES, "no queries/models-*.jsonl"
    seen: set[str] = set()
    total = 0
    for path in FILES:
        loaded = load_queries(path)
        raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip()]
        assert len(loaded) == len(raw) > 0
        for query, line in zip(loaded, raw, strict=True):
            assert set(line) == {"query", "gold", "kind"}, (path.name, line)
            assert query.kind in KINDS, (path.name, query.text)
            assert query.gold and all(name.startswith("mcp__") for name in query.gold_names)
            assert len(query.gold_names) == len(line["gold"]), f"repeated gold: {query.text}"
            key = query.text.lower()
            assert key not in seen, f"duplicate query: {query.text}"
            seen.add(key)
        total += len(loaded)
    assert total >= 300


def test_model_query_gold_names_are_real_searchable_tools():
    real = SHARED / "catalogs" / "real"
    if not real.is_dir():
        pytest.skip(f"{real} not present (shared benchmark data lives outside the repo)")
    ws = load_dump_dir(real)
    registry = ws.registry()
    servers: set[str] = set()
    for path in FILES:
        queries = load_queries(path)
        for profile in ("seed", "latest"):
            report = recall.run_recall(ws, queries, profile)
            assert report.unresolved == (), (path.name, profile, report.unresolved[:3])
            assert report.n == len(queries)
        servers.update(registry.toolsets[name] for query in queries for name in query.gold_names)
    assert len(servers) >= 40


def test_tuning_query_files_are_well_formed_real_and_apart_from_the_held_out_sets():
    """``queries/tune-*.jsonl`` (tuning data for bm25f): same format, and no query of theirs
    is a query of the held-out ``models-*.jsonl`` sets."""
    tune = sorted((ROOT / "queries").glob("tune-*.jsonl"))
    assert tune, "no queries/tune-*.jsonl"
    held_out = {q.text.lower() for path in FILES for q in load_queries(path)}
    queries = [q for path in tune for q in load_queries(path)]
    assert len(queries) >= 100
    assert all(q.kind in KINDS and q.gold for q in queries)
    assert not {q.text.lower() for q in queries} & held_out
    real = SHARED / "catalogs" / "real"
    if real.is_dir():
        ws = load_dump_dir(real)
        known = {e.name for e in recall.search_catalog_for(ws, "seed").entries}
        assert {n for q in queries for n in q.gold_names} <= known
