"""The bm25f profile's retrieval (SPEC §9, issue 11): fields, identifier splitting, exact +
stem terms, query terms once, stopwords, explainable scores, the profile wiring."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
from reference_impl import fdef

from toolsearch import bm25f, recall
from toolsearch.bm25 import search_catalog
from toolsearch.catalog import build_catalog
from toolsearch.config import ToolSearchConfig
from toolsearch.profiles import PROFILE_NAMES, get_profile

SHARED = Path(__file__).resolve().parents[2].parent / "shared"


def catalog(defs, registry=None):
    return build_catalog(defs, registry or {}, "bm25f")


def search(defs, query, limit=5, registry=None):
    return search_catalog(catalog(defs, registry), query, limit)


def names(hits):
    return [h.name for h in hits]


# --------------------------------------------------------------------------- words


@pytest.mark.parametrize(("text", "expected"), [
    ("get_file_contents", ["get", "file", "contents", "getfilecontents"]),
    ("list-issues", ["list", "issues", "listissues"]),
    ("getFileContents", ["get", "file", "contents", "getfilecontents"]),
    ("HTTPServer", ["http", "server", "httpserver"]),
    ("VMs", ["vm", "vms"]),
    ("plain words here", ["plain", "words", "here"]),
])
def test_identifiers_are_split_and_keep_their_compound(text, expected):
    assert sorted(bm25f.text_words(text)) == sorted(expected)


def test_the_build_splits_identifiers_as_text_words_does():
    """The build's batch identifier splitter gives :func:`text_words` of each unit, word for
    word and in order: camelCase humps, acronyms, digits, separators at either end or
    doubled, acronym plurals, non-ASCII letters, symbols, spaces, empty units and a NUL."""
    import random

    rnd = random.Random(5)
    alphabet = "aAbBzZ09_-sS.ñİ x?"
    cases = ["getFileContents", "HTTPServer2", "get2FA", "get_2fa", "VMs", "get_VMs_list", "ABc",
             "A1b", "_private", "trail_", "a__b", "a-_-b", "Parameter78.Value", "naïve_name", "",
             "123", "x", "ALLCAPS", "Get", "CamelCase-kebab_snake", "a b"]
    for trial in range(400):
        units = cases + ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 14)))
                         for _ in range(rnd.randint(1, 40))]
        if trial % 50 == 0:
            units.append("a\x00b")  # a NUL: every unit the slow way, the same words
        assert bm25f._identifiers_words(units) == [bm25f.text_words(u) for u in units], units


def test_run_on_words_split_into_words_found_elsewhere():
    vocab = {"server", "endpoint", "serve", "point"}
    assert bm25f.split_runon("serverendpoint", vocab) == ("server", "endpoint")
    assert bm25f.split_runon("serverendpoint", {"server"}) == ()
    assert bm25f.split_runon("short", vocab) == ()


@pytest.mark.parametrize("base", [bm25f.RUNON_HASH_BASE, 1, 31])
def test_the_build_splits_run_on_words_as_split_runon_does(monkeypatch, base):
    """The build's batch splitter (hashes propose, lookups check) gives split_runon's splits,
    word for word; with a weak hash (base 1: every anagram collides) its checks and fallback
    must catch the wrong proposals."""
    import random

    monkeypatch.setattr(bm25f, "RUNON_HASH_BASE", base)
    rnd = random.Random(11)
    top = bm25f.MAX_PART
    splits = 0
    for trial in range(150):
        letters = "ab" if trial % 3 == 0 else "abc" if trial % 3 == 1 else "abcdefgh"
        vocab = {"".join(rnd.choice(letters) for _ in range(rnd.randint(1, 9)))
                 for _ in range(rnd.randint(1, 60))}
        if trial % 25 == 0:  # parts at the MAX_PART bound, words past 3 * MAX_PART
            vocab |= {"a" * k for k in range(top - 6, top + 6)} | {"ab" * (top // 2), "x" * 300}
        known = sorted(vocab)
        words = ["".join(rnd.choice(letters) for _ in range(rnd.randint(1, 200 if trial % 25 == 0
                                                                        else 30)))
                 for _ in range(20)]
        words += ["".join(rnd.sample(known, min(k, len(known)))) for k in (2, 3) for _ in range(5)]
        words += ["a" * (2 * top), "a" * (2 * top + 1), "a" * (3 * top), "a" * (3 * top + 1),
                  "x1y2z3ab", "éclairage" + known[0], ""]
        expected = {w: parts for w in words if (parts := bm25f.split_runon(w, vocab))}
        assert bm25f._runon_splits(words, vocab) == expected, (trial, words, vocab)
        splits += len(expected)
    assert splits > 500  # the sets hold splits to find


def test_run_on_parts_and_typos_are_at_most_max_part_letters():
    """A run-on part, and a query word read as a typo, has at most ``MAX_PART`` letters (the
    searches cost the square of a word's length); the bound is exact."""
    top = bm25f.MAX_PART
    parts = ("a" * top, "b" * top, "c" * top)
    vocab = set(parts) | {"d" * (top + 1)}
    assert bm25f.split_runon("".join(parts), vocab) == parts
    assert bm25f.split_runon("a" * top + "d" * (top + 1), vocab) == ()
    assert bm25f.split_runon("d" * (top + 1) + "aaa", vocab | {"aaa"}) == ()
    assert bm25f.split_runon("a" * 3 + "d" * (top + 1), vocab | {"aaa"}) == ()
    assert bm25f.split_runon("a" * 3 + "b" * top, {"aaa", "b" * top}) == ("aaa", "b" * top)
    word = "stringification" * 4  # 60 letters
    defs = [fdef("mcp__a__" + word + "abcd", "A name of 64 letters."),
            fdef("mcp__a__" + word + "abcde", "A name of 65 letters."),
            fdef("mcp__a__other", "Nothing alike.")]
    index = bm25f.index_of(catalog(defs))
    assert ("exact", word + "abcd") in bm25f.query_terms(index, word + "abxd")
    assert ("exact", word + "abcde") not in bm25f.query_terms(index, word + "abxde")
    assert not [t for t in bm25f.query_terms(index, "a" * 100_000) if t[1] in index.vocab_set]


def test_a_query_s_words_are_bounded_and_made_up_words_leave_no_memo():
    """Only the first MAX_MENDED distinct unknown words are read as typos or run-ons, only the
    first MAX_QUERY_WORDS distinct content words are searched, and words the catalog lacks
    leave nothing memoised (a 1 MB query of made-up words took 20 s and left 320,000
    entries)."""
    defs = [fdef("mcp__a__create_invoice", "Create an invoice for a customer."),
            fdef("mcp__a__delete_invoice", "Delete an invoice."),
            fdef("mcp__a__serverendpoint", "Set the endpoint.")]
    index = bm25f.index_of(catalog(defs))
    made_up = [f"zq{i:05d}x" for i in range(bm25f.MAX_MENDED)]
    terms = bm25f.query_terms(index, " ".join(made_up) + " invoce")  # a typo, 65th unknown
    assert ("exact", "invoice") not in terms
    terms = bm25f.query_terms(index, " ".join(made_up[1:]) + " invoce")  # now the 64th
    assert ("exact", "invoice") in terms
    many = [f"w{i}" for i in range(bm25f.MAX_QUERY_WORDS)]
    terms = bm25f.query_terms(index, " ".join(many + many) + " invoice")
    assert ("exact", "w0") in terms and ("exact", many[-1]) in terms
    assert ("exact", "invoice") not in terms  # the 4,097th distinct word
    bm25f.search(index, "create invoice", 5)
    before = sum(len(v) if isinstance(v, dict) else 1 for v in index.memo.values())
    hits = bm25f.search(index, "invoice " + " ".join(f"made{i}up" for i in range(20_000)), 5)
    assert hits and hits[0].name.endswith("invoice")
    after = sum(len(v) if isinstance(v, dict) else 1 for v in index.memo.values())
    assert after - before <= bm25f.MAX_MENDED + 20


def test_a_run_on_parameter_name_is_found_by_its_words():
    defs = [fdef("mcp__x__configure", "Configure the thing.",
                 {"serverendpoint": {"type": "string"}}),
            fdef("mcp__x__ping", "Ping a server at an endpoint.")]
    hits = search(defs, "serverendpoint")
    assert names(hits)[0] == "mcp__x__configure"
    index = bm25f.index_of(catalog(defs))
    doc = names(hits).index("mcp__x__configure")
    assert index.counts[doc][bm25f.PARAMS]["server"] == 1


# --------------------------------------------------------------------------- terms


def test_exact_and_stem_terms_exact_scores_more():
    defs = [fdef("mcp__a__one", "Creating reports for teams."),
            fdef("mcp__a__two", "Create reports for teams.")]
    hits = search(defs, "create")
    assert names(hits) == ["mcp__a__two", "mcp__a__one"]  # the stem class finds "creating"
    terms = dict(hits[0].terms)
    assert terms["create"] > 0 and terms["creat~"] > 0
    assert dict(hits[1].terms)["create"] == 0 and dict(hits[1].terms)["creat~"] > 0


def test_query_terms_count_once_and_stopwords_are_dropped(worked_defs, worked_registry):
    once = search(worked_defs, "github issue", registry=worked_registry)
    twice = search(worked_defs, "the github GITHUB issue of a", 2, registry=worked_registry)
    assert len(once) == 2  # the calendar tool has neither word...
    assert [(h.name, h.score) for h in once] == [(h.name, h.score) for h in twice]
    filled = search(worked_defs, "the github GITHUB issue of a", registry=worked_registry)
    assert filled[2].name == "mcp__calendar__create_event"  # ...but "a": a stopword fill


def test_every_hit_explains_its_score_per_term_and_per_field(worked_defs, worked_registry):
    hits = search(worked_defs, "create github issue", registry=worked_registry)
    assert hits
    for hit in hits:
        assert math.isclose(sum(v for _t, v in hit.terms), hit.score, rel_tol=1e-9)
        assert math.isclose(sum(v for _f, _t, v in hit.fields), hit.score, rel_tol=1e-9)
        assert {f for f, _t, _v in hit.fields} <= set(bm25f.FIELDS)
    first = hits[0]
    assert ("label", "github") in {(f, t) for f, t, _v in first.fields}



def test_a_hit_is_explained_only_when_read_and_then_as_if_at_once(worked_defs, worked_registry):
    """tool_search replies never read the explanation: it is worked out on first read, for the
    same values an explanation made at search time has."""
    cat = catalog(worked_defs, worked_registry)
    index = bm25f.index_of(cat)
    hits = bm25f.search(index, "create github issue a", 8)
    assert hits and all("_explained" not in vars(h) for h in hits)
    terms = bm25f.query_terms(index, "create github issue a")
    compared = 0
    for hit in hits:
        fresh = bm25f.explain(index, hit.doc, terms)
        if hit.terms[:len(fresh[0])] == fresh[0]:  # a content hit (a fill is rescaled)
            assert hit.fields == fresh[1]
            compared += 1
        assert "_explained" in vars(hit)
    assert compared >= 2
    wrapped = search_catalog(cat, "create github issue", 5)
    assert wrapped[0].terms == bm25f.search(index, "create github issue", 5)[0].terms

def test_the_name_weighs_more_than_the_description():
    defs = [fdef("mcp__a__weather", "Returns data."), fdef("mcp__a__data", "Returns weather.")]
    assert names(search(defs, "weather")) == ["mcp__a__weather", "mcp__a__data"]
    flat = dataclasses.replace(  # every field 1x, the summary (a second description) off
        bm25f.DEFAULT_PARAMS, weights=tuple(float(f != bm25f.SUMMARY) for f in range(6)),
        b=(0.0,) * len(bm25f.FIELDS))
    index = bm25f.index_of(catalog(defs))
    scores = {h.name: h.score for h in bm25f.search(index, "weather", 5, flat)}
    assert scores["mcp__a__weather"] == pytest.approx(scores["mcp__a__data"])


def test_a_stopword_in_a_name_does_not_lengthen_it():
    """``dns a list`` must reach ``dns_a_list`` among templated ``dns_*_list`` tools: the query
    drops ``a``, so counting it in the name's length ranked that tool below all the others
    (bench reach on the cloudflare-scale sample: 11 tools unreachable)."""
    defs = [fdef(f"mcp__cf__dns_{kind}_list", f"List DNS {kind} of a zone.")
            for kind in ("records", "aaaa", "cname", "mx", "txt", "a", "caa", "ns")]
    hits = search(defs, "dns a list", 8)
    assert names(hits)[0] == "mcp__cf__dns_a_list"
    assert hits[0].score > hits[1].score
    index = bm25f.index_of(catalog(defs))
    assert bm25f.rank_of(index, "dns a list", "mcp__cf__dns_a_list") == 1


def test_parameter_descriptions_are_indexed_at_a_lower_weight():
    defs = [fdef("mcp__a__one", "Does one thing.",
                 {"q": {"type": "string", "description": "A timezone name."}}),
            fdef("mcp__a__two", "Converts a timezone.")]
    hits = search(defs, "timezone")
    assert names(hits) == ["mcp__a__two", "mcp__a__one"]
    assert {f for f, _t, _v in hits[1].fields} == {"param_desc"}
    assert {f for f, _t, _v in hits[0].fields} == {"description", "summary"}


def test_only_stopwords_fill_a_short_result_below_the_content_hits():
    defs = [fdef("mcp__a__play", "Play music on the speaker."),
            fdef("mcp__a__time", "Current time in a city."),
            fdef("mcp__a__jazz", "Jazz radio.")]
    hits = search(defs, "put on some jazz in the kitchen")
    assert names(hits)[0] == "mcp__a__jazz"
    assert set(names(hits)) == {"mcp__a__jazz", "mcp__a__play", "mcp__a__time"}
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert any("(stopword)" in t for t, v in hits[1].terms if v)


def test_a_misspelt_word_the_catalog_lacks_matches_the_word_one_edit_away():
    defs = [fdef("mcp__a__take_screenshot", "Capture the page as an image."),
            fdef("mcp__a__click", "Click an element."),
            fdef("mcp__a__extension_list", "List extensions.")]
    hits = search(defs, "screenshoot")
    assert names(hits) == ["mcp__a__take_screenshot"]
    assert [t for t, v in hits[0].terms if v] == ["screenshot", "screenshot~"]
    index = bm25f.index_of(catalog(defs))
    assert ("exact", "screenshot") in bm25f.query_terms(index, "take screenshoot")
    # a word whose stem the catalog holds, a short word and a known word are left alone
    assert bm25f.query_terms(index, "clicking") == (("exact", "clicking"), ("stem", "click"))
    assert bm25f.query_terms(index, "clik") == (("exact", "clik"), ("stem", "clik"))
    assert bm25f.query_terms(index, "click") == (("exact", "click"), ("stem", "click"))


def _every_edit(word):
    """Every string one deletion, adjacent transposition, or ``a``-``z`` substitution or
    insertion away from ``word`` (the plain way: generate them all)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {head + c + tail for head, tail in splits for c in letters}
    out |= {head + c + tail[1:] for head, tail in splits if tail for c in letters}
    out |= {head + tail[1:] for head, tail in splits if tail}
    out |= {head + tail[1] + tail[0] + tail[2:] for head, tail in splits if len(tail) > 1}
    return out - {word}


def test_the_words_one_edit_away_are_every_edit_the_catalog_holds():
    """``_near_words`` finds substitutions and insertions by bisection: the same words as
    generating every edit, for every word of the shared prompts and our query sets that the
    real catalogs lack, and for hand-picked edges (an edit at either end, a doubled letter)."""
    real = SHARED / "catalogs" / "real"
    if not real.is_dir():
        pytest.skip("shared catalogs not present")
    from toolsearch.sources.catalog_file import load_dump_dir

    index = bm25f.build_index(recall.search_catalog_for(load_dump_dir(real), "seed").entries)
    files = [*sorted((SHARED / "recall").glob("*.jsonl")),
             *sorted((Path(__file__).resolve().parents[2] / "queries").glob("*.jsonl"))]
    words = {w for f in files for q in recall.load_queries(f) for w in bm25f.text_words(q.text)
             if len(w) >= bm25f.MIN_TYPO and w.isalpha() and w.isascii()
             and w not in index.vocab_set}
    words |= {"xcreate", "createx", "ceate", "craete", "creatte", "reate", "creat", "crate"}
    assert len(words) > 500
    found = 0
    for word in sorted(words):
        near = bm25f._near_words(index, word)
        assert near == _every_edit(word) & index.vocab_set, word
        found += bool(near)
    assert found > 100


def test_a_tool_verb_also_matches_its_synonyms_where_the_word_itself_is_not():
    defs = [fdef("mcp__t__delete_task", "Delete a task from a request."),
            fdef("mcp__t__request_planning", "Plan the tasks of a new request."),
            fdef("mcp__t__remove_tag", "Remove a tag from a task: delete it for good."),
            fdef("mcp__t__list_tasks", "List the tasks.")]
    hits = search(defs, "remove task")
    assert names(hits)[:2] == ["mcp__t__remove_tag", "mcp__t__delete_task"]
    assert [t for t, v in hits[1].terms if v] == ["task", "task~", "delete (synonym)"]
    # a tool holding the query word gets no synonym credit on top of it
    assert all(v == 0 for t, v in hits[0].terms if "(synonym)" in t)
    index = bm25f.index_of(catalog(defs))
    terms = bm25f.query_terms(index, "removing tasks")
    assert [t for t in terms if t[0].startswith("syn")] == [("syn removing", "delete")]
    assert bm25f.query_terms(index, "delete deleting")[-1:] == (("syn delete deleting", "remove"),)
    # a synonym the catalog lacks (enumerate) adds no term
    assert bm25f.query_terms(index, "list listing") == (
        ("exact", "list"), ("stem", "list"), ("exact", "listing"))
    # weight 0 turns the expansion off: delete_task then scores for "task" only
    off = dataclasses.replace(bm25f.DEFAULT_PARAMS, synonym_weight=0.0)
    plain = {h.name: h for h in bm25f.search(index, "remove task", 5, off)}
    assert all(v == 0 for h in plain.values() for t, v in h.terms if "(synonym)" in t)
    synonym = dict(hits[1].terms)["delete (synonym)"]
    assert synonym > 0
    assert math.isclose(hits[1].score, plain["mcp__t__delete_task"].score + synonym)


def test_no_word_at_all_falls_back_to_the_name_substring(worked_defs, worked_registry):
    hits = search(worked_defs, "calend", registry=worked_registry)
    assert [(h.name, h.score, h.fallback) for h in hits] == [
        ("mcp__calendar__create_event", 0.1, True)]
    assert search(worked_defs, "!!!", registry=worked_registry) == ()


def test_rank_of_agrees_with_search(worked_defs, worked_registry):
    cat = catalog(worked_defs, worked_registry)
    retrieval = get_profile("bm25f").retrieval
    for query in ("github issue", "create", "event calendar", "the issue of a", "in a the"):
        hits = search_catalog(cat, query, 10)
        assert hits
        for position, hit in enumerate(hits, 1):
            assert retrieval.rank_of(cat, query, hit.name) == position


# --------------------------------------------------------------------------- the profile


def test_the_profile_is_registered_and_keeps_the_seed_disclosure():
    assert "bm25f" in PROFILE_NAMES
    ours, seed = get_profile("bm25f"), get_profile("seed")
    assert ours.core_tools == seed.core_tools
    assert ours.search_base == seed.search_base
    assert ours.has_defer_list is seed.has_defer_list
    assert ToolSearchConfig.from_raw({}, profile="bm25f").profile is ours


def test_the_index_is_cached_on_content(worked_defs, worked_registry):
    first = catalog(worked_defs, worked_registry)
    again = catalog([dict(d) for d in worked_defs], dict(worked_registry))
    assert bm25f.index_of(first) is bm25f.index_of(again)
    changed = [*worked_defs, fdef("mcp__github__close_issue", "Close an issue.")]
    assert bm25f.index_of(catalog(changed, worked_registry)) is not bm25f.index_of(first)


def test_parameters_change_memos_never_the_index(worked_defs, worked_registry):
    index = bm25f.index_of(catalog(worked_defs, worked_registry))
    other = dataclasses.replace(bm25f.DEFAULT_PARAMS, k1=0.5)
    a = bm25f.search(index, "github issue", 5)
    b = bm25f.search(index, "github issue", 5, other)
    assert bm25f.index_of(catalog(worked_defs, worked_registry)) is index
    assert [h.score for h in a] != [h.score for h in b]


# --------------------------------------------------------------------------- real sets


def test_terms_worked_out_together_equal_terms_worked_out_one_at_a_time():
    """A query's new terms are derived in one batch (``_batch_values``) or, below
    ``BATCH_MIN`` of them, one by one: both give the same docs, floats and document
    frequencies, for exact terms, stem classes of several words and synonyms."""
    path = SHARED / "catalogs" / "real" / "azure-mcp.json"
    qfile = SHARED / "recall" / "livemcpbench.jsonl"
    if not (path.exists() and qfile.exists()):
        pytest.skip("shared catalog / prompts not present")
    from toolsearch.sources.catalog_file import load_real_dump

    entries = recall.search_catalog_for(load_real_dump(path), "seed").entries
    together, alone = bm25f.build_index(entries), bm25f.build_index(entries)
    # query_terms relies on it: an indexed word is held by one doc at least
    assert min(map(together.df, together.vocab)) >= 1
    queries = [q.text for q in recall.load_queries(qfile)][:40]
    params = bm25f.DEFAULT_PARAMS
    batched = several = 0
    for query in queries:
        terms = bm25f.query_terms(together, query)
        memo = together.memo_for(params)
        new = [t for t in terms if ("vec", t) not in memo]
        batched += len(new) >= bm25f.BATCH_MIN
        several += sum(len(bm25f.term_words(together, t)) > 1 for t in new)
        a = bm25f.scores(together, query)
        for term in terms:  # one at a time, each derived on its own
            db, vb = bm25f._vec(alone, term, params)
            da, va = bm25f._vec(together, term, params)
            assert da.tolist() == db.tolist() and va.tolist() == vb.tolist(), term
        assert a == bm25f.scores(alone, query)
    assert batched >= 10 and several  # the batch ran, stem classes of several words included


def test_the_first_query_works_out_the_table_whatever_its_words(worked_defs, worked_registry):
    """A warm-up search (the gateway runs one when it assembles) leaves nothing for the first
    client's query to derive, even when none of its words is in the catalog."""
    index = bm25f.build_index(catalog(worked_defs, worked_registry).entries)
    memo = index.memo_for(bm25f.DEFAULT_PARAMS)
    assert "x table" not in memo
    assert bm25f.search(index, "zzqx wqvv", 5) == ()
    assert "x table" in memo and "stem classes" in index.memo


def test_the_table_of_every_word_equals_each_word_group_worked_out_alone():
    """``_x_table`` works out every indexed word and every stem class of several words in one
    pass: each group's docs, ``x`` floats and df are those of the group worked out on its own
    (a batch of one), and a group outside the table (no term asks for one) is worked out when
    asked for."""
    path = SHARED / "catalogs" / "real" / "azure-mcp.json"
    if not path.exists():
        pytest.skip("shared catalog not present")
    from toolsearch.sources.catalog_file import load_real_dump

    index = bm25f.build_index(recall.search_catalog_for(load_real_dump(path), "seed").entries)
    params = bm25f.DEFAULT_PARAMS
    memo = index.memo_for(params)
    table = bm25f._x_table(index, params, memo)
    classes = [ws for ws in bm25f._stem_classes(index).values() if len(ws) > 1]
    assert len(table.group) == len(index.vocab) + len(classes) and classes
    groups = [*classes[::7], *((w,) for w in index.vocab[::13])]
    groups.append(("list", "get"))  # no stem class: not in the table
    for words in groups:
        docs, x, df = bm25f._x_and_df(index, words, params, memo)
        one = bm25f._x_arrays(index, (words,), params, {}).part(0)
        assert (docs.tolist(), x.tolist(), df) == (one[0].tolist(), one[1].tolist(), one[2])
        held = set().union(*(index.docs_with(w) for w in words))
        assert df == len(held) and set(docs.tolist()) <= held
    assert ("list", "get") not in table.group


def test_beats_seed_on_the_shared_azure_prompts_over_their_catalog():
    path = SHARED / "catalogs" / "real" / "azure-mcp.json"
    qfile = SHARED / "recall" / "azure-mcp.jsonl"
    if not (path.exists() and qfile.exists()):
        pytest.skip("shared azure catalog / prompts not present")
    from toolsearch.sources.catalog_file import load_real_dump

    ws = load_real_dump(path)
    queries = recall.load_queries(qfile)
    ours = recall.run_recall(ws, queries, "bm25f")
    seed = recall.run_recall(ws, queries, "seed")
    assert ours.n == seed.n == len(queries)
    assert ours.recall_at_5 >= seed.recall_at_5
    assert ours.mrr > seed.mrr


def test_the_c_stemmer_and_the_pure_python_one_give_the_same_stems():
    """PyStemmer only makes stemming faster: the pure-Python Snowball (what runs without it)
    stems every word of the real catalogs the same way."""
    stemmer = pytest.importorskip("Stemmer")
    from snowballstemmer import english_stemmer

    real = SHARED / "catalogs" / "real"
    if real.is_dir():
        from toolsearch.sources.catalog_file import load_dump_dir

        words = bm25f.build_index(recall.search_catalog_for(load_dump_dir(real), "seed").entries
                                  ).vocab
    else:
        words = ["creating", "copies", "running", "generously", "skies", "dying", "news", "vms"]
    c_stems = stemmer.Stemmer("english").stemWords(words)
    py = english_stemmer.EnglishStemmer()
    assert c_stems == [py.stemWord(w) for w in words]



def test_a_parameter_name_that_is_no_string_is_read_as_its_str():
    """Frozen defs' parameter names are strings; an entry whose schema is a plain mapping may
    hold another key, read as its ``str`` (as ``def_parameters`` callers expect)."""

    @dataclasses.dataclass
    class Entry:
        name: str
        description: str
        schema: dict
        source_name: str = ""

    index = bm25f.build_index([Entry("mcp__s__t", "x", {"function": {"parameters": {
        "properties": {7: {"description": "seven"}, "name": {}}}}})])
    assert dict(index.counts[0][bm25f.PARAMS]) == {"7": 1, "name": 1}
    assert dict(index.counts[0][bm25f.PARAM_DESC]) == {"seven": 1}
