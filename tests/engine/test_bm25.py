"""REFERENCE §5 (G1): BM25 with k1 1.5 / b 0.75, the 0.1 substring fallback, ordering."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_impl import (
    fdef,
    load_real_catalogs,
    ref_documents,
    ref_search,
)

from toolsearch import bm25
from toolsearch.bm25 import FALLBACK_SCORE, K1, B, idf, search_catalog
from toolsearch.catalog import build_catalog


def search(defs, query, limit=5, registry=None):
    return search_catalog(build_catalog(defs, registry or {}), query, limit)


def as_triples(hits):
    return [(h.name, h.score, h.fallback) for h in hits]


def test_constants():
    assert (K1, B, FALLBACK_SCORE) == (1.5, 0.75, 0.1)


@pytest.mark.parametrize(("n", "df"), [(1, 1), (3, 1), (3, 3), (10, 0), (100, 99)])
def test_idf_uses_the_one_plus_form_and_is_always_positive(n, df):
    assert idf(n, df) == math.log(1 + (n - df + 0.5) / (df + 0.5))
    assert idf(n, df) > 0


# --------------------------------------------------------------------------- worked examples


def test_calend_hits_only_the_calendar_tool_via_the_fallback(worked_defs, worked_registry):
    hits = search(worked_defs, "calend", registry=worked_registry)
    assert as_triples(hits) == [("mcp__calendar__create_event", 0.1, True)]


def test_unknown_words_are_ignored(worked_defs, worked_registry):
    hits = search(worked_defs, "zzz github", registry=worked_registry)
    assert {h.name for h in hits} == {"mcp__github__create_issue", "mcp__github__list_issues"}
    assert not any(h.fallback for h in hits)
    assert all(h.score > 0 for h in hits)


def test_no_tokens_means_no_results_and_no_fallback(worked_defs, worked_registry):
    assert search(worked_defs, "!!!", registry=worked_registry) == ()
    # even when the raw query is a substring of a name, "__" has no tokens: no fallback
    assert search(worked_defs, "__", registry=worked_registry) == ()
    assert search(worked_defs, "", registry=worked_registry) == ()
    assert search(worked_defs, "   ", registry=worked_registry) == ()


def test_length_normalisation_ranks_the_shorter_calendar_doc_first(worked_defs, worked_registry):
    hits = search(worked_defs, "create", registry=worked_registry)
    assert [h.name for h in hits] == ["mcp__calendar__create_event", "mcp__github__create_issue"]
    assert hits[0].score > hits[1].score


def test_duplicates_in_the_query_count_again(worked_defs):
    once = {h.name: h.score for h in search(worked_defs, "create")}
    twice = {h.name: h.score for h in search(worked_defs, "create create")}
    assert set(once) == set(twice)
    for name in once:
        assert twice[name] == pytest.approx(2 * once[name])
    thrice = search(worked_defs, "create Create CREATE")
    assert thrice[0].terms == (("create", pytest.approx(3 * once[thrice[0].name])),)


@pytest.mark.parametrize("limit", [0, -1, -100])
def test_non_positive_limit_returns_nothing(worked_defs, limit):
    assert search(worked_defs, "github", limit=limit) == ()
    assert search(worked_defs, "calend", limit=limit) == ()


def test_limit_cuts_after_sorting(worked_defs):
    hits = search(worked_defs, "github create", limit=1)
    assert len(hits) == 1
    assert hits[0].name == search(worked_defs, "github create", limit=5)[0].name


def test_empty_catalog_returns_nothing():
    assert search([], "anything") == ()


def test_ties_keep_catalog_order():
    defs = [fdef(f"tool_{c}", "same words here") for c in "dcab"]
    hits = search(defs, "words")
    assert [h.name for h in hits] == ["tool_d", "tool_c", "tool_a", "tool_b"]
    assert len({h.score for h in hits}) == 1


def test_fallback_keeps_catalog_order_and_flat_score():
    defs = [fdef("zeta_calendar_x"), fdef("other"), fdef("alpha_Calendar_y"), fdef("calendar")]
    hits = search(defs, "CALEND")
    assert [h.name for h in hits] == ["zeta_calendar_x", "alpha_Calendar_y", "calendar"]
    assert all(h.score == FALLBACK_SCORE and h.fallback for h in hits)
    assert [h.name for h in search(defs, "CALEND", limit=2)] == ["zeta_calendar_x",
                                                                  "alpha_Calendar_y"]


def test_fallback_uses_the_raw_lower_cased_query_not_stripped_or_tokenised():
    defs = [fdef("xxyy_zz")]  # tokens: xxyy, zz
    # query tokens xyy and z occur in no document: BM25 has nothing, the raw substring hits
    assert as_triples(search(defs, "xyy_z")) == [("xxyy_zz", 0.1, True)]
    assert as_triples(search(defs, "XYY_Z")) == [("xxyy_zz", 0.1, True)]
    # the raw query is not stripped: a leading space is part of the needle
    assert search(defs, " xyy_z") == ()
    # nor tokenised: "xyy z" (space) is not a substring of the name
    assert search(defs, "xyy z") == ()


def test_fallback_not_used_when_bm25_has_a_hit():
    defs = [fdef("alpha_thing", "beta"), fdef("beta_x", "alpha")]
    hits = search(defs, "alpha")
    assert not any(h.fallback for h in hits)
    assert {h.name for h in hits} == {"alpha_thing", "beta_x"}


def test_every_document_containing_a_token_still_scores():
    # idf uses the 1 + form, so a token in every doc still scores > 0 (no zero-idf collapse)
    defs = [fdef("mcp__github__a"), fdef("mcp__github__b"), fdef("mcp__github__c")]
    hits = search(defs, "github")
    assert len(hits) == 3 and all(h.score > 0 and not h.fallback for h in hits)


def test_nameless_defs_are_not_searchable():
    assert search([fdef(None, "github tool")], "github") == ()


# --------------------------------------------------------------------------- contributions


def test_contributions_sum_to_the_score(worked_defs):
    for query in ("create github issue", "zzz github", "repo repo owner title", "create"):
        for hit in search(worked_defs, query):
            assert math.fsum(v for _, v in hit.terms) == pytest.approx(hit.score, rel=1e-12)
            assert [t for t, _ in hit.terms] == list(dict.fromkeys(query.lower().split()))


def test_contributions_name_each_distinct_token_once_and_unknown_words_score_zero(worked_defs):
    hit = search(worked_defs, "zzz github zzz")[0]
    assert [t for t, _ in hit.terms] == ["zzz", "github"]
    assert hit.terms_dict()["zzz"] == 0.0
    assert hit.terms_dict()["github"] == hit.score


def test_single_token_contribution_is_the_exact_bm25_term():
    defs = [fdef("a", "x x y"), fdef("b", "y z")]
    # docs: "a x x y" (4), "b y z" (3); avgdl 3.5; df(x)=1, N=2
    hit = search(defs, "x")[0]
    expected = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5)) * 2 * 2.5 / (
        2 + 1.5 * (1 - 0.75 + 0.75 * 4 / 3.5))
    assert hit.name == "a"
    assert hit.score == pytest.approx(expected, rel=1e-15)


def test_fallback_hits_carry_zero_contributions():
    hit = search([fdef("calendar")], "calend")[0]
    assert hit.fallback and hit.terms == (("calend", 0.0),)


def test_hits_are_immutable_tuples(worked_defs):
    hits = search(worked_defs, "github")
    assert isinstance(hits, tuple) and isinstance(hits[0].terms, tuple)


# --------------------------------------------------------------------------- vs the reference

WORDS = ["github", "issue", "create", "list", "calendar", "event", "repo", "file", "read",
         "write", "search", "x", "a", "Send", "MESSAGE", "slack", "db", "query", "zzz"]
WORD = st.sampled_from(WORDS)
NAME = st.lists(WORD, min_size=1, max_size=3).map(lambda ws: "_".join(w.lower() for w in ws))
DESCRIPTION = st.one_of(
    st.lists(WORD, max_size=10).map(" ".join),
    st.text(max_size=25),
    st.none(),
)
PARAMS = st.lists(WORD, max_size=4, unique=True)


@st.composite
def catalogs(draw):
    count = draw(st.integers(min_value=0, max_value=9))
    defs = []
    for i in range(count):
        name = draw(st.one_of(NAME, st.just(""))) or ("" if draw(st.booleans()) else f"t{i}")
        defs.append(fdef(name, draw(DESCRIPTION), {p: {"type": "string"} for p in draw(PARAMS)}))
    return defs


QUERY = st.one_of(
    st.lists(WORD, max_size=5).map(" ".join),
    st.text(max_size=12),
    st.sampled_from(["calend", "git", "_", "create_", "!!!", "ISSUE issue", "hub"]),
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(catalogs(), QUERY, st.integers(min_value=-2, max_value=12))
def test_search_is_identical_to_the_slow_reference(defs, query, limit):
    got = as_triples(search(defs, query, limit))
    assert got == ref_search(defs, query, limit)  # names, exact floats, order, fallback


REAL_QUERIES = [
    "create github issue", "list pull requests", "search code", "read file", "write file",
    "query database", "sql", "send slack message", "post message channel", "scrape url",
    "crawl website", "take screenshot", "click element", "navigate page", "calendar event",
    "create jira ticket", "confluence page", "search arxiv papers", "download paper",
    "cloudwatch logs", "metrics alarm", "kubernetes pods", "docker container", "git commit",
    "git diff", "branch", "fetch", "memory", "knowledge graph entities", "chart bar",
    "generate image", "figma design", "lint javascript", "run tests", "deploy worker",
    "dns records", "azure storage", "s3 bucket", "vector collection", "embeddings",
    "time zone convert", "weather", "email", "zzz qqq", "calend", "a", "the", "issue issue",
    "!!!", "get_file_contents",
]


def test_real_catalog_matches_the_reference_for_many_queries():
    defs, registry = load_real_catalogs()
    catalog = build_catalog(defs, registry)
    assert len(catalog) == len(defs)
    docs = ref_documents(defs)
    for query in REAL_QUERIES:
        expected = ref_search(defs, query, len(defs), docs=docs)
        for limit in (5, 50, len(defs)):
            got = as_triples(search_catalog(catalog, query, limit))
            assert got == expected[:limit], query


def test_real_catalog_sources_are_mcp():
    defs, registry = load_real_catalogs()
    catalog = build_catalog(defs, registry)
    assert {e.source for e in catalog} == {"mcp"}
    assert all(e.source_name == registry[e.name] for e in catalog)


# --------------------------------------------------------------------------- rank_of

_WORDS = st.sampled_from(["create", "issue", "github", "list", "event", "calendar", "post",
                          "message", "zzz", "cal", "mcp"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    docs=st.lists(st.tuples(st.lists(_WORDS, min_size=1, max_size=3),
                            st.lists(_WORDS, max_size=6)), min_size=1, max_size=12),
    query=st.lists(_WORDS, min_size=1, max_size=4).map(" ".join),
    profile=st.sampled_from(["seed", "latest"]),
)
def test_rank_of_is_the_position_in_an_unlimited_search(docs, query, profile):
    from toolsearch.bm25 import rank_of

    defs = [fdef(f"mcp__s__{'_'.join(name)}_{i}", " ".join(desc)) for i, (name, desc)
            in enumerate(docs)]
    catalog = build_catalog(defs, {}, profile)
    hits = search_catalog(catalog, query, len(defs))
    for entry in catalog.entries:
        position = next((i for i, h in enumerate(hits, 1) if h.name == entry.name), None)
        assert rank_of(catalog, query, entry.name) == position


LONG_QUERY = st.lists(WORD, min_size=bm25.LONG_QUERY + 1, max_size=bm25.LONG_QUERY + 80).map(
    " ".join)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(catalogs(), LONG_QUERY, st.integers(min_value=1, max_value=12))
def test_a_long_query_scores_in_numpy_exactly_as_the_reference(defs, query, limit):
    """Past LONG_QUERY tokens the scores are added in numpy: the same floats, hits and order
    as the plain per-document reference (repeated tokens count again)."""
    assert len(query.split()) > bm25.LONG_QUERY
    assert as_triples(search(defs, query, limit)) == ref_search(defs, query, limit)


def test_a_pasted_document_as_query_matches_the_reference_on_the_real_catalog():
    defs, registry = load_real_catalogs()
    catalog = build_catalog(defs, registry)
    docs = ref_documents(defs)
    pasted = " ".join(REAL_QUERIES) * 4 + " " + " ".join(
        e.description or "" for e in catalog.entries[:40])
    assert len(catalog.profile.tokenize(pasted)) > 4 * bm25.LONG_QUERY
    expected = ref_search(defs, pasted, len(defs), docs=docs)
    for limit in (5, 50, len(defs)):
        assert as_triples(search_catalog(catalog, pasted, limit)) == expected[:limit]
