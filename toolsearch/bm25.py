"""BM25 retrieval over a catalog, with per-token contributions (REFERENCE §5 and §12).

``seed``: BM25 (k1 1.5, b 0.75, idf ln(1 + (N - df + .5)/(df + .5))), positive scores only,
then the flat-0.1 name-substring fallback. ``latest``: stemmed tokens, exact-name-first, the
rarest-token gate and the relevance floor, no fallback.

Scores are accumulated per query token in query order, so every float is identical to the
plain per-document loop; only the documents that contain a query token are visited.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable
from dataclasses import dataclass

from .catalog import Catalog, CatalogEntry, bm25_index
from .profile import Profile

K1 = 1.5
B = 0.75
FALLBACK_SCORE = 0.1
MIN_QUERY_TERM_COVERAGE = 0.5
MIN_ANSWERABLE_TERMS_FOR_COVERAGE = 4


@dataclass(frozen=True)
class Hit:
    """One search result: the entry, its score and how the score was made."""

    entry: CatalogEntry
    score: float
    terms: tuple[tuple[str, float], ...] = ()
    """Each distinct query token (query order) and its total contribution to ``score``."""
    fallback: bool = False
    """True when the name-substring fallback produced this hit (flat score 0.1)."""
    exact: bool = False
    """True when the ``latest`` profile's exact-name rule admitted it."""
    fields: tuple[tuple[str, str, float], ...] = ()
    """Per-field contributions ``(field, term, value)`` when the retrieval is fielded."""

    @property
    def name(self) -> str:
        return self.entry.name

    def terms_dict(self) -> dict[str, float]:
        return dict(self.terms)


def idf(n_docs: int, df: int) -> float:
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def term_score(idf_value: float, tf: int, dl: int, avgdl: float) -> float:
    return idf_value * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / max(avgdl, 1.0)))


def _token_contributions(catalog: Catalog, tok: str) -> tuple[tuple[int, float], ...]:
    """(doc, contribution) for every doc containing ``tok``; memoised on the catalog."""
    memo = catalog.memo
    found = memo.get(tok)
    if found is None:
        n = len(catalog.entries)
        w = idf(n, catalog.df[tok])
        lengths = catalog.doc_lengths
        avgdl = catalog.avgdl
        found = tuple((doc, term_score(w, tf, lengths[doc], avgdl))
                      for doc, tf in catalog.postings[tok])
        memo[tok] = found
    return found


LONG_QUERY = 256
"""A query of more tokens than this is scored in numpy (:func:`_dense_scores`): a pasted
document of 25,000 tokens took 2-10 s in the plain loop, most of it adding to a dict."""


def _scores(catalog: Catalog, query_tokens: list[str]) -> dict[int, float]:
    """Per-doc sums in query-token order (the same float additions as the plain loop)."""
    if len(query_tokens) > LONG_QUERY:
        return _dense_scores(catalog, query_tokens)
    scores: dict[int, float] = {}
    get = scores.get
    for tok in query_tokens:
        if catalog.df.get(tok, 0) == 0:
            continue
        for doc, value in _token_contributions(catalog, tok):
            scores[doc] = get(doc, 0.0) + value
    return scores


def _dense_scores(catalog: Catalog, query_tokens: list[str]) -> dict[int, float]:
    """:func:`_scores` for a long query: each token's contributions added to one float64
    array, token by token in query order, so each doc's sum is the same float additions
    (from 0.0) as the plain loop; docs no token reaches are left out, as there."""
    import numpy as np  # only long queries need it (bm25f imports it for its index too)

    n = len(catalog.entries)
    total = np.zeros(n, dtype=np.float64)
    touched = np.zeros(n, dtype=bool)
    memo = catalog.memo
    for tok in query_tokens:
        if catalog.df.get(tok, 0) == 0:
            continue
        key = "\x00np:" + tok
        arrays = memo.get(key)
        if arrays is None:
            pairs = _token_contributions(catalog, tok)
            arrays = memo[key] = (np.array([d for d, _v in pairs], dtype=np.intp),
                                  np.array([v for _d, v in pairs], dtype=np.float64))
        docs, values = arrays
        total[docs] += values  # a token's docs are distinct: one addition each
        touched[docs] = True
    docs = np.flatnonzero(touched)
    return dict(zip(docs.tolist(), total[docs].tolist(), strict=True))


