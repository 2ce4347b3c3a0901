"""Every CLI command on a Hermes config and a Claude Desktop config pointing at real servers:
an SDK stdio server, a streamable HTTP server on 127.0.0.1, and installed reference servers."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from source_helpers import SERVERS

pytestmark = pytest.mark.live
SECRET = "sk-live-cli-0b5e77"


def toolsearch(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "toolsearch", *args], capture_output=True,
                          text=True, timeout=180)
    assert SECRET not in proc.stdout + proc.stderr
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}: {proc.stderr}")
    return proc


@pytest.fixture()
def hermes_config(tmp_path: Path, reference_bin: Callable[[str], Path], http_url: str) -> Path:
    config = {
        "model": "some-model",
        "mcp_servers": {
            "demo": {"command": sys.executable, "args": [str(SERVERS / "demo_server.py")],
                     "env": {"DEMO_TOKEN": SECRET}},
            "time": {"command": str(reference_bin("mcp-server-time"))},
            "web": {"url": http_url},
            "broken": {"command": str(tmp_path / "no-such-server")},
        },
        "tools": {"tool_search": {"threshold_pct": 5}},
    }
    path = tmp_path / "config.yaml"
    path.write_text("# hermes\n" + yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture()
def claude_config(tmp_path: Path, reference_bin: Callable[[str], Path]) -> Path:
    config = {"mcpServers": {
        "fs": {"command": str(reference_bin("mcp-server-filesystem")), "args": [str(tmp_path)]},
        "everything": {"command": str(reference_bin("mcp-server-everything"))},
    }}
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def test_hermes_config_end_to_end(hermes_config: Path, tmp_path: Path) -> None:
    data = json.loads(toolsearch("assemble", str(hermes_config), "--json").stdout)
    rows = {row["name"]: row for row in data["toolsets"]}
    assert rows["mcp-demo"]["status"] == "connected" and rows["mcp-demo"]["tools"] == 4
    assert rows["mcp-time"]["status"] == "connected" and rows["mcp-time"]["tools"] >= 2
    assert rows["mcp-web"]["status"] == "connected"
    assert rows["mcp-broken"]["status"] == "error" and rows["mcp-broken"]["error"]
    assert data["activated"] and "mcp__time__get_current_time" in data["deferred"]

    hits = json.loads(toolsearch("search", str(hermes_config), "-q", "current time",
                                 "--json").stdout)["matches"]
    assert hits[0]["name"] == "mcp__time__get_current_time"

    explained = json.loads(toolsearch("explain", str(hermes_config), "mcp__demo__add",
                                      "--json").stdout)
    assert explained["status"] == "deferred" and explained["toolset"] == "mcp-demo"

    ok = json.loads(toolsearch("call", str(hermes_config), "tool_call",
                               '{"name": "mcp__demo__add", "arguments": {"a": 2, "b": 40}}',
                               "--json").stdout)
    assert ok["activity"]["outcome"] == "ok" and "42" in json.dumps(ok["result"])
    failed = json.loads(toolsearch("call", str(hermes_config), "tool_call",
                                   '{"name": "mcp__demo__explode", "arguments": {}}',
                                   "--json").stdout)
    assert failed["activity"]["outcome"] == "error" and "exploded" in failed["result"]["error"]
    blind = json.loads(toolsearch("call", str(hermes_config), "tool_call",
                                  '{"name": "mcp__time__convert_time"}', "--json").stdout)
    assert blind["activity"]["outcome"] == "missing_args"
    assert "The tool was NOT invoked." in blind["result"]["error"]

    snap = tmp_path / "snap.yaml"
    toolsearch("snapshot", str(hermes_config), "-o", str(snap))
    assert SECRET not in snap.read_text(encoding="utf-8")
    again = json.loads(toolsearch("assemble", str(snap), "--json").stdout)
    assert again["deferred"] == data["deferred"]

    before = hermes_config.read_text(encoding="utf-8")
    toolsearch("tune", str(hermes_config), "--set", "listing_max_tokens=300", "--save")
    after = hermes_config.read_text(encoding="utf-8")
    assert "listing_max_tokens: 300" in after
    assert after.replace("    listing_max_tokens: 300\n", "") == before
    assert hermes_config.with_name("config.yaml.bak").read_text(encoding="utf-8") == before


def test_claude_desktop_config_end_to_end(claude_config: Path, tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello from toolsearch\n", encoding="utf-8")
    data = json.loads(toolsearch("assemble", str(claude_config), "--json").stdout)
    assert {row["name"]: row["status"] for row in data["toolsets"]} == {
        "mcp-fs": "connected", "mcp-everything": "connected"}
    hits = json.loads(toolsearch("search", str(claude_config), "-q", "read text file",
                                 "--json").stdout)["matches"]
    assert any(h["name"].startswith("mcp__fs__read") for h in hits)
    described = json.loads(toolsearch("call", str(claude_config), "tool_describe",
                                      '{"name": "mcp__fs__read_text_file"}', "--json").stdout)
    assert described["activity"]["outcome"] == "ok"
    assert "path" in described["result"]["parameters"]["properties"]
    read = json.loads(toolsearch(
        "call", str(claude_config), "tool_call",
        json.dumps({"name": "mcp__fs__read_text_file",
                    "arguments": {"path": str(tmp_path / "hello.txt")}}), "--json").stdout)
    assert read["activity"]["outcome"] == "ok"
    assert "hello from toolsearch" in json.dumps(read["result"])
    scoped = json.loads(toolsearch("call", str(claude_config), "tool_call",
                                   '{"name": "mcp__fs__list_allowed_directories"}',
                                   "--scope", "everything", "--json").stdout)
    assert scoped["activity"]["outcome"] == "out_of_scope"
    assert toolsearch("explain", str(claude_config), "mcp__everything__echo").returncode == 0
    snap = tmp_path / "snap.json"
    toolsearch("snapshot", str(claude_config), "-o", str(snap))
    assert json.loads(snap.read_text(encoding="utf-8"))["toolsets"][0]["name"] == "fs"
    refused = toolsearch("tune", str(claude_config), "--set", "threshold_pct=2", "--save",
                         check=False)
    assert refused.returncode == 1 and "Hermes config" in refused.stderr
