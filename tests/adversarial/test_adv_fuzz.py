"""Random hostile input (hypothesis): any document, any bytes, any ``--set`` value gives a
workspace or one clear line, never a traceback, a hang or a secret."""

from __future__ import annotations

import contextlib
import io
import json
import time
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsearch.config import CONFIG_KEYS
from toolsearch.sources import _servers_of, _static_workspace
from toolsearch.sources.detect import resolve_source
from toolsearch.sources.errors import SourceError
from toolsearch.sources.safe_yaml import YamlRefused, load_yaml

FUZZ = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    st.text(max_size=30))
_json = st.recursive(_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=5)),
    max_leaves=40)
_catalogish = st.fixed_dictionaries({
    "toolsets": st.lists(st.fixed_dictionaries({
        "name": _scalar, "kind": st.sampled_from(["mcp", "plugin", "core", "odd", 3]),
        "tools": st.one_of(_json, st.lists(st.fixed_dictionaries({
            "name": _scalar, "description": _scalar,
            "inputSchema": _json}), max_size=4))}), max_size=3),
}, optional={"name": _scalar, "core": _json, "context_length": _scalar, "tool_search": _json})
_configish = st.fixed_dictionaries({"tools": st.fixed_dictionaries({"tool_search": _json})},
                                   optional={"mcp_servers": _json, "model": _scalar})
_clientish = st.fixed_dictionaries({"mcpServers": st.dictionaries(
    st.text(max_size=8), st.dictionaries(st.sampled_from(
        ["command", "args", "env", "url", "type", "cwd", "timeout", "connect_timeout"]),
        _json, max_size=5), max_size=3)})


def _load(path: Path) -> None:
    """What the CLI does with a SOURCE, without starting any server it may declare."""
    try:
        source = resolve_source(str(path))
    except SourceError as exc:
        assert "\n" not in str(exc)
        return
    if source.kind in ("catalog", "dump", "dump-dir"):
        try:
            workspace = _static_workspace(source)
        except SourceError as exc:
            assert "\n" not in str(exc)
            return
        for ts in workspace.toolsets:
            json.dumps([dict(d) for d in ts.defs], default=str)
    else:
        _servers_of(source)


@FUZZ
@given(doc=st.one_of(_json, _catalogish, _configish, _clientish),
       fmt=st.sampled_from(["json", "yaml"]))
def test_random_documents_load_or_fail_in_one_line(tmp_path_factory: Any, doc: Any,
                                                   fmt: str) -> None:
    folder = tmp_path_factory.mktemp("doc")
    path = folder / f"source.{fmt}"
    text = json.dumps(doc) if fmt == "json" else yaml.safe_dump(doc, allow_unicode=True)
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    _load(path)


@FUZZ
@given(data=st.binary(max_size=2000), suffix=st.sampled_from([".json", ".yaml", ".yml"]))
def test_random_bytes_as_a_source(tmp_path_factory: Any, data: bytes, suffix: str) -> None:
    path = tmp_path_factory.mktemp("bytes") / f"source{suffix}"
    path.write_bytes(data)
    _load(path)


@st.composite
def _alias_documents(draw: Any) -> str:
    """Layers of anchors, each a list of aliases to the previous one (a random laugh)."""
    layers = draw(st.integers(1, 12))
    fan = draw(st.integers(1, 12))
    lines = ["l0: &l0 [lol, lol]"]
    for i in range(1, layers):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * fan)}]")
    if draw(st.booleans()):
        lines.append(f"loop: &loop [*l{layers - 1}, *loop]")
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=_alias_documents())
def test_random_alias_graphs_load_bounded_or_are_refused(text: str) -> None:
    started = time.monotonic()
    try:
        data = load_yaml(text)
    except YamlRefused as exc:
        assert "\n" not in str(exc)
    else:
        json.dumps(data)  # whatever was accepted is small enough to walk
    assert time.monotonic() - started < 10


_set_values = st.one_of(st.text(max_size=40), st.integers().map(str),
                        st.floats(allow_nan=True).map(repr),
                        st.integers(1, 6000).map(lambda n: "9" * n),
                        st.sampled_from(["1e999", "-1e999", ".inf", "nan", "[1, 2", "{a: *b}",
                                         "&a [*a]", "0x1F", "1_000", "~", "!!python/none"]))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(CONFIG_KEYS), value=_set_values)
def test_random_set_values_clamp_or_fail_in_one_line(key: str, value: str) -> None:
    from toolsearch.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["assemble", "quickstart", "--set", f"{key}={value}", "--json"])
    assert "Traceback" not in err.getvalue()
    if code == 0:
        json.loads(out.getvalue())
    else:
        assert code == 1
        lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("toolsearch: error: "), lines
