"""The CLI through a subprocess, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

CATALOG = {
    "name": "cli-test",
    "context_length": 100000,
    "toolsets": [
        {"name": "hermes-core", "kind": "core", "tools": [
            {"name": "terminal", "description": "Run a shell command."}]},
        {"name": "github", "kind": "mcp", "tools": [
            {"name": "create_issue", "description": "Open a new issue in a GitHub repository.",
             "inputSchema": {"type": "object", "properties": {
                 "repo": {"type": "string"}, "title": {"type": "string"}},
                 "required": ["repo", "title"]}},
            {"name": "list_commits", "description": "List commits on a branch.",
             "inputSchema": {"type": "object", "properties": {"repo": {"type": "string"}}}},
        ]},
        {"name": "calendar", "kind": "mcp", "tools": [
            {"name": "create_event", "description": "Create a calendar event."}]},
    ],
}


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "toolsearch", *args], capture_output=True,
                          text=True, timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}: {proc.stderr}")
    return proc


@pytest.fixture()
def catalog(tmp_path: Path) -> Path:
    path = tmp_path / "cat.yaml"
    path.write_text(yaml.safe_dump(CATALOG), encoding="utf-8")
    return path


def test_assemble_json(catalog: Path) -> None:
    data = json.loads(run("assemble", str(catalog), "--json").stdout)
    assert data["activated"] is True
    assert data["tier"] == 1 and data["listing_form"] == "full"
    assert data["budget"] == 4000 and data["budget_binding"] == "cap"
    assert data["visible"] == ["terminal"]
    assert data["deferred"] == ["mcp__github__create_issue", "mcp__github__list_commits",
                                "mcp__calendar__create_event"]
    assert data["deferred_count"] == 3
    assert data["deferred_tokens_exact"] > 0
    names = [d["function"]["name"] for d in data["tool_defs"]]
    assert names == ["terminal", "tool_search", "tool_describe", "tool_call"]
    assert data["log_line"] == (
        f"tool_search activated (tier 1): 1 core/visible tools kept, 3 deferred "
        f"(~{data['deferred_tokens']} tokens), listing full (budget ~4000 tokens)")
    assert data["listing"].splitlines()[1] == "calendar tools (1):"


def test_assemble_set_and_context(catalog: Path) -> None:
    data = json.loads(run("assemble", str(catalog), "--json", "--context", "8000",
                          "--set", "threshold_pct=1").stdout)
    # 1% of 8000 = 80 tokens: the percent leg binds, and the small listing still fits
    assert data["budget"] == 80 and data["budget_binding"] == "percent"
    assert data["tier"] == 1 and data["listing_tokens"] <= 80
    tiny = json.loads(run("assemble", str(catalog), "--json", "--context", "8000",
                          "--set", "threshold_pct=0.1").stdout)
    # 8 tokens: not even the header fits -> tier 2, no listing
    assert tiny["budget"] == 8 and tiny["tier"] == 2
    assert tiny["listing_form"] == "none" and tiny["listing"] is None
    off = json.loads(run("assemble", str(catalog), "--json", "--set", "enabled=off").stdout)
    assert off["activated"] is False and off["tier"] == 0 and off["log_line"] is None
    assert len(off["tool_defs"]) == 4


def test_search_json_terms_and_fallback(catalog: Path) -> None:
    data = json.loads(run("search", str(catalog), "--query", "create github issue",
                          "--json").stdout)
    first = data["matches"][0]
    assert first["name"] == "mcp__github__create_issue"
    assert first["fallback"] is False
    assert abs(sum(first["terms"].values()) - first["score"]) < 1e-5
    assert data["total_available"] == 3 and data["profile"] == "seed"
    fb = json.loads(run("search", str(catalog), "--query", "calend", "--json").stdout)
    assert [m["name"] for m in fb["matches"]] == ["mcp__calendar__create_event"]
    assert fb["matches"][0]["fallback"] is True and fb["matches"][0]["score"] == 0.1


def test_explain(catalog: Path) -> None:
    data = json.loads(run("explain", str(catalog), "mcp__github__list_commits", "--json").stdout)
    assert data["status"] == "deferred" and data["rule"] == "mcp-toolset"
    assert data["listing_line"] == "- mcp__github__list_commits: List commits on a branch."
    core = json.loads(run("explain", str(catalog), "terminal", "--json").stdout)
    assert core["status"] == "visible" and core["rule"] == "core"
    unknown = run("explain", str(catalog), "nope", "--json", check=False)
    assert unknown.returncode == 1 and json.loads(unknown.stdout)["status"] == "unknown"


@pytest.mark.parametrize(
    ("args", "outcome", "tool"),
    [
        ('{"name": "tool_search"}', "recursion", "tool_search"),
        ('{"name": "mcp__github__create_issue"}', "missing_args", "mcp__github__create_issue"),
        ('{"name": "mcp__github__create_issue", "arguments": {"repo": "a", "title": "b"}}', "ok",
         "mcp__github__create_issue"),
        ('{"name": "terminal"}', "not_deferrable", "terminal"),
        ('{"name": "mcp__calendar__create_event"}', "out_of_scope",
         "mcp__calendar__create_event"),
    ],
)
def test_call_outcomes(catalog: Path, args: str, outcome: str, tool: str) -> None:
    data = json.loads(run("call", str(catalog), "tool_call", args, "--scope",
                          "hermes-core,github", "--json").stdout)
    assert data["activity"]["outcome"] == outcome
    assert data["activity"]["tool"] == tool
    assert data["activity"]["bridge"] == "tool_call"


def test_call_missing_args_returns_schema(catalog: Path) -> None:
    data = json.loads(run("call", str(catalog), "tool_call",
                          '{"name": "mcp__github__create_issue", "arguments": {"repo": "x"}}',
                          "--json").stdout)
    assert data["result"]["error"] == (
        "tool_call to 'mcp__github__create_issue' is missing required argument(s): title. "
        "The tool was NOT invoked.")
    assert data["result"]["parameters"]["required"] == ["repo", "title"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["assemble", "does-not-exist.yaml"], "does-not-exist.yaml"),
        (["assemble", "{catalog}", "--set", "nonsense=1"], "unknown tool_search key"),
        (["call", "{catalog}", "tool_call", "{not json"], "not valid JSON"),
        (["call", "{catalog}", "tool_frobnicate", "{}"], "unknown bridge tool"),
        (["assemble", "{catalog}", "--scope", "nope"], "no toolset named 'nope'"),
    ],
)
def test_errors_are_one_line(catalog: Path, args: list[str], needle: str) -> None:
    proc = run(*[a.replace("{catalog}", str(catalog)) for a in args], check=False)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in proc.stderr


@pytest.mark.parametrize("scope", ["hermes-core,mcp-github", "hermes-core,github"])
def test_scope_takes_registry_names_and_bare_server_names(catalog: Path, scope: str) -> None:
    """Toolsets are named by their registry name everywhere (``mcp-github``, as ``explain``
    and search's ``source_name`` report them); the bare server name is an alias."""
    data = json.loads(run("assemble", str(catalog), "--scope", scope, "--json").stdout)
    rows = {row["name"]: row["in_scope"] for row in data["toolsets"]}
    assert rows == {"hermes-core": True, "mcp-github": True, "mcp-calendar": False}
    explained = json.loads(run("explain", str(catalog), "mcp__github__create_issue",
                               "--json").stdout)
    assert explained["toolset"] == "mcp-github"
    out_of_scope = json.loads(run("explain", str(catalog), "mcp__calendar__create_event",
                                  "--scope", scope, "--json", check=False).stdout)
    assert out_of_scope["toolset"] == "mcp-calendar"


def test_unknown_toolset_error_lists_registry_names(catalog: Path) -> None:
    proc = run("assemble", str(catalog), "--detach", "nope", check=False)
    assert proc.stderr.strip() == ("toolsearch: error: --detach: no toolset named 'nope' "
                                   "(have: hermes-core, mcp-calendar, mcp-github)")


def test_malformed_entry_warns_and_continues(tmp_path: Path) -> None:
    bad = dict(CATALOG)
    bad["toolsets"] = [*CATALOG["toolsets"],
                       {"name": "broken", "kind": "mcp", "tools": [{"description": "no name"}]}]
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad), encoding="utf-8")
    proc = run("assemble", str(path), "--json")
    assert "warning" in proc.stderr and "bad.yaml" in proc.stderr
    assert json.loads(proc.stdout)["deferred_count"] == 3


