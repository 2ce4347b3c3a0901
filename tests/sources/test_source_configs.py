"""Server entries of Hermes and client configs (parsing only; nothing is started)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolsearch.sources import load_sources, server_configs
from toolsearch.sources.client_config import client_servers, expand_placeholders
from toolsearch.sources.hermes_config import parse_hermes_config

HERMES = {
    "mcp_servers": {
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abcdefgh12345678"},
                   "tools": {"include": ["create_issue"]}, "connect_timeout": 30},
        "remote": {"url": "https://mcp.example.com/mcp",
                   "headers": {"Authorization": "Bearer sk-live-123456789"}, "timeout": 90,
                   "tools": {"exclude": "delete_repo"}},
        "old": {"command": "uvx", "args": ["old-server"], "enabled": False},
        "legacy_sse": {"url": "https://mcp.example.com/sse"},
        "nothing": {"args": ["x"]},
        "odd": "not a mapping",
    },
}


def test_hermes_servers() -> None:
    config = parse_hermes_config(HERMES, Path("/home/u/.hermes/config.yaml"))
    by_name = {s.name: s for s in config.servers}
    assert list(by_name) == ["github", "remote", "legacy_sse", "nothing", "odd"]
    gh = by_name["github"]
    assert (gh.transport, gh.command, gh.args) == (
        "stdio", "npx", ("-y", "@modelcontextprotocol/server-github"))
    assert gh.include == ("create_issue",) and gh.connect_timeout == 30
    assert gh.keeps("create_issue") and not gh.keeps("list_issues")
    remote = by_name["remote"]
    assert (remote.transport, remote.url, remote.call_timeout) == (
        "http", "https://mcp.example.com/mcp", 90)
    assert remote.exclude == ("delete_repo",) and not remote.keeps("delete_repo")
    assert by_name["legacy_sse"].transport == "sse"
    assert "neither 'command' nor 'url'" in by_name["nothing"].problem
    assert "not a mapping" in by_name["odd"].problem


def test_problem_entries_become_error_rows(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("mcp_servers:\n  nothing: {args: [x]}\n  weird: {type: carrier-pigeon, command: x}\n")
    ws = load_sources([str(path)])
    rows = {t.name: (t.status.value, t.error) for t in ws.toolsets}
    assert rows["nothing"][0] == "error" and "neither" in rows["nothing"][1]
    assert rows["weird"][0] == "error" and "carrier-pigeon" in rows["weird"][1]


def test_claude_desktop_and_cursor() -> None:
    data = {"mcpServers": {
        "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
        "linear": {"url": "https://mcp.linear.app/mcp", "headers": {"X-Api-Key": "lin_key_1234"}},
        "off": {"command": "x", "disabled": True},
    }}
    servers, warnings = client_servers(data, source="claude_desktop_config.json")
    assert [(s.name, s.transport) for s in servers] == [("fs", "stdio"), ("linear", "http")]
    assert warnings == ()


def test_vscode_servers_and_settings() -> None:
    mcp_json = {"inputs": [{"id": "tok", "type": "promptString"}], "servers": {
        "local": {"type": "stdio", "command": "python", "args": ["server.py"], "cwd": "/srv"},
        "web": {"type": "http", "url": "http://localhost:3000/mcp",
                "headers": {"Authorization": "Bearer ${input:tok}"}},
    }}
    servers, warnings = client_servers(mcp_json, source=".vscode/mcp.json")
    assert [(s.name, s.transport, s.cwd) for s in servers] == [
        ("local", "stdio", "/srv"), ("web", "http", None)]
    assert any("${input:" in w for w in warnings)
    settings = {"editor.fontSize": 13, "mcp": {"servers": {"x": {"type": "sse", "url": "http://h/sse"}}}}
    (only,), _ = client_servers(settings, source="settings.json")
    assert only.transport == "sse"


def test_placeholders_expand_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TS_TEST_TOKEN", "from-env-value")
    assert expand_placeholders("${TS_TEST_TOKEN}/${env:TS_TEST_TOKEN}") == \
        "from-env-value/from-env-value"
    assert expand_placeholders("${NOT_SET_ANYWHERE_XYZ}") == "${NOT_SET_ANYWHERE_XYZ}"
    assert expand_placeholders("${input:x}") == "${input:x}"


def test_server_configs_and_url_sources(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"a": {"command": "x"}}}')
    configs = server_configs([str(path), "https://h.example:8443/mcp", "named=http://h/mcp"])
    assert [(c.name, c.transport) for c in configs] == [
        ("a", "stdio"), ("h_example_8443", "http"), ("named", "http")]
