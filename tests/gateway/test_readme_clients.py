"""The README's "Use it with your client" snippets: each is valid JSON / YAML in its client's
own format, and the command line each one starts serves a real client (the MCP Inspector's
CLI) when run from a folder that is not the checkout, over stdio and over HTTP."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from gateway_helpers import (
    REPO,
    env,
    inspector_bin,
    stop,
    text_of,
    upstream_entry,
    write_config,
)

from tests.sources.source_helpers import free_port, listening

pytestmark = pytest.mark.live

SERVERS = "/home/me/mcp/servers.json"


def section() -> str:
    text = (REPO / "README.md").read_text()
    start = text.index("## Use it with your client")
    return text[start:text.index("\n## ", start + 1)]


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", section(), re.S)


def client_snippets() -> dict[str, Any]:
    """The stdio entries by client format: mcpServers (Claude Desktop, Cursor), servers (VS
    Code), mcp_servers (Hermes)."""
    found: dict[str, Any] = {}
    for block in blocks("json"):
        data = json.loads(block)
        for key in ("mcpServers", "servers"):
            entry = data.get(key, {}).get("toolsearch")
            if entry is not None and entry.get("command") == "toolsearch":
                found[key] = entry
    for block in blocks("yaml"):
        data = yaml.safe_load(block)
        found["mcp_servers"] = data["mcp_servers"]["toolsearch"]
        found["hermes_tools"] = data["tools"]
    return found


def test_every_snippet_is_valid_and_in_its_clients_format() -> None:
    for block in blocks("json"):
        json.loads(block)
    found = client_snippets()
    assert set(found) == {"mcpServers", "servers", "mcp_servers", "hermes_tools"}
    for key in ("mcpServers", "servers", "mcp_servers"):
        assert found[key]["command"] == "toolsearch"
        assert found[key]["args"] == ["serve", SERVERS]
    assert found["servers"]["type"] == "stdio"  # VS Code's entries name their transport
    assert found["hermes_tools"]["tool_search"]["enabled"] in (False, "off")
    commands = re.findall(r"^claude mcp add .*$", section(), re.M)
    assert f"claude mcp add toolsearch -- toolsearch serve {SERVERS}" in commands
    assert "claude mcp add --transport http toolsearch http://127.0.0.1:8765/mcp" in \
        section()


def _inspector(target: list[str], *method: str, cwd: Path) -> Any:
    binary = inspector_bin()
    assert binary is not None
    done = subprocess.run([str(binary), "--cli", *target, *method], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env=env())
    assert done.returncode == 0, f"inspector failed: {done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)


@pytest.fixture
def operator(tmp_path: Path) -> tuple[Path, Path, str]:
    """A servers file in a home of its own, a folder that is not the checkout to start
    from, and the ``toolsearch`` command the snippets name."""
    home = tmp_path / "home"
    (home / "mcp").mkdir(parents=True)
    write_config(home / "mcp" / "servers.json", {"up": upstream_entry("up")})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    command = shutil.which("toolsearch", path=str(Path(sys.executable).parent))
    if command is None:
        pytest.skip("the toolsearch command is not installed beside this Python")
    return home, elsewhere, command


def test_the_stdio_snippet_serves_the_inspector(need_inspector: Path,
                                                operator: tuple[Path, Path, str]) -> None:
    home, elsewhere, command = operator
    args = [a.replace("/home/me", str(home)) for a in client_snippets()["servers"]["args"]]
    target = ["-e", f"PYTHONPATH={REPO}", "-e", f"XDG_STATE_HOME={home / 'state'}",
              command, *args]
    listed = _inspector(target, "--method", "tools/list", cwd=elsewhere)
    assert {t["name"] for t in listed["tools"]} == {"tool_search", "tool_describe", "tool_call"}
    added = _inspector(target, "--method", "tools/call", "--tool-name", "tool_call",
                       "--tool-arg", "name=mcp__up__add", 'arguments={"a": 2, "b": 3}',
                       cwd=elsewhere)
    assert text_of(added) == "5"
    assert (home / "state" / "toolsearch" / "events.jsonl").exists()


def test_the_http_command_serves_the_inspector(need_inspector: Path,
                                               operator: tuple[Path, Path, str]) -> None:
    home, elsewhere, command = operator
    assert "toolsearch serve ~/mcp/servers.json --transport http" in section()
    port = free_port()
    proc = subprocess.Popen([command, "serve", "~/mcp/servers.json", "--transport", "http",
                             "--port", str(port)], cwd=elsewhere,
                            env={**env(), "HOME": str(home),
                                 "XDG_STATE_HOME": str(home / "state")},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and not listening(port):
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port}/mcp"
        target = [url, "--transport", "http"]
        listed = _inspector(target, "--method", "tools/list", cwd=elsewhere)
        assert {t["name"] for t in listed["tools"]} == \
            {"tool_search", "tool_describe", "tool_call"}
        blind = _inspector(target, "--method", "tools/call", "--tool-name", "tool_call",
                           "--tool-arg", "name=mcp__up__echo", "arguments={}", cwd=elsewhere)
        assert blind["isError"] is True
        echoed = _inspector(target, "--method", "tools/call", "--tool-name", "tool_call",
                            "--tool-arg", "name=mcp__up__echo",
                            'arguments={"message": "hi"}', cwd=elsewhere)
        assert text_of(echoed) == "hi"
    finally:
        stop(proc)


def _flags(usage: str) -> set[str]:
    return set(re.findall(r"--[a-z][a-z-]*", usage))


def test_every_flag_the_readme_names_for_the_gateway_is_accepted() -> None:
    """The synopsis in *Use it with your client* and the app's gateway options: each flag is
    one ``--help`` lists (a flag renamed in the code and not in README was only found by a
    user's ``unrecognized arguments``)."""
    synopsis = re.search(r"```\n(toolsearch serve SOURCE\.\.\..*?)```", section(), re.S)
    assert synopsis is not None
    named = _flags(synopsis.group(1))
    assert {"--transport", "--events", "--token-env", "--call-timeout"} <= named
    shown = subprocess.run([sys.executable, "-m", "toolsearch", "serve", "--help"],
                           capture_output=True, text=True, timeout=60, env=env()).stdout
    assert named <= _flags(shown), named - _flags(shown)
    app = {"--follow", "--serve", "--events", "--token-env", "--port"} & _flags(section())
    shown = subprocess.run([sys.executable, "-m", "toolsearch", "tui", "--help"],
                           capture_output=True, text=True, timeout=60, env=env()).stdout
    assert app - {"--port"} <= _flags(shown)


def test_the_lines_the_readme_quotes_are_the_ones_printed() -> None:
    from toolsearch.gateway.cli import STOPPED_BY_CTRL_C, STOPPED_BY_SIGTERM

    text = (REPO / "README.md").read_text()
    assert f"`{STOPPED_BY_SIGTERM}`" in text and f"`{STOPPED_BY_CTRL_C}`" in text
    assert "`toolsearch serve: warning: <text>`" in text