def _top(scores: dict[int, float], docs: Iterable[int], limit: int) -> list[int]:
    """The first ``limit`` docs of a stable descending sort by score."""
    return heapq.nsmallest(limit, docs, key=lambda d: (-scores[d], d))


def _contributions(catalog: Catalog, doc: int, query_tokens: list[str]) -> tuple[tuple[str, float], ...]:
    n = len(catalog.entries)
    totals: dict[str, float] = {}
    values: dict[str, float] = {}  # a repeated token's value is worked out once
    for tok in query_tokens:
        value = values.get(tok)
        if value is None:
            value = 0.0
            df = catalog.df.get(tok, 0)
            tf = catalog.tf(doc, tok) if df else 0
            if tf:
                value = term_score(idf(n, df), tf, catalog.doc_lengths[doc], catalog.avgdl)
            values[tok] = value
        totals[tok] = totals.get(tok, 0.0) + value
    return tuple(totals.items())


def search_catalog(catalog: Catalog, query: str, limit: int = 5) -> tuple[Hit, ...]:
    """Rank the catalog for a query; the catalog's profile decides the rules."""
    if not catalog.entries or limit <= 0:
        return ()
    return catalog.profile.search(catalog, query, limit)


def rank_of(catalog: Catalog, query: str, name: str) -> int | None:
    """1-based position of ``name`` in the full ranking for ``query`` (what an unlimited
    ``search_catalog`` would return), or None when the query does not return it at all."""
    if not catalog.entries:
        return None
    return catalog.profile.retrieval.rank_of(catalog, query, name)


class Bm25Retrieval:
    """The seed's retrieval: BM25 with positive scores only, else the 0.1 name-substring
    fallback (REFERENCE §5)."""

    no_match_note = ("no match: no query token occurs in any deferred tool and no tool name "
                     "contains the query")
    not_admitted_note = ""

    def build(self, entries: tuple[CatalogEntry, ...], profile: Profile) -> Catalog:
        return bm25_index(entries, profile)

    def search(self, catalog: Catalog, query: str, limit: int) -> tuple[Hit, ...]:
        tokens = catalog.profile.tokenize(query)
        if not tokens or not catalog.entries or limit <= 0:
            return ()
        scores, ranked_pool, fallback = _seed_pool(catalog, query, tokens)
        if not fallback:
            return tuple(
                Hit(catalog.entries[d], scores[d], _contributions(catalog, d, tokens))
                for d in _top(scores, ranked_pool, limit)
            )
        zero_terms = tuple((tok, 0.0) for tok in dict.fromkeys(tokens))
        return tuple(Hit(catalog.entries[d], FALLBACK_SCORE, zero_terms, fallback=True)
                     for d in ranked_pool[:limit])

    def rank_of(self, catalog: Catalog, query: str, name: str) -> int | None:
        tokens = catalog.profile.tokenize(query)
        if not tokens:
            return None
        scores, pool, _fallback = _seed_pool(catalog, query, tokens)
        targets = [d for d in pool if catalog.entries[d].name == name]
        if not targets:
            return None
        target = min(targets, key=lambda d: (-scores[d], d))
        key = (-scores[target], target)
        return 1 + sum(1 for d in pool if (-scores[d], d) < key)


class GatedBm25Retrieval:
    """G3 retrieval: exact-name-first, the rarest-token gate and the relevance floor, BM25
    order, no fallback (REFERENCE §12)."""

    no_match_note = ("no match: the rarest query token occurs in no tool, or the relevance "
                     "floor was not met")
    not_admitted_note = " (rarest-token gate / relevance floor)"

    def build(self, entries: tuple[CatalogEntry, ...], profile: Profile) -> Catalog:
        return bm25_index(entries, profile)

    def search(self, catalog: Catalog, query: str, limit: int) -> tuple[Hit, ...]:
        if not catalog.entries or limit <= 0:
            return ()
        return _search_gated(catalog, query, limit)

    def rank_of(self, catalog: Catalog, query: str, name: str) -> int | None:
        hits = _search_gated(catalog, query, len(catalog.entries))
        return next((i for i, h in enumerate(hits, 1) if h.name == name), None)


