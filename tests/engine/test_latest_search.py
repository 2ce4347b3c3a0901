"""The ``latest`` profile's retrieval, classification, config and listing rules (REFERENCE §12)."""

from __future__ import annotations

import logging

import pytest

from toolsearch.bm25 import search_catalog
from toolsearch.catalog import build_catalog, search_text, tokenize
from toolsearch.classify import DEFAULT_DEFER_TOOLS, Registry, classify_tools, decide
from toolsearch.config import ToolSearchConfig
from toolsearch.listing import short_description
from toolsearch.tooldefs import make_def


def _obj(*props: str) -> dict:
    return {"type": "object", "properties": {p: {"type": "string"} for p in props}}


GITHUB = [
    make_def("mcp__github__list_issues", "List issues in a repository.", _obj("repo")),
    make_def("mcp__github__create_issue", "Create a new issue.", _obj("repo", "title")),
    make_def("mcp__github__get_file_contents", "Read a file from a repository.", _obj("path")),
    make_def("mcp__slack__post_message", "Post a message to a channel.", _obj("channel")),
]
GITHUB_REG = Registry({d["function"]["name"]: "mcp-" + d["function"]["name"].split("__")[1]
                       for d in GITHUB})

FLOOR = [
    make_def("run_workflow", "Start a saved workflow."),
    make_def("shell_history", "Show recent history."),
    make_def("command_palette", "Open the palette."),
    make_def("execute_query", "Execute a SQL query."),
    make_def("code_review", "Review pending changes."),
    make_def("run_tests", "Run the test suite from the shell."),
]
FLOOR_REG = Registry({d["function"]["name"]: "devtools" for d in FLOOR})


def names(catalog, query, limit=5):
    return [h.name for h in search_catalog(catalog, query, limit)]


@pytest.fixture(scope="module")
def gh():
    return build_catalog(GITHUB, GITHUB_REG, "latest")


@pytest.fixture(scope="module")
def floor():
    return build_catalog(FLOOR, FLOOR_REG, "latest")


@pytest.mark.parametrize(("query", "expected"), [
    ("zzz github", []),
    ("post_mess", []),
    ("issues", ["mcp__github__list_issues", "mcp__github__create_issue"]),
    ("github", ["mcp__github__list_issues", "mcp__github__create_issue",
                "mcp__github__get_file_contents"]),
    ("creating issues", ["mcp__github__create_issue"]),
    ("!!!", []),
    ("", []),
])
def test_worked_examples_github(gh, query, expected):
    got = names(gh, query)
    assert sorted(got) == sorted(expected)
    if expected == ["mcp__github__list_issues", "mcp__github__create_issue"]:
        assert set(got) == set(expected)


def test_floor_blocks_five_word_query(floor):
    # five answerable tokens -> a tool needs ceil(2.5) = 3 of them; none has more than two
    assert names(floor, "run shell command execute code") == []
    # fewer than 4 answerable tokens -> one is enough (after the rarest-token gate)
    # 'run' and 'shell' tie on idf (df 2 each): the first in query order gates
    assert names(floor, "run shell") == ["run_tests", "run_workflow"]
    assert names(floor, "shell run") == ["run_tests", "shell_history"]
    assert set(names(floor, "run")) == {"run_workflow", "run_tests"}


def test_floor_admits_with_enough_coverage():
    defs = [*FLOOR, make_def("sandbox_exec", "Run a shell command or execute code.")]
    cat = build_catalog(defs, {**FLOOR_REG.toolsets, "sandbox_exec": "devtools"}, "latest")
    assert names(cat, "run shell command execute code") == ["sandbox_exec"]


def test_exact_name_first_and_infinite(gh):
    hits = search_catalog(gh, "  MCP__github__create_issue ", 5)
    assert hits[0].name == "mcp__github__create_issue"
    assert hits[0].exact and hits[0].score == float("inf")
    # 'mcp' is stripped from every doc, so it is the (absent) rarest token: only the exact hit
    assert [h.name for h in hits] == ["mcp__github__create_issue"]


def test_no_substring_fallback(gh):
    assert names(gh, "calend") == [] and names(gh, "creat") == ["mcp__github__create_issue"]
    assert not any(h.fallback for h in search_catalog(gh, "github", 5))


def test_rarest_token_gate(gh):
    # 'post' occurs only in the slack tool, 'repository' in two github tools
    assert names(gh, "repository post") == ["mcp__slack__post_message"]
    assert set(names(gh, "post repository")) == {"mcp__slack__post_message"}
    assert set(names(gh, "repository")) == {"mcp__github__list_issues",
                                            "mcp__github__get_file_contents"}


