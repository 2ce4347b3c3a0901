"""Kind detection from content, SOURCE resolution and clear errors (no servers started)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from source_helpers import REAL_DUMPS

from toolsearch.sources import SourceError, hermes_config_path, load_sources, resolve_source
from toolsearch.sources.detect import (
    CATALOG,
    DUMP,
    DUMP_DIR,
    HERMES,
    MCP_SERVERS,
    VSCODE,
    detect_kind,
)

CATALOG_DOC = {"name": "mini", "toolsets": [{"name": "kb", "kind": "mcp", "tools": [
    {"name": "lookup", "description": "Look up an entry.", "inputSchema": {"type": "object"}}]}]}


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (CATALOG_DOC, CATALOG),
        ({"server": "fetch", "tools": []}, DUMP),
        ({"mcp_servers": {"a": {"command": "x"}}}, HERMES),
        ({"model": {"default": "x"}, "tools": {"tool_search": {"enabled": "on"}}}, HERMES),
        ({"model": {"default": "x"}}, HERMES),
        ({"mcpServers": {"a": {"command": "npx"}}}, MCP_SERVERS),
        ({"globalShortcut": "", "mcpServers": {}}, MCP_SERVERS),
        ({"servers": {"a": {"type": "stdio", "command": "x"}}, "inputs": []}, VSCODE),
        ({"mcp": {"servers": {"a": {"type": "http", "url": "http://h/mcp"}}}}, VSCODE),
        ({"hello": "world"}, None),
        (["a", "list"], None),
        ("just text", None),
    ],
)
def test_detect_kind(data: object, kind: str | None) -> None:
    assert detect_kind(data) == kind


def _write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if name.endswith(".json") else _yaml(data))
    return path


def _yaml(data: object) -> str:
    import yaml

    return yaml.safe_dump(data)


def test_kind_comes_from_content_not_the_file_name(tmp_path: Path) -> None:
    # A Claude Desktop config saved as .yaml and a catalog saved as "config.json".
    client = _write(tmp_path, "weird.yaml", {"mcpServers": {"a": {"command": "x"}}})
    catalog = _write(tmp_path, "config.json", CATALOG_DOC)
    assert resolve_source(str(client)).kind == MCP_SERVERS
    assert resolve_source(str(catalog)).kind == CATALOG


def test_unknown_content_is_a_clear_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "notes.yaml", {"title": "shopping", "items": ["milk"]})
    with pytest.raises(SourceError) as err:
        load_sources([str(path)])
    message = str(err.value)
    assert "cannot tell what kind of source" in message and "title" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("name", "text", "needle"),
    [
        ("bad.json", '{"mcpServers": {', "not valid JSON"),
        ("bad.yaml", "a: [1, 2\nb: }", "not valid YAML"),
        ("empty.yaml", "   \n", "empty"),
    ],
)
def test_unparsable_files_are_clear_errors(tmp_path: Path, name: str, text: str,
                                           needle: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(SourceError, match=needle):
        load_sources([str(path)])


def test_missing_source_names_the_samples() -> None:
    with pytest.raises(SourceError, match="no such file, and not a sample catalog"):
        load_sources(["/definitely/not/here.yaml"])


def test_no_sources_is_an_error() -> None:
    with pytest.raises(SourceError):
        load_sources([])


def test_catalog_file_loads_through_load_sources(tmp_path: Path) -> None:
    path = _write(tmp_path, "mini.yaml", CATALOG_DOC)
    ws = load_sources([str(path)])
    assert [t.name for t in ws.toolsets] == ["kb"]
    assert ws.tool_defs()[0]["function"]["name"] == "mcp__kb__lookup"


@pytest.mark.skipif(not REAL_DUMPS.is_dir(), reason="../shared/catalogs/real not present")
def test_real_dumps_file_and_folder() -> None:
    one = resolve_source(str(REAL_DUMPS / "fetch.json"))
    assert one.kind == DUMP
    ws = load_sources([str(REAL_DUMPS / "fetch.json"), str(REAL_DUMPS / "filesystem.json")])
    assert [t.name for t in ws.toolsets] == ["fetch", "filesystem"]
    assert all(t.tools for t in ws.toolsets)
    assert resolve_source(str(REAL_DUMPS)).kind == DUMP_DIR
    everything = load_sources([str(REAL_DUMPS)])
    assert len(everything.toolsets) >= 10


def test_hermes_config_path_finds_the_config(tmp_path: Path) -> None:
    catalog = _write(tmp_path, "mini.yaml", CATALOG_DOC)
    config = _write(tmp_path, "config.yaml", {"tools": {"tool_search": {"enabled": "on"}}})
    assert hermes_config_path([str(catalog)]) is None
    assert hermes_config_path([str(catalog), str(config)]) == config
    assert hermes_config_path(["http://127.0.0.1:9/mcp"]) is None


def test_hermes_tool_search_block_reaches_the_workspace(tmp_path: Path) -> None:
    config = _write(tmp_path, "config.yaml", {
        "model": {"default": "m"},
        "tools": {"tool_search": {"threshold_pct": 7, "listing_max_tokens": 2500}},
    })
    ws = load_sources([str(config)])
    assert dict(ws.tool_search or {}) == {"threshold_pct": 7, "listing_max_tokens": 2500}
    assert ws.toolsets == ()


@pytest.mark.parametrize(("raw", "expected"), [(True, {}), (False, {"enabled": "off"}),
                                               (None, {})])
def test_legacy_tool_search_scalars(tmp_path: Path, raw: object, expected: dict) -> None:
    config = _write(tmp_path, "config.yaml", {"model": {}, "tools": {"tool_search": raw}})
    assert dict(load_sources([str(config)]).tool_search or {}) == expected
