"""The fast bm25f index ranks, scores and explains exactly as the reference implementation
kept in ``bm25f_oracle.py`` (the module before the speed work), on the real catalogs' queries."""

from __future__ import annotations

from pathlib import Path

import bm25f_oracle as oracle
import pytest
from reference_impl import fdef

from toolsearch import bm25f, recall
from toolsearch.catalog import build_catalog
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


def _same_index(fast, slow):
    """The fast index holds the reference's words, counts and lengths, and its postings are
    those counts, word by word and field by field."""
    assert fast.vocab == slow.vocab
    assert fast.lengths == slow.lengths
    assert fast.avg == slow.avg
    assert len(fast.counts) == len(slow.counts)
    postings = {}
    for doc, (mine, theirs) in enumerate(zip(fast.counts, slow.counts, strict=True)):
        assert tuple(map(dict, mine)) == tuple(map(dict, theirs)), doc
        for f, counts in enumerate(theirs):
            for word, tf in counts.items():
                postings.setdefault((f, word), []).append((doc, tf))
    for word in fast.vocab:
        for f, (lo, hi) in enumerate(fast.spans(word)):
            held = list(zip(fast.post_docs[lo:hi].tolist(), fast.post_tfs[lo:hi].tolist(),
                            strict=True))
            assert held == postings.get((f, word), []), (word, f)


def test_the_same_index_over_the_real_tools(union):
    fast, slow, _queries = union
    _same_index(fast, slow)


AWKWARD = (
    "Hello world. Second", "No end here", "Ends with a dot.", "Why? Because", "caf\u00e9? no. yes",
    "\u00e9. x", "a.\u00a0b. c", "a.\x00b. c", "nul\x00inside", "", "x.\n", "!?.",
    "What?\u2003Then", "a?b. c", "A VeryLongWordOfManyLetters verylongwordofmanyletters",
    "abcdefghijkl abcdefghijklm ABCDEFGHIJKL 123456789012 1234567890123 0 00 000 a0 0a z zz",
    "\u65e5\u672c\u8a9e. \u30c6\u30b9\u30c8", "x" * 200 + ". y", "end!", "q?", "\t\x1c.\x1d. ok",
    "the last one ends in no sentence end")
"""Descriptions whose summary end or words a byte-level reading could get wrong: non-ASCII
chars (read as ``?``) beside or as punctuation, NULs, words of 12 letters and more, digits."""


def test_the_same_index_over_awkward_prose():
    entries = build_catalog([fdef(f"mcp__s__tool_{i}", text, {
        "p": {"type": "string", "description": text + " and more"},
        "q": {"type": "string", "description": "a\x00b \u00e9t\u00e9"}})
        for i, text in enumerate(AWKWARD)], {}, "bm25f").entries
    for some in (entries, entries[:1], entries[9:10], ()):
        _same_index(bm25f.build_index(some), oracle.build_index(some))


def test_a_word_read_as_a_number_is_below_the_long_words_numbers():
    """Words up to ``_PACKED`` letters are told apart by their base-37 numbers, longer ones are
    numbered from 2**63: the two ranges must not meet (nor wrap past 2**64)."""
    assert bm25f._RADIX ** bm25f._PACKED <= 1 << 63
    assert max(bm25f._DIGITS) < bm25f._RADIX