def test_help_lists_commands() -> None:
    out = run("--help").stdout
    for command in ("assemble", "search", "explain", "call", "snapshot", "tune", "bench"):
        assert command in out


HERMES_CONFIG = """\
# my agent
model: some-model   # keep this comment
mcp_servers: {}
tools:
  tool_search:
    threshold_pct: 5   # five percent
  other: [a, b]
"""


def test_tune_save_changes_only_the_block(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(HERMES_CONFIG, encoding="utf-8")
    preview = json.loads(run("tune", str(config), "--set", "threshold_pct=250", "--json").stdout)
    assert preview["before"]["config"]["threshold_pct"] == 5
    assert preview["after"]["config"]["threshold_pct"] == 100  # clamped
    assert preview["saved"] is None and config.read_text(encoding="utf-8") == HERMES_CONFIG
    out = run("tune", str(config), "--set", "threshold_pct=2", "--save").stdout
    assert "backup" in out
    assert (tmp_path / "config.yaml.bak").read_text(encoding="utf-8") == HERMES_CONFIG
    assert config.read_text(encoding="utf-8") == HERMES_CONFIG.replace(
        "threshold_pct: 5   # five percent", "threshold_pct: 2   # five percent")


def test_bench_recall_and_reach(tmp_path: Path, catalog: Path) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        '{"query": "create github issue", "gold": ["mcp__github__create_issue"]}\n'
        '{"query": "list commits", "gold": ["mcp__github__list_commits"]}\n'
        '{"query": "zzz", "gold": ["mcp__calendar__create_event"]}\n', encoding="utf-8")
    data = json.loads(run("bench", "recall", str(catalog), "--queries", str(queries),
                          "--json").stdout)
    # two of three queries put their gold tool first; "zzz" finds nothing
    assert data["n"] == 3
    # figures are rounded to 4 places in the JSON
    assert data["recall_at_1"] == data["recall_at_5"] == data["mrr"] == round(2 / 3, 4)
    assert [m["query"] for m in data["misses"]] == ["zzz"]
    text = run("bench", "recall", str(catalog), "--queries", str(queries)).stdout
    assert "recall@1" in text and "3 queries" in text
    reach = json.loads(run("bench", "reach", str(catalog), "--profile", "latest",
                           "--json").stdout)
    assert reach["n"] == 3 and reach["profile"] == "latest"
    bad = run("bench", "recall", str(catalog), "--queries", str(tmp_path / "none.jsonl"),
              check=False)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr


def test_bench_speed_prints_figures(tmp_path: Path) -> None:
    data = json.loads(run("bench", "speed", "--catalogs", str(tmp_path / "absent"),
                          "--sizes", "50,120", "--json").stdout)
    assert set(data) == {"generated-50", "generated-120"}
    for figures in data.values():
        assert figures["search_median_ms"] > 0 and figures["assemble_new_defs_ms"] > 0


def test_bench_needs_the_checkouts_benchmarks(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Benchmarks are not shipped: an installed package says so in one line."""
    from toolsearch import bench_cli
    from toolsearch.cli import main

    monkeypatch.setattr(bench_cli, "CHECKOUT", tmp_path)
    for kind in ("speed", "attach", "tui"):
        assert main(["bench", kind]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"toolsearch: error: bench {kind} runs from a source checkout (its "
                       "benchmarks/ folder is not installed with the package)"]


def test_explain_says_what_would_change_it_and_did_you_mean(catalog: Path) -> None:
    data = json.loads(run("explain", str(catalog), "mcp__github__create_issue", "--json",
                          "--set", "listing_max_tokens=200").stdout)
    assert set(data) >= {"would_list_names_at", "would_list_full_at", "keep_visible",
                         "did_you_mean"}
    assert "enabled: off" in data["keep_visible"]
    typo = run("explain", str(catalog), "mcp__github__create_isue", check=False)
    assert typo.returncode == 1
    assert "Did you mean: mcp__github__create_issue" in typo.stdout


@pytest.mark.parametrize("command", ["tui", "demo"])
def test_app_on_a_missing_source_exits_1_with_one_line(command: str, tmp_path: Path) -> None:
    proc = run(command, str(tmp_path / "nope.yaml"), check=False)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "nope.yaml" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("command", ["tui", "demo"])
def test_an_unknown_theme_exits_1_with_one_line_before_the_app_opens(command: str) -> None:
    """It opened the app anyway, with a toast that was gone in seconds."""
    proc = run(command, "--theme", "ops-drak", check=False)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert "'ops-drak'" in proc.stderr and "did you mean 'ops-dark'?" in proc.stderr
    assert "ops-high-contrast" in proc.stderr and "textual-dark" in proc.stderr


def test_set_values_hermes_does_not_read_as_given_are_warned(catalog: Path) -> None:
    """Hermes defaults what it cannot parse and clamps what is out of range: the operator
    is told, once per key, on stderr (the answer on stdout is unchanged)."""
    tuned = run("tune", str(catalog), "--set", "threshold_pct=abc", "--set",
                "listing_max_tokens=-5")
    warnings = [line for line in tuned.stderr.splitlines() if line.strip()]
    assert warnings == [
        "toolsearch: warning: --set threshold_pct='abc' is not a number: read as the default 5",
        "toolsearch: warning: --set listing_max_tokens=-5 is outside 200-60,000: clamped to 200",
    ]
    assert "listing_max_tokens: 4000 -> 200" in tuned.stdout
    assembled = run("assemble", str(catalog), "--set", "threshold_pct=500", "--json")
    assert "threshold_pct=500 is outside 0-100: clamped to 100" in assembled.stderr
    assert json.loads(assembled.stdout)["config"]["threshold_pct"] == 100.0
    plain = run("assemble", str(catalog), "--set", "threshold_pct=7.5")
    assert plain.stderr == ""


def test_bench_recall_with_a_source_but_no_queries_is_a_usage_line(catalog: Path) -> None:
    done = run("bench", "recall", str(catalog), check=False)
    assert done.returncode == 1
    assert done.stderr == ("toolsearch: error: bench recall takes SOURCE... and --queries "
                           "FILE.jsonl (or neither, for the whole suite)\n")


def test_explain_with_an_empty_tool_name_is_a_usage_line(catalog: Path) -> None:
    done = run("explain", str(catalog), "  ", check=False)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "toolsearch: error: explain needs at least one SOURCE and a TOOL name\n"