def test_limit_and_duplicates(gh):
    assert len(names(gh, "github", 2)) == 2
    assert names(gh, "github", 0) == []


def test_search_text_and_stemming():
    d = make_def("mcp__linear__create_issue", "Creates issues.", _obj("teamId"))
    assert search_text(d, "mcp-linear", "latest").split() == \
        "linear create issue Creates issues. teamId".split()
    # the label is left out when the name already contains it
    d2 = make_def("mcp__github__github_search", "Search.")
    assert search_text(d2, "mcp-github", "latest").split() == ["github", "github", "search",
                                                                 "Search."]
    d3 = make_def("mcp__gh__search", "Search.")
    assert tokenize(search_text(d3, "mcp-github", "latest"), "latest") == \
        ["gh", "search", "github", "search"]
    assert tokenize("issues creating", "latest") == ["issu", "creat"]
    assert tokenize("issues creating", "seed") == ["issues", "creating"]


def test_source_label_indexed_for_plugin():
    d = make_def("board_show", "Show the board.")
    cat = build_catalog([d], {"board_show": "kanban"}, "latest")
    assert names(cat, "kanban") == ["board_show"]


# --------------------------------------------------------------------------- classification


@pytest.mark.parametrize(("name", "toolset", "defer", "deferred", "rule"), [
    ("tool_search", "x", None, False, "bridge"),
    ("terminal", "terminal", DEFAULT_DEFER_TOOLS, False, "core"),
    ("todo_list", "todo", DEFAULT_DEFER_TOOLS, True, "defer-list"),
    ("computer_use", None, DEFAULT_DEFER_TOOLS, True, "defer-list"),  # unregistered but listed
    ("clarify", "clarify", DEFAULT_DEFER_TOOLS, False, "core"),
    ("todo_list", "todo", frozenset(), False, "core"),  # defer: [] -> no core/GUI deferral
    ("todo_list", "todo", None, False, "core"),  # defer_tools=None applies no curated list
    ("mcp__x__y", "mcp-x", frozenset(), True, "mcp-toolset"),
    ("gui_tour", "desktop_ui", frozenset(), False, "direct-surface"),
    ("gui_tour", "desktop_ui", DEFAULT_DEFER_TOOLS, True, "defer-list"),
    ("wizard", "setup", DEFAULT_DEFER_TOOLS, False, "direct-surface"),
    ("desktop_project", "project", DEFAULT_DEFER_TOOLS, True, "defer-list"),
    ("project_list", "project", DEFAULT_DEFER_TOOLS, False, "direct-surface"),
    ("board_show", "kanban_ext", frozenset(), True, "plugin"),
    ("ghost", None, frozenset(), False, "unregistered"),
])
def test_decide_latest(name, toolset, defer, deferred, rule):
    reg = Registry({name: toolset} if toolset else {})
    decision = decide(name, reg, defer_tools=defer, profile="latest")
    assert decision.deferrable is deferred
    assert decision.rule.value == rule


def test_default_defer_list():
    assert len(DEFAULT_DEFER_TOOLS) == 18
    assert "clarify" not in DEFAULT_DEFER_TOOLS and "project_list" not in DEFAULT_DEFER_TOOLS
    assert {"setup_mcp", "apply_layout", "cronjob_manage"} <= DEFAULT_DEFER_TOOLS


def test_classify_with_config_defer_lists():
    defs = [make_def("todo_list"), make_def("mcp__a__b"), make_def("clarify")]
    reg = {"todo_list": "todo", "mcp__a__b": "mcp-a", "clarify": "clarify"}
    cfg = ToolSearchConfig.from_raw({}, profile="latest")
    split = classify_tools(defs, reg, cfg.effective_defer_tools, profile="latest")
    assert [d["function"]["name"] for d in split.deferrable] == ["todo_list", "mcp__a__b"]
    cfg = ToolSearchConfig.from_raw({"defer": []}, profile="latest")
    split = classify_tools(defs, reg, cfg.effective_defer_tools, profile="latest")
    assert [d["function"]["name"] for d in split.deferrable] == ["mcp__a__b"]
    cfg = ToolSearchConfig.from_raw({"defer": [" clarify ", ""]}, profile="latest")
    assert cfg.effective_defer_tools == frozenset({"clarify"})


