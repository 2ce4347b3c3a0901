"""Recall / reach benchmark engine: query formats, hand-computed metrics, reach reasons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolsearch import recall
from toolsearch.recall import Query, format_reach, format_recall, load_queries, parse_queries
from toolsearch.session import SessionState
from toolsearch.sources.catalog_file import load_catalog_file, load_dump_dir, load_real_dump
from toolsearch.tooldefs import make_def

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"

TINY = [
    make_def("mcp__a__create_issue", "Create an issue."),
    make_def("mcp__a__list_issues", "List issues."),
    make_def("mcp__b__send_message", "Send a message."),
    make_def("mcp__b__read_message", "Read messages."),
]
TINY_REG = {"mcp__a__create_issue": "mcp-a", "mcp__a__list_issues": "mcp-a",
            "mcp__b__send_message": "mcp-b", "mcp__b__read_message": "mcp-b"}


def q(text: str, *gold: str, kind: str = "") -> Query:
    return Query(text, tuple((g,) for g in gold), kind=kind)


# --------------------------------------------------------------------------- formats


def test_parse_all_formats():
    lines = [
        "# a comment",
        "",
        json.dumps({"query": "a", "gold": ["mcp__x__t"]}),
        json.dumps({"query": "b", "gold": "mcp__x__t"}),
        json.dumps({"query": "c", "gold_tools": ["t1", "t2"], "server": "azure-mcp"}),
        json.dumps({"query": "d", "gold_tools": ["t"], "server": ["S One", "S Two"]}),
        json.dumps({"query": "e", "gold_tools": ["x"], "server": ["Ignored"],
                    "gold_qualified_any_of": [["Trends Hub/get-rank"],
                                              ["A B/tool", "C.D/tool"]]}),
        json.dumps({"query": "f", "gold": ["n"], "kind": "plain"}),
    ]
    parsed = parse_queries(lines)
    assert [p.text for p in parsed] == list("abcdef")
    assert parsed[0].gold == (("mcp__x__t",),) and parsed[0].line == 3
    assert parsed[1].gold == (("mcp__x__t",),)
    assert parsed[2].gold == (("mcp__azure-mcp__t1",), ("mcp__azure-mcp__t2",))
    assert parsed[3].gold == (("mcp__S_One__t", "mcp__S_Two__t"),)
    assert parsed[4].gold == (("mcp__Trends_Hub__get-rank",),
                              ("mcp__A_B__tool", "mcp__C_D__tool"))
    assert parsed[5].kind == "plain" and parsed[4].kind == ""
    assert parsed[4].gold_names == ("mcp__Trends_Hub__get-rank", "mcp__A_B__tool",
                                    "mcp__C_D__tool")


@pytest.mark.parametrize(("line", "message"), [
    ("{bad json", "q.jsonl:1: "),
    ("[1, 2]", "q.jsonl:1: not a JSON object"),
    ('{"gold": ["x"]}', "q.jsonl:1: no 'query'"),
    ('{"query": "x"}', "q.jsonl:1: no 'gold'"),
])
def test_parse_errors_name_the_line(line, message):
    with pytest.raises(ValueError, match=message.replace("'", ".")):
        parse_queries([line], "q.jsonl")


def test_load_queries_file(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"query": "create issue", "gold": ["mcp__a__create_issue"]}\n',
                    encoding="utf-8")
    assert load_queries(path)[0].text == "create issue"


# --------------------------------------------------------------------------- metrics


def test_hand_computed_metrics():
    queries = [
        q("create issue", "mcp__a__create_issue"),  # rank 1
        q("message", "mcp__b__read_message"),  # send_message (tf 2) ranks above: rank 2
        q("zebra", "mcp__a__list_issues"),  # nothing comes back: miss
        q("issue", "mcp__a__create_issue", "mcp__b__send_message"),  # 1 of 2 gold, rank 1
        q("anything", "mcp__zzz__nope"),  # gold names no tool: skipped, reported
    ]
    report = recall.run_recall((TINY, TINY_REG), queries, "seed")
    assert report.n == 4 and report.skipped == 1
    assert report.recall_at_1 == pytest.approx(2 / 4)
    assert report.recall_at_5 == pytest.approx(3 / 4)
    assert report.mrr == pytest.approx((1 + 1 / 2 + 0 + 1) / 4)
    assert report.gold_found_at_5 == pytest.approx((1 + 1 + 0 + 1 / 2) / 4)
    assert report.unresolved == (("anything", "mcp__zzz__nope"),)
    assert [m.query for m in report.misses] == ["zebra"]
    assert report.misses[0].returned == ()
    data = report.as_json()
    assert {"recall_at_1", "recall_at_5", "mrr", "n", "misses"} <= set(data)
    assert data["misses"] == [{"query": "zebra", "gold": ["mcp__a__list_issues"],
                               "returned": []}]
    text = format_recall(report)
    assert "recall@1        0.500" in text and "MRR@5           0.625" in text
    assert "mcp__zzz__nope" in text


def test_a_tick_that_says_stop_ends_the_run_with_the_queries_done():
    queries = [q("create issue", "mcp__a__create_issue")] * 10
    seen: list[int] = []

    def tick(done: int) -> bool:
        seen.append(done)
        return done < 4

    report = recall.run_recall((TINY, TINY_REG), queries, "seed", tick=tick)
    assert seen == [1, 2, 3, 4] and report.n == 4
    assert recall.run_recall((TINY, TINY_REG), queries, "seed", tick=lambda n: True).n == 10


def test_any_of_slot_and_kinds():
    queries = [
        Query("send message", (("mcp__nope__x", "mcp__b__send_message"),), kind="keywords"),
        q("zebra", "mcp__a__list_issues", kind="plain"),
    ]
    report = recall.run_recall((TINY, TINY_REG), queries, "latest")
    assert report.unresolved == ()  # one spelling of the slot exists: resolved
    kinds = dict(report.by_kind)
    assert kinds["keywords"].recall_at_1 == 1.0 and kinds["plain"].recall_at_5 == 0.0
    assert report.as_json()["by_kind"]["plain"]["n"] == 1
    assert "[keywords] n=1" in format_recall(report)


def test_profiles_differ_on_unknown_words():
    queries = [q("zzz create issue", "mcp__a__create_issue")]
    assert recall.run_recall((TINY, TINY_REG), queries, "seed").recall_at_1 == 1.0
    assert recall.run_recall((TINY, TINY_REG), queries, "latest").recall_at_5 == 0.0


def test_sources_accepted():
    path = ROOT / "sample_catalogs" / "quickstart.yaml"
    if not path.exists():
        pytest.skip("sample_catalogs/quickstart.yaml not present")
    ws = load_catalog_file(path)
    queries = [q("weather forecast", "mcp__weather__get_forecast")]
    a = recall.run_recall(ws, queries, "seed")
    b = recall.run_recall(SessionState.from_workspace(ws), queries, "seed")
    c = recall.run_recall((ws.tool_defs(), ws.registry()), queries, "seed")
    assert a.recall_at_1 == b.recall_at_1 == c.recall_at_1 == 1.0


@pytest.mark.parametrize("name", ["quickstart", "five-servers", "seed-demo"])
def test_our_query_sets_resolve(name):
    catalog = ROOT / "sample_catalogs" / f"{name}.yaml"
    queries = ROOT / "queries" / f"{name}.jsonl"
    if not catalog.exists() or not queries.exists():
        pytest.skip(f"{catalog.name} or {queries.name} not present")
    loaded = load_queries(queries)
    for profile in ("seed", "latest"):
        report = recall.run_recall(load_catalog_file(catalog), loaded, profile)
        assert report.unresolved == () and report.n == len(loaded)
    assert {x.kind for x in loaded} == {"keywords", "plain"}


def test_query_sets_size():
    files = sorted((ROOT / "queries").glob("*.jsonl"))
    assert sum(len(load_queries(f)) for f in files) >= 150


# --------------------------------------------------------------------------- reach


def test_reach_reasons():
    defs = [make_def(f"mcp__s{i}__search", "Search things here.") for i in range(1, 8)]
    defs.append(make_def("mcp__w__get_weather", "Get the weather forecast for a city."))
    reg = {d["function"]["name"]: "mcp-" + d["function"]["name"].split("__")[1] for d in defs}
    for profile in ("seed", "latest"):
        report = recall.run_reach((defs, reg), profile)
        assert report.n == 8
        assert report.by_name == 6 and report.by_description == 6 and report.by_either == 6
        assert [u.name for u in report.unreached] == ["mcp__s6__search", "mcp__s7__search"]
        row = report.unreached[0]
        assert row.name_query == "search" and row.description_query == "Search things here."
        assert row.reasons[0].startswith("duplicate-looking name: 6 other tool(s) named "
                                         "'search' (mcp__s1__search, ")
        assert "thin description: 3 word(s)" in row.reasons
        assert "description query: shadowed by 5 tool(s) with a higher score" in row.reasons
        data = report.as_json()
        assert data["unreached"][0]["name"] == "mcp__s6__search"
        assert "mcp__s7__search" in format_reach(report)


def test_reach_empty_description_and_wordless_name():
    defs = [make_def("mcp__x__\u65e5\u672c", ""), make_def("mcp__x__ok", "Fine tool for ok.")]
    report = recall.run_reach((defs, {"mcp__x__\u65e5\u672c": "mcp-x", "mcp__x__ok": "mcp-x"}),
                              "latest")
    row = report.unreached[0]
    assert row.name == "mcp__x__\u65e5\u672c"
    assert "thin description: empty" in row.reasons
    assert any(r.startswith("name query not admitted") for r in row.reasons)


def test_helpers():
    assert recall.own_name_words("mcp__github__create_issue") == "create issue"
    assert recall.own_name_words("mcp__weird") == "weird"
    assert recall.own_name_words("todo_list") == "todo list"
    assert recall.first_sentence("Hello  there. More") == "Hello there."
    assert recall.first_sentence("v1.2 is out") == "v1.2 is out"


# --------------------------------------------------------------------------- shared sets


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} not present (shared benchmark data lives outside the repo)")
    return path


def test_shared_azure_and_livemcpbench_resolve():
    azure = load_real_dump(_need(SHARED / "catalogs/real/azure-mcp.json"))
    report = recall.run_recall(azure, load_queries(_need(SHARED / "recall/azure-mcp.jsonl")),
                               "seed")
    assert report.n == 735 and report.unresolved == () and report.recall_at_5 > 0.5
    live = load_dump_dir(_need(SHARED / "catalogs/real/livemcpbench"))
    report = recall.run_recall(live, load_queries(_need(SHARED / "recall/livemcpbench.jsonl")),
                               "seed")
    assert report.n == 94 and report.unresolved == ()


def test_thousand_queries_over_full_real_catalog():
    """1,000 queries over ~4,900 tools (the speed figure is `toolsearch bench recall`'s job;
    here: every query is scored and a repeated query scores the same both times)."""
    ws = load_dump_dir(_need(SHARED / "catalogs/real"))
    base = load_queries(_need(SHARED / "recall/azure-mcp.jsonl"))
    queries = (base * 2)[:1000]
    assert len(ws.tool_defs()) > 4000
    for profile in ("seed", "latest"):
        report = recall.run_recall(ws, queries, profile)
        once = recall.run_recall(ws, queries[: len(base)], profile)
        assert report.n == 1000
        assert report.misses[: len(once.misses)] == once.misses
