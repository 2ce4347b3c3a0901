"""Tracebacks and raw exceptions (issue 9, 6-11): one line and exit 1, or a skip with a
warning naming the file and entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from adv_helpers import (
    SLACK,
    cli,
    no_leftovers,
    one_error_line,
    raw_server,
    sdk_server,
    write_yaml_config,
)


def test_garbage_on_stdout_is_one_counted_line(tmp_path: Path, marker: str) -> None:
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers",
                               {"noisy": raw_server("garbage", marker)})
    run = cli("assemble", str(config), "--timeout", "10", timeout=10 + SLACK + 10)
    assert run.returncode == 0, run
    assert "Traceback" not in run.output and "input_value" not in run.output
    lines = run.stderr_lines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("toolsearch: warning: noisy: failed: wrote non-MCP output")
    assert "the MCP SDK logged 200 message(s)" in lines[0]
    no_leftovers(marker)


def _deep_schema(depth: int) -> dict[str, object]:
    schema: dict[str, object] = {"type": "object"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def test_deep_schema_skips_the_entry_not_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "dumps"
    folder.mkdir()
    for i in range(5):
        (folder / f"s{i}.json").write_text(json.dumps(
            {"server": f"s{i}", "tools": [{"name": "ok", "description": "fine"}]}))
    (folder / "deep.json").write_text(json.dumps(
        {"server": "deep", "tools": [{"name": "t", "inputSchema": _deep_schema(400)},
                                     {"name": "fine"}]}))
    (folder / "deeper.json").write_text("[" * 5000 + "]" * 5000)
    run = cli("assemble", str(folder), "--json")
    assert run.returncode == 0, run
    names = {t["name"].removeprefix("mcp-")  # a server's or its registry name
             for t in run.json()["toolsets"]}  # type: ignore[index]
    assert names == {"s0", "s1", "s2", "s3", "s4", "deep"}
    assert "deep.json: tools.tools[0] (deep/t): skipped: inputSchema is nested too deeply" \
        in run.stderr
    assert "deeper.json: skipped:" in run.stderr
    assert "Traceback" not in run.output


def test_integer_of_5000_digits_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("toolsets: [{name: s, tools: [{name: t, inputSchema: {maxLength: "
                    + "9" * 5000 + "}}]}]\n")
    assert "4,300 digits" in one_error_line(cli("assemble", str(path)))
    path = tmp_path / "big.json"
    path.write_text('{"toolsets": [{"name": "s", "tools": [{"name": "t", "inputSchema": '
                    '{"maxLength": ' + "9" * 5000 + "}}]}]}")
    assert "4,300 digits" in one_error_line(cli("assemble", str(path)))


def test_a_deep_theme_is_skipped_never_fatal(tmp_path: Path) -> None:
    from tui.themes import load_themes

    (tmp_path / "deep.yaml").write_text("name: deep\nprimary: '#ffffff'\nvariables: "
                                        + "{a: " * 2000 + "1" + "}" * 2000 + "\n")
    (tmp_path / "nested.yaml").write_text("name: n\nprimary: '#ffffff'\nvariables: "
                                          + "[" * 900 + "]" * 900 + "\n")
    (tmp_path / "bomb.yaml").write_text("a: &a [x, *a]\nname: b\nprimary: '#ffffff'\n")
    (tmp_path / "good.yaml").write_text("name: good\nprimary: '#ffffff'\n")
    loaded = load_themes(tmp_path)
    assert [t.name for t in loaded.themes] == ["good"]
    assert len(loaded.errors) == 3
    assert all(e.startswith("theme file ") and " skipped: " in e for e in loaded.errors)


def test_lone_surrogate_is_skipped_and_printing_never_crashes(tmp_path: Path) -> None:
    path = tmp_path / "surrogate.json"
    path.write_text('{"toolsets": [{"name": "s", "tools": ['
                    '{"name": "bad", "description": "half \\ud800 a pair"},'
                    '{"name": "good", "description": "fine"}]}]}')
    run = cli("assemble", str(path))
    assert run.returncode == 0, run
    assert "mcp__s__good" in run.stdout and "mcp__s__bad" not in run.stdout
    assert "(s/bad): skipped: description is not valid Unicode" in run.stderr
    out = tmp_path / "out.yaml"
    run = cli("snapshot", str(path), "-o", str(out))
    assert run.returncode == 0, run
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml", "surrogate.json"]


def test_a_surrogate_in_a_toolset_error_prints(tmp_path: Path) -> None:
    """A value that still holds a lone surrogate (a toolset's recorded error) prints escaped."""
    path = tmp_path / "err.json"
    path.write_text('{"toolsets": [{"name": "s", "error": "bad \\udc80 reply", "tools": []}]}')
    for extra in ((), ("--json",)):
        run = cli("assemble", str(path), *extra)
        assert run.returncode == 0, run
        assert "UnicodeEncodeError" not in run.output and "\\udc80" in run.output


def test_set_with_5000_digits_clamps() -> None:
    run = cli("assemble", "seed-demo", "--set", "listing_max_tokens=" + "9" * 5000, "--json")
    assert run.returncode == 0, run
    payload = run.json()
    assert payload["config"]["listing_max_tokens"] < 10**9  # type: ignore[index]
    assert "Traceback" not in run.output and "4300" not in run.output


def test_merge_key_in_tool_search_saves(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("model: x\nbase: &base {threshold_pct: 5, listing_max_tokens: 3000}\n"
                      "tools:\n  tool_search:\n    <<: *base\n    enabled: auto\n")
    run = cli("tune", str(config), "--set", "threshold_pct=9", "--save")
    assert run.returncode == 0, run
    import yaml

    saved = yaml.safe_load(config.read_text())
    assert saved["tools"]["tool_search"] == {"threshold_pct": 9, "listing_max_tokens": 3000,
                                             "enabled": "auto"}
    assert saved["base"] == {"threshold_pct": 5, "listing_max_tokens": 3000}


@pytest.mark.parametrize("args_json", ['{"n": Infinity}', '{"n": -Infinity}', '{"n": NaN}',
                                       '{"n": 1e999}', '{"n": ' + "9" * 5000 + "}",
                                       "[" * 10000 + "]" * 10000],
                         ids=["inf", "-inf", "nan", "1e999", "5000-digits", "deep"])
def test_non_finite_arguments_are_refused_before_dispatch(tmp_path: Path, marker: str,
                                                          args_json: str) -> None:
    record = tmp_path / "calls.jsonl"
    config = write_yaml_config(tmp_path / "config.yaml", "mcpServers", {
        "h": {**sdk_server(marker), "env": {"HOSTILE_RECORD": str(record)}}})
    wrapped = '{"name": "mcp__h__count", "arguments": ' + args_json + "}"
    line = one_error_line(cli("call", str(config), "tool_call", wrapped, "--json",
                              "--timeout", "20", timeout=60))
    assert line.startswith("toolsearch: error: ARGS_JSON: ")
    assert not record.exists()
    no_leftovers(marker)


@pytest.mark.parametrize("argv", [
    ["assemble", "seed-demo", "--context", "abc"],
    ["assemble", "seed-demo", "--profile", "bogus"],
    ["search", "seed-demo"],
    ["assemble"],
    ["bogus-command-or-file"],
    ["bench", "nope"],
    ["assemble", "seed-demo", "--timeout", "inf"],
])
def test_argparse_errors_are_one_line_exit_1(argv: list[str]) -> None:
    run = cli(*argv)
    line = one_error_line(run)
    assert "usage:" not in run.output
    assert "--help" in line
