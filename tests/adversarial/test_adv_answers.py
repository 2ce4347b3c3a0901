"""Misleading answers (issue 9, 20-25): real reasons, visible rejections, escapes shown
escaped, collisions warned, the budget line read right."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
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

from toolsearch.toolsets import Toolset, ToolSpec, Workspace


def test_real_reasons_for_failed_servers(tmp_path: Path, marker: str) -> None:
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers", {
        "licensed": raw_server("rpc-error", marker),
        "nowhere": {**raw_server("rpc-error", marker), "cwd": str(tmp_path / "no" / "such")},
    })
    run = cli("assemble", str(config), "--timeout", "15", "--json", timeout=15 + SLACK + 10)
    assert run.returncode == 0, run
    rows = {t["name"].removeprefix("mcp-"): t["error"]  # a server's or its registry name
            for t in run.json()["toolsets"]}  # type: ignore[index]
    assert rows["licensed"] == "server error -32000: license expired for org acme"
    assert "working directory" in rows["nowhere"] and "not found" in rows["nowhere"]
    assert "command not found" not in rows["nowhere"]
    # --json: scripts read stdout, people read stderr: each failed server is named there.
    assert run.stderr_lines() == [
        "toolsearch: warning: licensed: failed: server error -32000: license expired for "
        "org acme",
        f"toolsearch: warning: nowhere: failed: {rows['nowhere']}"]
    no_leftovers(marker)


NODE_CRASH = ("const e = new Error(\"Cannot find module 'ajv'\"); "
              "e.code = 'MODULE_NOT_FOUND'; throw e")


@pytest.mark.parametrize(("command", "args", "said"), [
    # node prints the error, its stack, the error object's fields, a closing brace and a
    # version footer: the reason is the error line, not "}" nor "Node.js v20"
    ("node", ["-e", NODE_CRASH], "stderr: Error: Cannot find module 'ajv'"),
    (sys.executable, ["-c", "import nosuchmodule_x"],
     "stderr: ModuleNotFoundError: No module named 'nosuchmodule_x'"),
    ("sh", ["-c", "echo 'Error: bad key' >&2; echo 'shutting down' >&2; echo '}' >&2; exit 1"],
     "stderr: Error: bad key"),
    ("sh", ["-c", "echo 'starting up' >&2; echo '}' >&2; exit 1"], "stderr: starting up"),
])
def test_a_crashing_server_is_named_by_its_error_line(tmp_path: Path, command: str,
                                                      args: list[str], said: str) -> None:
    if shutil.which(command) is None:
        pytest.skip(f"{command} not installed")
    config = write_yaml_config(tmp_path / "servers.json", "mcpServers",
                               {"crash": {"command": command, "args": args}})
    run = cli("assemble", str(config), "--timeout", "15", timeout=15 + SLACK)
    assert run.returncode == 0, run
    assert run.stderr_lines() == [
        f"toolsearch: warning: crash: failed: server closed the connection; {said}"]


@pytest.mark.parametrize("argv", [
    ["assemble", "seed-demo", "--context", "-5"],
    ["assemble", "seed-demo", "--context", "0"],
    ["search", "seed-demo", "-q", "web", "--limit", "0"],
    ["search", "seed-demo", "-q", "web", "--limit", "-3"],
])
def test_nonsense_numbers_are_rejected_visibly(argv: list[str]) -> None:
    assert "must be at least 1" in one_error_line(cli(*argv))


def test_the_budget_line_names_the_context() -> None:
    run = cli("assemble", "seed-demo", "--set", "listing_max_tokens=60000")
    assert "5% of 200,000 = 10,000" in run.stdout
    assert "of context 10000" not in run.stdout


def test_terminal_escapes_are_shown_escaped_in_text_but_sent_unchanged(
        tmp_path: Path, marker: str) -> None:
    config = write_yaml_config(tmp_path / "config.yaml", "mcpServers", {"h": sdk_server(marker)})
    run = cli("assemble", str(config), "--set", "enabled=on", "--timeout", "30", timeout=60)
    assert run.returncode == 0, run
    assert "\x1b" not in run.output and "\x07" not in run.output
    assert "Clears\\x1b[2J the screen\\x1b]52;c;aGVsbG8=\\x07 and more." in run.stdout
    run = cli("assemble", str(config), "--set", "enabled=on", "--timeout", "30", "--json",
              timeout=60)
    sent = run.json()["listing"]  # type: ignore[index]
    assert "Clears\x1b[2J the screen\x1b]52;c;aGVsbG8=\x07 and more." in sent
    assert "\x1b" not in run.stdout  # JSON escapes it as \u001b
    no_leftovers(marker)


def test_live_tools_get_the_entry_checks_and_collisions_are_warned(
        tmp_path: Path, marker: str) -> None:
    config = write_yaml_config(tmp_path / "config.yaml", "mcpServers", {"h": sdk_server(marker)})
    run = cli("assemble", str(config), "--timeout", "30", "--json", "--set", "enabled=off",
              timeout=60)
    assert run.returncode == 0, run
    names = [d["function"]["name"] if "function" in d else d["name"]  # type: ignore[index]
             for d in run.json()["tool_defs"]]  # type: ignore[index]
    assert len(names) == len(set(names))
    assert "exposed name 'mcp__h__get_item' already belongs to toolset 'h'" in run.stderr
    live_count = run.json()["toolsets"][0]["tools"]  # type: ignore[index]
    out = tmp_path / "snap.yaml"
    assert cli("snapshot", str(config), "-o", str(out), "--timeout", "30",
               timeout=60).returncode == 0
    again = cli("assemble", str(out), "--json")
    assert again.json()["toolsets"][0]["tools"] == live_count  # type: ignore[index]
    no_leftovers(marker)


def test_names_colliding_across_sources_are_warned(tmp_path: Path) -> None:
    for i, name in enumerate(("my.srv", "my_srv")):
        (tmp_path / f"c{i}.yaml").write_text(
            f"toolsets:\n  - name: '{name}'\n    tools: [{{name: fetch}}, {{name: 'own{i}'}}]\n")
    run = cli("assemble", str(tmp_path / "c0.yaml"), str(tmp_path / "c1.yaml"), "--json",
              "--set", "enabled=off")  # every tool sent eagerly: all names in tool_defs
    assert run.returncode == 0, run
    names = [d["function"]["name"] if "function" in d else d["name"]  # type: ignore[index]
             for d in run.json()["tool_defs"]]  # type: ignore[index]
    assert len(names) == len(set(names)) and "mcp__my_srv__own1" in names
    assert "tool 'fetch' skipped: exposed name 'mcp__my_srv__fetch' already belongs to " \
        "toolset 'my.srv'" in run.stderr


async def test_the_app_shows_escapes_escaped() -> None:
    from textual.widgets import TabbedContent

    from tui.app import ToolSearchApp
    from tui.widgets.textview import TextView

    tools = tuple(ToolSpec(f"t{i}", "Clears\x1b[2J the screen" if i == 0 else f"Tool {i}.")
                  for i in range(40))
    workspace = Workspace(name="w", toolsets=(Toolset("evil", "mcp", tools),))
    app = ToolSearchApp(workspace=workspace, exact=False)

    async def drive() -> list[str]:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("3")
            await pilot.pause(0.3)
            app.query_one(TabbedContent)
            return [line for view in app.query(TextView) for line in view.lines]

    lines = await asyncio.wait_for(drive(), 60)
    text = "\n".join(lines)
    assert "Clears\\x1b[2J the screen" in text and "\x1b" not in text


def test_json_reports_do_not_hide_failures_behind_stdout(tmp_path: Path, marker: str) -> None:
    config = write_yaml_config(tmp_path / "config.yaml", "mcpServers",
                               {"gone": {"command": str(tmp_path / "missing-binary")}})
    run = cli("search", str(config), "-q", "x", "--json")
    assert run.returncode == 0, run
    assert json.loads(run.stdout)["matches"] == []
    assert run.stderr_lines() == [
        f"toolsearch: warning: gone: failed: cannot start "
        f"'{tmp_path / 'missing-binary'}': command not found"]
