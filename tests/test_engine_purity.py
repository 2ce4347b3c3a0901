"""The engine stays pure (STYLE §2): no textual, rich or tui, checked at runtime and statically."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import toolsearch

FORBIDDEN = ("textual", "rich", "tui")
PACKAGE_DIR = Path(toolsearch.__file__).resolve().parent
#: Entry-point scripts that run on import (``python -m toolsearch``); never imported here.
NOT_IMPORTABLE = {"toolsearch.__main__"}
#: CLI modules may import the ``tui`` package lazily, inside a function, for the app and its
#: benchmark subcommands only (STYLE §1: "imports tui lazily, only for the tui subcommand").

_PROBE = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys
    import toolsearch

    skip = set(json.loads(sys.argv[1]))
    imported, missing_optional, errors = [], [], {}
    names = sorted(m.name for m in pkgutil.walk_packages(toolsearch.__path__, "toolsearch.",
                                                         onerror=lambda name: None))
    for name in names:
        if name in skip:
            continue
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and not exc.name.startswith("toolsearch"):
                missing_optional.append([name, exc.name])
            else:
                errors[name] = repr(exc)
        except Exception as exc:
            errors[name] = repr(exc)
        else:
            imported.append(name)
    forbidden = sorted(m for m in sys.modules
                       if m.split(".")[0] in ("textual", "rich", "tui"))
    print(json.dumps({"imported": imported, "missing_optional": missing_optional,
                      "errors": errors, "forbidden": forbidden}))
    """
)


def run_probe() -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(sorted(NOT_IMPORTABLE))],
        capture_output=True, text=True, timeout=300, cwd=PACKAGE_DIR.parent,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_importing_every_engine_module_pulls_in_no_ui_package():
    report = run_probe()
    assert report["errors"] == {}, report["errors"]
    # an optional dependency missing would hide a module from this check: it should not happen
    assert report["missing_optional"] == [], report["missing_optional"]
    imported = set(report["imported"])
    for core in ("toolsearch.config", "toolsearch.classify", "toolsearch.tokens",
                 "toolsearch.tooldefs", "toolsearch.catalog", "toolsearch.bm25",
                 "toolsearch.listing", "toolsearch.assemble", "toolsearch.schemas",
                 "toolsearch.bridge", "toolsearch.session", "toolsearch.toolsets",
                 "toolsearch.sources"):
        assert core in imported
    assert any(name.startswith("toolsearch.sources.") for name in imported)
    assert report["forbidden"] == []


def _imports(tree: ast.AST):
    """(module name, line, inside a function) for every import in a module."""

    def walk(node: ast.AST, in_function: bool):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, child.lineno, in_function
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                yield child.module, child.lineno, in_function
            elif isinstance(child, ast.Call):
                func = child.func
                called = getattr(func, "attr", None) or getattr(func, "id", None)
                if called in ("import_module", "__import__") and child.args and isinstance(
                        child.args[0], ast.Constant) and isinstance(child.args[0].value, str):
                    yield child.args[0].value, child.lineno, in_function
            yield from walk(child, nested)

    yield from walk(tree, False)


def test_no_engine_file_imports_a_ui_package():
    offenders = []
    files = sorted(PACKAGE_DIR.rglob("*.py"))
    assert files
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for module, line, _in_function in _imports(tree):
            top = module.split(".")[0]
            if top not in FORBIDDEN:
                continue
            offenders.append(f"{path.relative_to(PACKAGE_DIR.parent)}:{line}: {module}")
    assert offenders == []


def test_the_core_never_imports_sources():
    core = ("config", "classify", "catalog", "listing", "assemble", "bridge", "bm25",
            "schemas", "tokens", "tooldefs")
    offenders = []
    for stem in core:
        path = PACKAGE_DIR / f"{stem}.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = ("." * node.level) + (node.module or "")
                if module.lstrip(".").startswith("sources") or "toolsearch.sources" in module:
                    offenders.append(f"{stem}.py:{node.lineno}: {module}")
            elif isinstance(node, ast.Import):
                offenders += [f"{stem}.py:{node.lineno}: {a.name}" for a in node.names
                              if a.name.startswith("toolsearch.sources")]
    assert offenders == []


APP_LAUNCHERS = {"cli.py", "bench_cli.py"}


def test_only_the_cli_names_the_app_and_only_to_launch_it():
    """The CLI opens the app through ``app_entry("tui....")`` inside the commands that open
    it (STYLE: cli.py imports tui lazily, only for those commands); no other engine file may
    even name a UI package."""
    found = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    node.value.split(".")[0] in FORBIDDEN and "." in node.value:
                found.append((path.name, node.value))
    assert found, "the CLI should still launch the app"
    assert {name for name, _ in found} <= APP_LAUNCHERS
    assert all(value.startswith("tui.") for _, value in found)