def _seed_pool(catalog: Catalog, query: str, tokens: list[str]
               ) -> tuple[dict[int, float], list[int], bool]:
    """(scores, docs that would be returned, fallback?): positive BM25, else name substring."""
    scores = _scores(catalog, tokens)
    positive = [doc for doc, value in scores.items() if value > 0]
    if positive:
        return scores, positive, False
    needle = query.lower()
    docs = [i for i, e in enumerate(catalog.entries) if needle in e.name.lower()]
    return dict.fromkeys(docs, FALLBACK_SCORE), docs, True


def rarest_token(catalog: Catalog, tokens: list[str]) -> str | None:
    """The query token with the highest idf (first in query order on ties)."""
    best: str | None = None
    best_idf = -math.inf
    n = len(catalog.entries)
    for tok in tokens:
        value = idf(n, catalog.df.get(tok, 0))
        if value > best_idf:
            best, best_idf = tok, value
    return best


_NAMES_KEY = "\x00names"  # memo key; query tokens are [a-z0-9]+, so it cannot collide


def _exact_index(catalog: Catalog) -> dict[str, tuple[int, ...]]:
    """Lower-cased name -> doc indexes; memoised on the catalog."""
    found = catalog.memo.get(_NAMES_KEY)
    if found is None:
        index: dict[str, list[int]] = {}
        for i, entry in enumerate(catalog.entries):
            index.setdefault(entry.name.lower(), []).append(i)
        found = {name: tuple(docs) for name, docs in index.items()}
        catalog.memo[_NAMES_KEY] = found
    return found


def _token_map(catalog: Catalog, tok: str) -> dict[int, float]:
    """doc -> contribution of ``tok`` (a dict view of :func:`_token_contributions`)."""
    key = "\x00map:" + tok
    found = catalog.memo.get(key)
    if found is None:
        found = dict(_token_contributions(catalog, tok))
        catalog.memo[key] = found
    return found


def _search_gated(catalog: Catalog, query: str, limit: int) -> tuple[Hit, ...]:
    exact_name = query.strip().lower()
    exact = set(_exact_index(catalog).get(exact_name, ())) if exact_name else set()
    tokens = catalog.profile.tokenize(query)
    admitted: list[int] = []
    per_token: dict[str, dict[int, float]] = {}
    if tokens:
        gate = rarest_token(catalog, tokens)
        answerable = [t for t in dict.fromkeys(tokens) if catalog.df.get(t, 0) > 0]
        per_token = {t: _token_map(catalog, t) for t in answerable}
        need = 1
        if len(answerable) >= MIN_ANSWERABLE_TERMS_FOR_COVERAGE:
            need = math.ceil(len(answerable) * MIN_QUERY_TERM_COVERAGE)
        for doc, _tf in catalog.postings.get(gate or "", ()):
            if need == 1 or sum(1 for t in answerable if doc in per_token[t]) >= need:
                admitted.append(doc)
    for doc in sorted(exact):
        if doc not in admitted:
            admitted.append(doc)

    def terms_of(doc: int) -> tuple[tuple[str, float], ...]:
        totals: dict[str, float] = {}
        for tok in tokens:
            value = per_token[tok].get(doc) if tok in per_token else None
            totals[tok] = totals.get(tok, 0.0) + (value or 0.0)
        return tuple(totals.items())

    def bm25_of(doc: int) -> float:
        # the same float additions, in query-token order, as ``_scores``
        total = 0.0
        for tok in tokens:
            value = per_token[tok].get(doc) if tok in per_token else None
            if value is not None:
                total += value
        return total

    scores = {doc: math.inf if doc in exact else bm25_of(doc) for doc in admitted}
    return tuple(
        Hit(catalog.entries[d], scores[d], terms_of(d), exact=d in exact)
        for d in _top(scores, admitted, limit)
    )
