"""Catalog files and real dumps: loading, defaults, malformed entries, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from toolsearch.sources.catalog_file import (
    MAX_DESCRIPTION_CHARS,
    MAX_NAME_CHARS,
    is_catalog_file,
    is_real_dump,
    load_catalog_file,
    load_dump_dir,
    load_real_dump,
)
from toolsearch.sources.errors import SourceError
from toolsearch.tooldefs import EMPTY_SCHEMA
from toolsearch.toolsets import ToolsetStatus

REAL = Path("/work/shared/catalogs/real")
SCHEMA = {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}


def write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text(json.dumps(data), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def catalog(*toolsets: dict, **top: object) -> dict:
    return {"name": "demo", **top, "toolsets": list(toolsets)}


# --------------------------------------------------------------------------- the good path


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
def test_loads_every_kind_and_registers_as_spec_says(tmp_path: Path, suffix: str) -> None:
    data = catalog(
        {"name": "hermes-core", "kind": "core", "tools": [{"name": "terminal"}]},
        {"name": "firecrawl", "version": "3.2.1", "tools": [
            {"name": "scrape", "description": "Scrape one URL.", "inputSchema": SCHEMA}]},
        {"name": "kanban", "kind": "plugin", "tools": [{"name": "kanban_board"}]},
        {"name": "desktop_ui", "kind": "direct", "tools": [{"name": "read_terminal"}]},
        {"name": "loose", "kind": "unregistered", "tools": [{"name": "orphan"}]},
        context_length=200000, core=["terminal", "read_file"],
        tool_search={"listing_max_tokens": 4000},
    )
    ws = load_catalog_file(write(tmp_path, f"cat{suffix}", data))
    assert ws.warnings == ()
    assert ws.name == "demo" and ws.context_length == 200000
    assert ws.core == frozenset({"terminal", "read_file"})
    assert dict(ws.tool_search) == {"listing_max_tokens": 4000}
    assert [t.name for t in ws.toolsets] == ["hermes-core", "firecrawl", "kanban", "desktop_ui",
                                              "loose"]
    assert all(t.status is ToolsetStatus.SNAPSHOT for t in ws.toolsets)
    assert all(t.origin == str(tmp_path / f"cat{suffix}") for t in ws.toolsets)
    assert ws.toolset("firecrawl").server_version == "3.2.1"
    names = [d["function"]["name"] for d in ws.tool_defs()]
    assert names == ["terminal", "mcp__firecrawl__scrape", "kanban_board", "read_terminal", "orphan"]
    reg = ws.registry()
    assert reg.toolset_of("mcp__firecrawl__scrape") == "mcp-firecrawl"
    assert reg.toolset_of("kanban_board") == "kanban"
    assert reg.toolset_of("read_terminal") == "desktop_ui"
    assert reg.toolset_of("terminal") == "hermes-core"
    assert reg.toolset_of("orphan") is None
    assert "terminal" in reg.core_for()


def test_yaml_and_json_give_identical_workspaces(tmp_path: Path) -> None:
    data = catalog({"name": "github", "tools": [
        {"name": "create_issue", "description": "Open an issue.\nSecond line.", "inputSchema": SCHEMA},
        {"name": "list_issues", "description": "List issues ✓ 日本"}]})
    a = load_catalog_file(write(tmp_path, "a.yaml", data))
    b = load_catalog_file(write(tmp_path, "b.json", data))
    assert a.tool_defs() == b.tool_defs() and a.registry() == b.registry()


def test_defaults_and_schema_aliases(tmp_path: Path) -> None:
    data = {"toolsets": [{"name": "srv", "tools": [
        {"name": "a"},
        {"name": "b", "input_schema": SCHEMA},
        {"name": "c", "parameters": SCHEMA},
        {"name": "d", "inputSchema": None, "description": None},
    ]}]}
    ws = load_catalog_file(write(tmp_path, "defaults.yaml", data))
    assert ws.name == "defaults"  # file stem when the catalog has no name
    ts = ws.toolsets[0]
    assert ts.kind == "mcp"
    assert [dict(t.input_schema) == dict(EMPTY_SCHEMA) for t in ts.tools] == [True, False, False, True]
    assert ts.tools[1].input_schema == SCHEMA | {"required": ("url",)}
    assert ws.tool_defs()[0]["function"]["parameters"] == {"type": "object", "properties": {}}
    assert ts.tools[3].description == ""
    assert ws.context_length is None and ws.core is None and ws.tool_search is None


def test_server_names_with_spaces_are_sanitised(tmp_path: Path) -> None:
    ws = load_catalog_file(write(tmp_path, "c.yaml", catalog(
        {"name": "Airbnb MCP Server", "tools": [{"name": "search listings"}]})))
    assert ws.toolsets[0].name == "Airbnb MCP Server"
    assert ws.tool_defs()[0]["function"]["name"] == "mcp__Airbnb_MCP_Server__search_listings"
    assert ws.registry().toolset_of("mcp__Airbnb_MCP_Server__search_listings") == \
        "mcp-Airbnb_MCP_Server"


def test_error_toolset_is_read_back_as_error(tmp_path: Path) -> None:
    ws = load_catalog_file(write(tmp_path, "c.yaml", catalog(
        {"name": "down", "error": "connection refused", "tools": []})))
    assert ws.toolsets[0].status is ToolsetStatus.ERROR
    assert ws.toolsets[0].error == "connection refused"


# --------------------------------------------------------------------------- malformed entries

GOOD = {"name": "ok", "description": "Fine."}
HUGE = "x" * (MAX_DESCRIPTION_CHARS + 1)

TOOL_CASES = [
    ("no name", {"description": "nameless"}, "tool has no name"),
    ("null name", {"name": None}, "tool has no name"),
    ("blank name", {"name": "   "}, "tool has no name"),
    ("int name", {"name": 42}, "tool name is not a string"),
    ("list name", {"name": ["a"]}, "tool name is not a string"),
    ("long name", {"name": "n" * (MAX_NAME_CHARS + 1)}, "tool name is too long"),
    ("list schema", {"name": "bad", "inputSchema": ["type", "object"]}, "inputSchema is not an object"),
    ("string schema", {"name": "bad", "inputSchema": "object"}, "inputSchema is not an object"),
    ("alias schema", {"name": "bad", "parameters": 3}, "parameters is not an object"),
    ("huge description", {"name": "bad", "description": HUGE}, "description is too large"),
    ("int description", {"name": "bad", "description": 7}, "description is not a string"),
    ("not a mapping", ["name", "bad"], "tool entry is not a mapping"),
    ("duplicate", {"name": "ok", "description": "again"}, "duplicate tool name in this toolset"),
]


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@pytest.mark.parametrize(("case", "entry", "message"), TOOL_CASES, ids=[c[0] for c in TOOL_CASES])
def test_malformed_tool_is_skipped_with_a_warning_naming_file_and_entry(
    tmp_path: Path, suffix: str, case: str, entry: object, message: str
) -> None:
    path = write(tmp_path, f"catalog{suffix}", catalog(
        {"name": "first", "tools": [{"name": "x"}]},
        {"name": "srv", "tools": [GOOD, entry, {"name": "after"}]},
    ))
    ws = load_catalog_file(path)
    assert [t.name for t in ws.toolsets[1].tools] == ["ok", "after"]
    assert ws.toolsets[1].tools[0].description == "Fine."  # the first of two duplicates wins
    assert len(ws.warnings) == 1, ws.warnings
    warning = ws.warnings[0]
    assert warning.startswith(f"catalog{suffix}: toolsets[1].tools[1]")
    assert "skipped" in warning and message in warning
    assert "\n" not in warning


def test_schema_that_is_not_plain_json_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("toolsets:\n- name: s\n  tools:\n  - name: when\n    inputSchema:\n"
                    "      type: object\n      default: 2024-01-01\n  - name: fine\n")
    ws = load_catalog_file(path)
    assert [t.name for t in ws.toolsets[0].tools] == ["fine"]
    assert "c.yaml: toolsets[0].tools[0] (s/when): skipped: inputSchema is not plain JSON" in \
        ws.warnings[0]


def test_same_exposed_name_in_two_toolsets_keeps_the_first(tmp_path: Path) -> None:
    ws = load_catalog_file(write(tmp_path, "c.yaml", catalog(
        {"name": "alpha", "kind": "plugin", "tools": [{"name": "shared"}, {"name": "a_only"}]},
        {"name": "beta", "kind": "direct", "tools": [{"name": "shared"}, {"name": "b_only"}]},
        {"name": "srv", "tools": [{"name": "a.b"}, {"name": "a_b"}]},  # same after sanitising
    )))
    assert [t.name for t in ws.toolsets[1].tools] == ["b_only"]
    assert [t.name for t in ws.toolsets[2].tools] == ["a.b"]
    assert ws.warnings == (
        "c.yaml: toolsets[1].tools[0] (beta/shared): skipped: exposed name 'shared' already "
        "belongs to toolset 'alpha'",
        "c.yaml: toolsets[2].tools[1] (srv/a_b): skipped: exposed name 'mcp__srv__a_b' already "
        "belongs to toolset 'srv'",
    )
    names = [d["function"]["name"] for d in ws.tool_defs()]
    assert len(names) == len(set(names))


TOOLSET_CASES = [
    ("unknown kind", {"name": "s", "kind": "magic", "tools": []}, "unknown kind 'magic'"),
    ("kind not string", {"name": "s", "kind": 3, "tools": []}, "unknown kind 3"),
    # named as written: it was shown lowercased and stripped ('servr')
    ("kind as written", {"name": "s", "kind": " Servr", "tools": []}, "unknown kind ' Servr'"),
    ("no name", {"kind": "mcp", "tools": []}, "toolset has no name"),
    ("tools not list", {"name": "s", "tools": {"a": 1}}, "tools is not a list"),
    ("not a mapping", "just text", "toolset entry is not a mapping"),
    ("duplicate", {"name": "keep", "tools": []}, "toolset 'mcp-keep' already defined by 'keep'"),
]


@pytest.mark.parametrize(("case", "entry", "message"), TOOLSET_CASES,
                         ids=[c[0] for c in TOOLSET_CASES])
def test_malformed_toolset_is_skipped_with_a_warning(
    tmp_path: Path, case: str, entry: object, message: str
) -> None:
    ws = load_catalog_file(write(tmp_path, "cat.yaml", catalog(
        {"name": "keep", "tools": [{"name": "t"}]}, entry)))
    assert [t.name for t in ws.toolsets] == ["keep"]
    assert len(ws.warnings) == 1
    assert ws.warnings[0].startswith("cat.yaml: toolsets[1]")
    assert message in ws.warnings[0] and "skipped" in ws.warnings[0]


@pytest.mark.parametrize(("key", "value", "message"), [
    ("context_length", -5, "context_length: ignored"),
    ("context_length", "lots", "context_length: ignored"),
    ("context_length", True, "context_length: ignored"),
    ("core", "terminal", "core: ignored"),
    ("core", ["terminal", 5], "core[1]: skipped"),
    ("tool_search", "fast", "tool_search: not a mapping"),
    ("name", 12, "name: ignored"),
    ("toolsets", {"a": 1}, "toolsets: ignored"),
])
def test_bad_top_level_values_warn_and_fall_back(
    tmp_path: Path, key: str, value: object, message: str
) -> None:
    data = {"name": "x", "toolsets": [], key: value}
    ws = load_catalog_file(write(tmp_path, "top.yaml", data))
    assert any(w.startswith("top.yaml: ") and message in w for w in ws.warnings), ws.warnings


def test_tool_search_false_means_off_and_version_numbers_become_text(tmp_path: Path) -> None:
    ws = load_catalog_file(write(tmp_path, "c.yaml", {
        "tool_search": False, "context_length": "128000",
        "toolsets": [{"name": "s", "version": 1.5, "tools": []}]}))
    assert dict(ws.tool_search) == {"enabled": "off"}
    assert ws.context_length == 128000
    assert ws.toolsets[0].server_version == "1.5"
    assert ws.warnings == ()


def test_missing_toolsets_is_a_warning_not_an_error(tmp_path: Path) -> None:
    ws = load_catalog_file(write(tmp_path, "empty.yaml", {"name": "nothing"}))
    assert ws.toolsets == () and "toolsets: missing" in ws.warnings[0]


# --------------------------------------------------------------------------- bytes and errors


def test_non_utf8_bytes_warn_and_skip_only_the_entries_that_hold_them(tmp_path: Path) -> None:
    path = tmp_path / "latin.yaml"
    path.write_bytes(
        b"toolsets:\n- name: s\n  tools:\n"
        b"  - name: good\n    description: plain\n"
        b"  - name: bad\n    description: caf\xe9 au lait\n"
        b"  - name: n\xffme\n"
    )
    ws = load_catalog_file(path)
    assert [t.name for t in ws.toolsets[0].tools] == ["good"]
    assert ws.warnings[0].startswith("latin.yaml: not valid UTF-8 (first bad byte at offset")
    assert "latin.yaml: toolsets[0].tools[1] (s/bad): skipped: description is not valid UTF-8" in \
        ws.warnings
    assert "latin.yaml: toolsets[0].tools[2] (s): skipped: tool name is not valid UTF-8" in \
        ws.warnings


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"toolsets": [{"name": "s"}]}).encode())
    assert load_catalog_file(path).warnings == ()


@pytest.mark.parametrize(("name", "content", "message"), [
    ("bad.yaml", "toolsets: [unclosed\n", "not valid YAML or JSON"),
    ("bad.json", '{"toolsets": [', "not valid JSON"),
    ("list.yaml", "- a\n- b\n", "expected a mapping at the top level, got list"),
    ("scalar.json", "42", "expected a mapping at the top level, got integer"),
    ("empty.yaml", "  \n", "file is empty"),
    ("tab.yaml", "a:\n\tb: 1\n", "not valid YAML or JSON"),
])
def test_unreadable_files_raise_one_clear_line(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SourceError) as info:
        load_catalog_file(path)
    text = str(info.value)
    assert text.startswith(str(path)) and message in text and "\n" not in text


def test_missing_file_raises(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot read"):
        load_catalog_file(tmp_path / "nope.yaml")


# --------------------------------------------------------------------------- real dumps


def dump(server: str, *names: str, version: str | None = None) -> dict:
    data: dict = {"server": server, "license": "MIT",
                  "tools": [{"name": n, "description": f"{n} tool", "inputSchema": SCHEMA,
                             "annotations": {"readOnlyHint": True}} for n in names]}
    if version:
        data["serverInfo"] = {"name": server, "version": version}
    return data


def test_predicates() -> None:
    assert is_real_dump(dump("s", "a")) and not is_catalog_file(dump("s", "a"))
    assert is_catalog_file({"toolsets": []}) and not is_real_dump({"toolsets": []})
    assert not is_real_dump({"server": 3, "tools": []})
    assert not is_real_dump([1]) and not is_catalog_file("toolsets")
    assert not is_catalog_file({"toolsets": "x"})


def test_load_real_dump(tmp_path: Path) -> None:
    path = write(tmp_path, "airbnb.json", dump("Airbnb MCP Server", "search", "details",
                                                version="0.1.0"))
    ws = load_real_dump(path)
    assert ws.name == "Airbnb MCP Server"
    (ts,) = ws.toolsets
    assert ts.kind == "mcp" and ts.server_version == "0.1.0" and ts.origin == str(path)
    assert ts.toolset_id == "mcp-Airbnb_MCP_Server"
    assert [d["function"]["name"] for d in ws.tool_defs()] == [
        "mcp__Airbnb_MCP_Server__search", "mcp__Airbnb_MCP_Server__details"]
    assert load_catalog_file(path).tool_defs() == ws.tool_defs()  # detected and delegated
    with pytest.raises(SourceError, match="not a server dump"):
        load_real_dump(write(tmp_path, "cat.json", {"toolsets": []}))


def test_load_dump_dir_recurses_and_skips_index(tmp_path: Path) -> None:
    write(tmp_path, "index.json", {"files": []})
    write(tmp_path, "b.json", dump("beta", "x", "y"))
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub", "a.json", dump("alpha", "z"))
    write(tmp_path, "a.json", dump("alpha", "other"))  # same server again
    write(tmp_path, "notes.json", {"hello": "world"})
    ws = load_dump_dir(tmp_path)
    assert [t.name for t in ws.toolsets] == ["alpha", "beta"]
    assert ws.toolsets[0].tools[0].name == "other"  # a.json sorts before sub/a.json
    assert "notes.json: skipped: not a server dump" in ws.warnings
    assert any(w.startswith("sub/a.json: skipped: toolset 'mcp-alpha'") for w in ws.warnings)
    assert load_catalog_file(tmp_path).tool_defs() == ws.tool_defs()


def test_empty_dump_dir_raises(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no server dumps"):
        load_dump_dir(tmp_path)


@pytest.mark.skipif(not REAL.is_dir(), reason=f"{REAL} (shared real catalogs) is not available")
def test_all_real_dumps_load() -> None:
    ws = load_dump_dir(REAL)
    assert ws.warnings == ()
    assert len(ws.toolsets) == 125
    assert sum(len(t.tools) for t in ws.toolsets) == 4932
    defs = ws.tool_defs()
    assert len(defs) == 4932
    names = [d["function"]["name"] for d in defs]
    assert len(set(names)) == len(names) and all(len(n) <= 64 for n in names)
    index = json.loads((REAL / "index.json").read_text())
    assert index["total_tools"] == 4932
    assert ws.toolset("Airbnb MCP Server") is not None


def test_a_document_is_parsed_once_per_content(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolving a SOURCE again reuses its parse; an edited file (same path) is parsed anew."""
    from toolsearch.sources import catalog_file

    parses: list[str] = []
    real = catalog_file._parse
    monkeypatch.setattr(catalog_file, "_parse",
                        lambda path, text, *more: parses.append(text) or real(path, text, *more))
    path = tmp_path / "cat.yaml"
    path.write_text("name: one\ntoolsets: []\n")
    first = catalog_file.read_document(path)[0]
    assert catalog_file.read_document(path)[0] == first == {"name": "one", "toolsets": []}
    assert len(parses) == 1
    path.write_text("name: two\ntoolsets: []\n")  # same size, new content
    assert catalog_file.read_document(path)[0]["name"] == "two"
    assert len(parses) == 2


