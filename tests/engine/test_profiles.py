"""Profiles are objects in one registry; the engine never compares profile names (STYLE §12)."""

from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

import pytest

import toolsearch
from toolsearch.bm25 import search_catalog
from toolsearch.catalog import build_catalog
from toolsearch.classify import Registry, classify_tools
from toolsearch.config import CONFIG_KEYS, CONFIG_TABLE, ToolSearchConfig
from toolsearch.profile import Profile, as_profile
from toolsearch.profiles import PROFILE_NAMES, get_profile
from toolsearch.session import SessionState
from toolsearch.tooldefs import make_def
from toolsearch.toolsets import Toolset, ToolSpec, Workspace

PACKAGE = Path(toolsearch.__file__).resolve().parent


def test_registry_names_every_profile_module_default_first():
    modules = sorted(p.stem for p in (PACKAGE / "profiles").glob("*.py")
                     if not p.stem.startswith("_"))
    assert sorted(PROFILE_NAMES) == modules
    assert PROFILE_NAMES[:2] == ("seed", "latest")
    for name in PROFILE_NAMES:
        profile = get_profile(name)
        assert isinstance(profile, Profile) and profile.name == name
        assert get_profile(name) is profile  # one object per generation


def test_unknown_profile_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown profile 'g9'.*seed"):
        get_profile("g9")
    with pytest.raises(ValueError):
        get_profile("../seed")


def test_names_and_objects_are_accepted_at_every_boundary():
    latest = get_profile("latest")
    assert as_profile("latest") is latest and as_profile(latest) is latest
    assert as_profile(None) is get_profile("seed")
    assert ToolSearchConfig(profile="latest").profile is latest  # type: ignore[arg-type]
    assert ToolSearchConfig.from_raw({}, profile=latest).profile is latest
    defs = (make_def("mcp__gh__create_issue", "Open an issue."),)
    reg = Registry({"mcp__gh__create_issue": "mcp-gh"})
    assert build_catalog(defs, reg, "latest") is build_catalog(defs, reg, latest)
    assert classify_tools(defs, reg, profile="latest") == classify_tools(defs, reg,
                                                                         profile=latest)
    assert pickle.loads(pickle.dumps(latest)) is latest
    assert str(latest) == "latest"


def test_config_profile_is_an_object_and_switching_keeps_the_values():
    ws = Workspace("w", (Toolset("gh", "mcp", (ToolSpec("create_issue", "Open an issue."),)),))
    state = SessionState.from_workspace(ws, profile="seed").with_config(listing_max_tokens=900)
    switched = state.with_profile("latest")
    assert switched.config.profile is get_profile("latest")
    assert switched.config.listing_max_tokens == 900
    assert switched.with_profile(get_profile("latest")).config is switched.config


def test_search_goes_through_the_catalogs_profile():
    defs = (make_def("mcp__gh__create_issue", "Open an issue."),
            make_def("mcp__gh__list_commits", "List commits."))
    reg = Registry({d["function"]["name"]: "mcp-gh" for d in defs})
    for name in PROFILE_NAMES:
        catalog = build_catalog(defs, reg, name)
        assert catalog.profile is get_profile(name)
        assert search_catalog(catalog, "issue", 5) == get_profile(name).search(catalog, "issue", 5)


def test_config_key_table_is_the_one_list_of_keys():
    assert CONFIG_KEYS == tuple(k.name for k in CONFIG_TABLE)
    assert all(k.help for k in CONFIG_TABLE)
    numeric = {k.name: (k.low, k.high) for k in CONFIG_TABLE if k.type in ("int", "float")}
    assert numeric == {"threshold_pct": (0.0, 100.0), "search_default_limit": (1, "max_search_limit"),
                       "max_search_limit": (1, 50), "listing_max_tokens": (200, 60000)}
    # from_raw reads the table: every bound clamps
    low = ToolSearchConfig.from_raw({k: -10**9 for k in numeric})
    high = ToolSearchConfig.from_raw({k: 10**9 for k in numeric})
    assert (low.threshold_pct, low.search_default_limit, low.max_search_limit,
            low.listing_max_tokens) == (0.0, 1, 1, 200)
    assert (high.threshold_pct, high.search_default_limit, high.max_search_limit,
            high.listing_max_tokens) == (100.0, 50, 50, 60000)


_PROFILE_STRING = re.compile(r"""(==|!=|\bin\b|\bis\b)\s*\(?\s*["'](seed|latest|bm25f)["']""")


def test_no_engine_module_compares_a_profile_name():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if _PROFILE_STRING.search(code):
                offenders.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert offenders == []


def _module_imports(path: Path) -> set[str]:
    """Engine modules imported at module level (TYPE_CHECKING blocks excluded)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node):
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                break
            if isinstance(sub, ast.ImportFrom) and sub.level:
                base = list(package[: len(package) - sub.level + 1])
                target = ".".join([*base, *(sub.module.split(".") if sub.module else [])])
                if sub.module is None:
                    found.update(f"{target}.{a.name}" for a in sub.names)
                else:
                    found.add(target)
    return found


def test_engine_imports_have_no_cycle():
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        graph[name] = _module_imports(path)
    for name in graph:
        graph[name] = {t for t in graph[name] if t in graph and t != name}
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*stack, node, nxt]))
            if nxt not in state:
                visit(nxt, [*stack, node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])


def test_core_has_no_engine_import_inside_a_function():
    core = [p for p in PACKAGE.glob("*.py") if p.stem not in ("cli", "bench_cli")]
    found = []
    for path in [*core, *(PACKAGE / "profiles").glob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found += [f"{path.name}:{node.name}" for sub in ast.walk(node)
                          if isinstance(sub, ast.ImportFrom) and sub.level]
    assert found == []


def test_readme_key_table_is_the_config_table():
    readme = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines() if line.startswith("| `") and
            line.split("`")[1] in CONFIG_KEYS and line.count("|") == 6]
    expected = [f"| `{k.name}` | {k.type} | `{k.default}` | {k.range_text()} | {k.help} |"
                for k in CONFIG_TABLE]
    assert [" ".join(r.split()) for r in rows] == [" ".join(e.split()) for e in expected]


def test_clear_caches_empties_every_registered_cache():
    from toolsearch.caches import cache_names, clear_caches
    from toolsearch.catalog import stem
    from toolsearch.listing import seed_short_description

    defs = (make_def("mcp__gh__create_issue", "Open an issue."),)
    reg = Registry({"mcp__gh__create_issue": "mcp-gh"})
    build_catalog(defs, reg, "latest")
    seed_short_description("Open an issue.")
    assert {"catalog", "classify", "listing", "catalog.stem",
            "tooldefs.seen_defs"} <= set(cache_names())
    assert stem.cache_info().currsize > 0
    clear_caches()
    assert stem.cache_info().currsize == 0
    assert seed_short_description.cache_info().currsize == 0
    from toolsearch import catalog

    assert len(catalog._catalog_cache._items) == 0
