"""The fast bm25f index ranks, scores and explains exactly as the reference implementation
kept in ``bm25f_oracle.py`` (the module before the speed work), on the real catalogs' queries."""

from __future__ import annotations

from pathlib import Path

import bm25f_oracle as oracle
import pytest

from toolsearch import bm25f, recall
from toolsearch.sources.catalog_file import load_dump_dir

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
REAL = SHARED / "catalogs" / "real"
QUERY_SETS = ("azure-mcp", "livemcpbench")


@pytest.fixture(scope="module")
def union():
    if not REAL.is_dir() or not all((SHARED / "recall" / f"{n}.jsonl").exists()
                                    for n in QUERY_SETS):
        pytest.skip("shared real catalogs / query sets not present")
    catalog = recall.search_catalog_for(load_dump_dir(REAL), "seed")
    fast = bm25f.build_index(catalog.entries)
    slow = oracle.build_index(catalog.entries)
    queries = [q for n in QUERY_SETS
               for q in recall.load_queries(SHARED / "recall" / f"{n}.jsonl")]
    return fast, slow, queries


def _plain(hits):
    return [(h.doc, h.name, h.score, h.terms, h.fields, h.fallback) for h in hits]


def test_same_top_hits_scores_and_contributions_on_the_real_queries(union):
    fast, slow, queries = union
    assert len(queries) > 800
    differ = [q.text for q in queries
              if _plain(bm25f.search(fast, q.text, 5)) != _plain(oracle.search(slow, q.text, 5))]
    assert differ == []


def test_same_full_scores_and_long_rankings(union):
    fast, slow, queries = union
    for q in queries[::7]:
        assert bm25f.scores(fast, q.text) == oracle.scores(slow, q.text), q.text
        assert _plain(bm25f.search(fast, q.text, 60)) == _plain(oracle.search(slow, q.text, 60))


def test_same_rank_of_the_gold_tools(union):
    fast, slow, queries = union
    for q in queries[::5]:
        for slot in q.gold:
            for name in slot:
                assert bm25f.rank_of(fast, q.text, name) == oracle.rank_of(slow, q.text, name), \
                    (q.text, name)


def test_same_answer_under_other_parameters(union):
    fast, slow, queries = union
    params = bm25f.Params(k1=1.1, weights=(2.0, 1.0, 1.0, 0.8, 0.4, 0.5),
                          b=(0.5, 0.2, 0.75, 0.3, 0.6, 0.9), stem_weight=0.5,
                          synonym_weight=0.45)
    old = oracle.Params(k1=params.k1, weights=params.weights, b=params.b,
                        stem_weight=params.stem_weight, synonym_weight=params.synonym_weight)
    for q in queries[::11]:
        assert _plain(bm25f.search(fast, q.text, 5, params)) == \
            _plain(oracle.search(slow, q.text, 5, old)), q.text


def test_same_fallbacks_and_stopword_fills(union):
    fast, slow, _queries = union
    for text in ("the of and", "zzzqqq", "sql", "what is it", "kusto", "a cosmosdb thing",
                 "createResource in the azure-cli", "VMs", "", "remove the old entries",
                 "pick and choose, then save or download", "run execute-query"):
        assert _plain(bm25f.search(fast, text, 5)) == _plain(oracle.search(slow, text, 5)), text
