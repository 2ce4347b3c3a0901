"""The snapshot writer: round trips, determinism, atomic writes, no secrets."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsearch.sources.catalog_file import load_catalog_file, load_dump_dir
from toolsearch.sources.errors import SourceError
from toolsearch.sources.samples import sample_path
from toolsearch.sources.snapshot import catalog_text, write_catalog_file
from toolsearch.tooldefs import thaw
from toolsearch.toolsets import Toolset, ToolsetStatus, ToolSpec, Workspace

REAL = Path("/work/shared/catalogs/real")
SCHEMA = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "description": "The URL, such as https://example.com/a?b=1"},
        "depth": {"type": "integer", "minimum": 0, "default": 2},
        "tags": {"type": "array", "items": {"type": "string"}, "default": []},
        "mode": {"type": "string", "enum": ["yes", "no", "on", "off", "null", "1.0", "~"]},
        "nested": {"type": "object", "properties": {"deep": {"type": ["string", "null"]}}},
    },
    "required": ["url"],
}


def workspace() -> Workspace:
    return Workspace(
        name="mixed",
        context_length=128000,
        core=frozenset({"terminal", "read_file"}),
        tool_search={"listing_max_tokens": 2000, "defer": ["todo_list"], "enabled": "on"},
        toolsets=(
            Toolset("hermes-core", "core", (ToolSpec("terminal", "Run a command."),)),
            Toolset("Airbnb MCP Server", "mcp", (
                ToolSpec("search", "Search listings.\n\n  Indented second paragraph: ok  ", SCHEMA),
                ToolSpec("yes", "A name YAML would read as a boolean."),
                ToolSpec("1.0", "'quoted' \"text\" # not a comment: {x}"),
                ToolSpec("unicode", "Café ✓ 日本語 \u2014 emoji 🎉\ttab"),
            ), server_version="1.10", origin="npx -y airbnb --token sk-secretsecret"),
            Toolset("kanban", "plugin", (ToolSpec("kanban_board", "", {"type": "object"}),)),
            Toolset("desktop_ui", "direct", (ToolSpec("read_terminal", "Read it."),)),
            Toolset("loose", "unregistered", (ToolSpec("orphan", "No home."),)),
        ),
    )


def assert_same(a: Workspace, b: Workspace) -> None:
    assert a.tool_defs() == b.tool_defs()
    assert a.registry() == b.registry()
    assert (a.context_length, a.core) == (b.context_length, b.core)
    assert thaw(a.tool_search) == thaw(b.tool_search)
    assert [(t.name, t.kind, t.server_version, t.status, t.error) for t in a.toolsets] == \
        [(t.name, t.kind, t.server_version, t.status, t.error) for t in b.toolsets]


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
def test_round_trip(tmp_path: Path, suffix: str) -> None:
    original = workspace()
    path = tmp_path / f"snap{suffix}"
    write_catalog_file(original, path)
    loaded = load_catalog_file(path)
    assert loaded.warnings == ()
    assert loaded.name == "mixed"
    assert_same(original, loaded)
    # load -> write -> load gives the same bytes and the same workspace again
    again = tmp_path / f"again{suffix}"
    write_catalog_file(loaded, again)
    assert again.read_bytes() == path.read_bytes()
    assert_same(loaded, load_catalog_file(again))


def test_format_follows_suffix(tmp_path: Path) -> None:
    write_catalog_file(workspace(), tmp_path / "a.json")
    doc = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert list(doc) == ["name", "context_length", "core", "tool_search", "toolsets"]
    assert doc["core"] == ["read_file", "terminal"]
    assert doc["toolsets"][1] | {"tools": None} == {
        "name": "Airbnb MCP Server", "kind": "mcp", "version": "1.10", "tools": None}
    assert doc["toolsets"][1]["tools"][0]["inputSchema"] == SCHEMA
    text = (write_catalog_file(workspace(), tmp_path / "a.yaml"), tmp_path / "a.yaml")[1]
    assert text.read_text(encoding="utf-8").startswith("name: mixed\ncontext_length: 128000\n")


def test_name_override_and_optional_keys_left_out(tmp_path: Path) -> None:
    bare = Workspace(toolsets=(Toolset("s", "mcp", (ToolSpec("t"),)),))
    text = catalog_text(bare, name="renamed")
    assert text.splitlines()[0] == "name: renamed"
    for key in ("context_length", "core", "tool_search", "version", "error", "origin"):
        assert f"{key}:" not in text
    write_catalog_file(bare, tmp_path / "stem.yaml")
    assert load_catalog_file(tmp_path / "stem.yaml").name == "stem"


def test_origins_and_secrets_are_never_written(tmp_path: Path) -> None:
    errored = Toolset("down", "mcp", status=ToolsetStatus.ERROR,
                      error="spawn failed: API_TOKEN=abcd1234efgh Authorization: Bearer xyz987654",
                      origin="/usr/bin/server --api-key sk-secretsecret")
    ws = Workspace(name="w", toolsets=(*workspace().toolsets, errored),
                   origins=("/home/me/.hermes/config.yaml",))
    for suffix in (".yaml", ".json"):
        path = tmp_path / f"s{suffix}"
        write_catalog_file(ws, path)
        text = path.read_text(encoding="utf-8")
        for secret in ("sk-secretsecret", "abcd1234efgh", "xyz987654", "npx", ".hermes"):
            assert secret not in text
        back = load_catalog_file(path)
        down = back.toolset("down")
        assert down is not None and down.status is ToolsetStatus.ERROR
        assert down.error.startswith("spawn failed: API_TOKEN=")


def test_atomic_write_leaves_no_temp_and_keeps_mode(tmp_path: Path) -> None:
    path = tmp_path / "cat.yaml"
    path.write_text("toolsets: []\n", encoding="utf-8")  # an older catalog
    os.chmod(path, 0o640)
    write_catalog_file(workspace(), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cat.yaml"]


def test_write_errors_are_source_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="use a .yaml, .yml or .json"):
        write_catalog_file(workspace(), tmp_path / "cat.txt")
    with pytest.raises(SourceError, match="cannot write"):
        write_catalog_file(workspace(), tmp_path / "missing" / "cat.yaml")
    target = tmp_path / "dir.yaml"
    target.mkdir()
    with pytest.raises(SourceError, match="cannot write"):
        write_catalog_file(workspace(), target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.yaml"]


def test_sample_round_trip(tmp_path: Path) -> None:
    path = sample_path("seed-demo")
    if path is None:
        pytest.skip("sample catalogs not installed")
    original = load_catalog_file(path)
    write_catalog_file(original, tmp_path / "seed.yaml")
    assert_same(original, load_catalog_file(tmp_path / "seed.yaml"))


@pytest.mark.skipif(not REAL.is_dir(), reason=f"{REAL} (shared real catalogs) is not available")
def test_real_dumps_round_trip(tmp_path: Path) -> None:
    original = load_dump_dir(REAL)
    write_catalog_file(original, tmp_path / "real.json")
    assert_same(original, load_catalog_file(tmp_path / "real.json"))
    # YAML on a sample of servers with awkward text (the whole corpus takes seconds)
    some = Workspace(name="some", toolsets=original.toolsets[::9])
    write_catalog_file(some, tmp_path / "some.yaml")
    back = load_catalog_file(tmp_path / "some.yaml")
    assert back.warnings == ()
    assert_same(some, back)


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | _text
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=10,
)
_tool = st.builds(
    ToolSpec,
    name=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20)
    .filter(lambda s: s.strip() == s and s != ""),
    description=_text,
    input_schema=st.dictionaries(_text, _json, max_size=4),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tools=st.lists(_tool, max_size=5, unique_by=lambda t: t.name),
       kind=st.sampled_from(["mcp", "plugin", "direct", "core", "unregistered"]))
def test_round_trip_property(tmp_path: Path, tools: list[ToolSpec], kind: str) -> None:
    ws = Workspace(name="p", toolsets=(Toolset("srv", kind, tuple(tools)),))
    # mcp sanitising can map two names onto one; the loader then (rightly) skips the second
    exposed = [ws.toolsets[0].exposed_name(t) for t in tools]
    if len(set(exposed)) != len(exposed):
        return
    for suffix in (".yaml", ".json"):
        path = tmp_path / f"prop{suffix}"
        write_catalog_file(ws, path)
        back = load_catalog_file(path)
        assert back.warnings == ()
        assert back.tool_defs() == ws.tool_defs()