def test_config_latest(caplog):
    cfg = ToolSearchConfig.from_raw(None, profile="latest")
    assert cfg.max_search_limit == 25 and cfg.effective_defer_tools == DEFAULT_DEFER_TOOLS
    assert ToolSearchConfig.from_raw(False, profile="latest").enabled == "off"
    assert ToolSearchConfig.from_raw({"max_search_limit": 99}, profile="latest") \
        .max_search_limit == 50
    with caplog.at_level(logging.WARNING, logger="tools.tool_search"):
        cfg = ToolSearchConfig.from_raw({"defer": "todo_list"}, profile="latest")
    assert cfg.effective_defer_tools == DEFAULT_DEFER_TOOLS
    assert "tools.tool_search.defer" in caplog.text and "expected a YAML list" in caplog.text


@pytest.mark.parametrize(("text", "expected"), [
    ("Hello world! More", "Hello world!"),
    ("v1.2 release notes", "v1.2 release notes"),
    ("Use e.g. this. Next", "Use e.g. this."),
    ("See i.e. that? Yes", "See i.e. that?"),
    ("Files, dirs etc. and more. Next", "Files, dirs etc. and more."),
    ("Ends here.", "Ends here."),
    ("  spaced\n\nout.  text", "spaced out."),
    ("", ""),
    ("A very long first sentence that keeps on going well past the sixty character cap. X",
     "A very long first sentence that keeps on going well past\u2026"),
])
def test_short_description_latest(text, expected):
    assert short_description(text, "latest") == expected


# --------------------------------------------------------------------------- naive reference


def _naive_latest(catalog, query, limit):
    """The G3 rules written out plainly: per-doc BM25 loop, gate, floor, exact-name-first."""
    import math

    from toolsearch.bm25 import K1, B

    entries = catalog.entries
    n = len(entries)
    docs = [list(e.tokens) for e in entries]
    avgdl = sum(len(d) for d in docs) / max(n, 1)
    df = {}
    for d in docs:
        for t in set(d):
            df[t] = df.get(t, 0) + 1
    q = tokenize(query, "latest")
    exact_name = query.strip().lower()

    def idf(t):
        return math.log(1 + (n - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5))

    gate = None
    for t in q:
        if gate is None or idf(t) > idf(gate):
            gate = t
    answerable = [t for t in dict.fromkeys(q) if df.get(t, 0) > 0]
    need = math.ceil(len(answerable) * 0.5) if len(answerable) >= 4 else 1
    out = []
    for i, d in enumerate(docs):
        if exact_name and entries[i].name.lower() == exact_name:
            out.append((math.inf, i))
            continue
        if not q or gate not in d or sum(1 for t in answerable if t in d) < need:
            continue
        score = 0.0
        for t in q:
            tf = d.count(t)
            if df.get(t, 0) and tf:
                score += idf(t) * tf * (K1 + 1) / (
                    tf + K1 * (1 - B + B * len(d) / max(avgdl, 1.0)))
        out.append((score, i))
    out.sort(key=lambda p: (-p[0], p[1]))
    return [(entries[i].name, s) for s, i in out[:limit]]


WORDS = ["issue", "issues", "create", "list", "file", "github", "repo", "message", "post",
         "run", "shell", "code", "zzz", "the", "a", "read"]


def test_latest_matches_naive_reference():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    defs = [*GITHUB, *FLOOR,
            make_def("mcp__gitlab__create_issue", "Create an issue on GitLab.", _obj("project")),
            make_def("read_the_file", "Read the file, the whole file.")]
    reg = {**GITHUB_REG.toolsets, **FLOOR_REG.toolsets, "mcp__gitlab__create_issue":
           "mcp-gitlab", "read_the_file": "files"}
    catalog = build_catalog(defs, reg, "latest")
    all_names = [d["function"]["name"] for d in defs]

    @settings(max_examples=300, deadline=None)
    @given(st.one_of(
        st.lists(st.sampled_from(WORDS), max_size=7).map(" ".join),
        st.sampled_from(all_names).map(lambda s: f" {s.upper()} "),
    ), st.integers(1, 20))
    def check(query, limit):
        got = [(h.name, h.score) for h in search_catalog(catalog, query, limit)]
        assert got == _naive_latest(catalog, query, limit)
        for hit in search_catalog(catalog, query, limit):
            if not hit.exact:
                assert sum(v for _, v in hit.terms) == pytest.approx(hit.score)

    check()


def test_hermes_source_name_for_unregistered_defs():
    d = {"type": "function", "_hermes_source_name": "honcho",
         "function": {"name": "honcho_recall", "description": "Recall memories.",
                      "parameters": {"type": "object", "properties": {}}}}
    latest = build_catalog([d], {}, "latest")
    assert (latest[0].source, latest[0].source_name) == ("plugin", "honcho")
    assert names(latest, "honcho") == ["honcho_recall"]
    seed = build_catalog([d], {}, "seed")
    assert (seed[0].source, seed[0].source_name) == ("other", "")
