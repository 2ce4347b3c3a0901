"""The sample catalogs: lookup, freshness, and the figures SPEC §5 promises for each."""

from __future__ import annotations

import importlib.util
import math
import re
from pathlib import Path
from types import ModuleType

import pytest

from toolsearch.assemble import assemble_tool_defs
from toolsearch.listing import LISTING_HEADER
from toolsearch.sources.errors import SourceError
from toolsearch.sources.samples import (
    DEFAULT_SAMPLE,
    SAMPLE_NAMES,
    list_samples,
    load_sample,
    sample_path,
    samples_dir,
)
from toolsearch.tokens import estimate_tokens_from_schemas
from toolsearch.toolsets import Workspace

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "make_samples.py"
LOG_LINE = re.compile(
    r"tool_search activated \(tier (\d)\): (\d+) core/visible tools kept, (\d+) deferred "
    r"\(~(\d+) tokens\), listing (\w+) \(budget ~(\d+) tokens\)"
)

pytestmark = pytest.mark.skipif(samples_dir() is None, reason="sample catalogs not installed")


@pytest.fixture(scope="module")
def samples() -> dict[str, Workspace]:
    return {name: load_sample(name) for name in SAMPLE_NAMES}


def assemble(ws: Workspace):
    return assemble_tool_defs(ws.tool_defs(), ws.registry(), context_length=ws.context_length)


def test_lookup() -> None:
    assert DEFAULT_SAMPLE == "seed-demo"
    assert list_samples()[: len(SAMPLE_NAMES)] == SAMPLE_NAMES
    for name in SAMPLE_NAMES:
        path = sample_path(name)
        assert path is not None and path.name == f"{name}.yaml"
        assert sample_path(f"{name}.yaml") == path
    for bad in ("nope", "", "../pyproject", "_source/linear", ".hidden"):
        assert sample_path(bad) is None
    with pytest.raises(SourceError, match="unknown sample catalog 'nope' \\(available: seed-demo"):
        load_sample("nope")


def test_samples_load_cleanly(samples: dict[str, Workspace]) -> None:
    for name, ws in samples.items():
        assert ws.name == name
        assert ws.warnings == (), (name, ws.warnings[:3])
        names = [d["function"]["name"] for d in ws.tool_defs()]
        assert len(names) == len(set(names))


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_samples", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not SCRIPT.is_file(), reason="scripts/make_samples.py not in this install")
def test_committed_samples_match_the_generator() -> None:
    script = _script()
    for name, ws in script.build_samples().items():
        path = sample_path(name)
        assert path is not None
        assert path.read_text(encoding="utf-8") == script.render(ws), (
            f"{name}.yaml is out of date: run python scripts/make_samples.py")


def test_quickstart(samples: dict[str, Workspace]) -> None:
    ws = samples["quickstart"]
    kinds = [t.kind for t in ws.toolsets]
    assert kinds.count("core") == 1 and kinds.count("mcp") == 2 and kinds.count("plugin") == 1
    assert len(ws.tool_defs()) <= 20
    result = assemble(ws)
    assert result.activated and result.tier == 1 and result.listing_form == "full"
    assert "media_play" in result.deferred_names  # a plugin tool defers
    assert "terminal" in result.visible_names


def test_seed_demo_logs_the_seed_line(samples: dict[str, Workspace]) -> None:
    ws = samples["seed-demo"]
    assert ws.context_length == 200000
    assert [(t.name, t.kind, len(t.tools)) for t in ws.toolsets] == [
        ("hermes-core", "core", 11), ("firecrawl", "mcp", 27), ("xactions", "mcp", 145)]
    result = assemble(ws)
    match = LOG_LINE.fullmatch(result.log_line or "")
    assert match, result.log_line
    tier, visible, deferred, tokens, form, budget = match.groups()
    assert (tier, visible, deferred, form, budget) == ("1", "11", "172", "full", "4000")
    assert 19000 <= int(tokens) <= 23000
    assert int(tokens) == estimate_tokens_from_schemas(result.classification.deferrable)
    text = result.listing_text
    assert text is not None and math.ceil(len(text) / 4) <= 4000
    assert text.startswith(LISTING_HEADER)
    assert "\nfirecrawl tools (27):\n" in text and "\nxactions tools (145):\n" in text
    assert "- mcp__firecrawl__scrape: Scrape one URL and return its content." in text


def test_five_servers(samples: dict[str, Workspace]) -> None:
    ws = samples["five-servers"]
    servers = [t for t in ws.toolsets if t.kind == "mcp"]
    assert [t.name for t in servers] == ["github", "linear", "slack", "notion", "sentry"]
    assert sum(len(t.tools) for t in servers) == 34
    result = assemble(ws)
    assert result.deferred_count == 34
    assert 20000 <= result.deferred_tokens <= 24000
    assert result.tier == 1


def test_cloudflare_scale_collapses_only_cloudflare(samples: dict[str, Workspace]) -> None:
    ws = samples["cloudflare-scale"]
    cloudflare, linear = ws.toolset("cloudflare"), ws.toolset("linear")
    assert cloudflare is not None and linear is not None
    assert 3200 <= len(cloudflare.tools) <= 3400
    assert len(linear.tools) == 24
    result = assemble(ws)
    assert result.listing_form == "mixed" and result.tier == 1
    listing = result.listing
    assert listing is not None
    names_block = listing.group("cloudflare").render("names")
    assert 30000 <= math.ceil(len(names_block) / 4) <= 34000  # "names alone about 32K tokens"
    assert listing.group("cloudflare").form == "summary"
    assert listing.group("linear").form in ("names", "full")
    text = result.listing_text or ""
    assert f"cloudflare ({len(cloudflare.tools)} tools \u2014 names not listed" in text
    assert "mcp__linear__create_issue" in text
    assert math.ceil(len(text) / 4) <= 4000


def test_sample_files_stay_small() -> None:
    folder = samples_dir()
    assert folder is not None
    for name in SAMPLE_NAMES:
        assert (folder / f"{name}.yaml").stat().st_size < 3 * 1024 * 1024