def test_a_key_written_twice_is_warned_with_the_one_read(tmp_path: Path) -> None:
    """A key written twice in one mapping kept the last value without a word (JSON and
    PyYAML both do, and so does Hermes): a first ``toolsets`` list vanished silently."""
    tool = '{"name": "t", "description": "d"}'
    doubled = tmp_path / "c.json"
    doubled.write_text('{"name": "c", "toolsets": [{"name": "first", "tools": [' + tool + ']}],'
                       ' "toolsets": [{"name": "second", "tools": [' + tool + ']}]}')
    ws = load_catalog_file(doubled)
    assert [t.name for t in ws.toolsets] == ["second"]
    assert ws.warnings == ("c.json: duplicate key 'toolsets': only the last one is read",)
    doubled = tmp_path / "c.yaml"
    doubled.write_text("name: c\ntoolsets:\n- name: s\n  tools:\n  - name: t\n"
                       "    description: one\n    description: two\n"
                       "base: &b {x: 1}\nmerged: {<<: *b, <<: *b, 1: a, '1': b}\n")
    ws = load_catalog_file(doubled)
    assert ws.tool_defs()[0]["function"]["description"] == "two"
    # a merge key twice and 1 beside '1' (two different keys) are not duplicates
    assert ws.warnings == ("c.yaml: duplicate key 'description' (line 7): only the last one "
                           "is read",)
    assert load_catalog_file(Path(__file__).parents[2] / "sample_catalogs" /
                             "seed-demo.yaml").warnings == ()
