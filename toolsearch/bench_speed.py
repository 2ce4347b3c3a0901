"""``toolsearch bench speed``: search and assembly timings over real and generated catalogs."""

from __future__ import annotations

import gc
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .assemble import assemble_tool_defs
from .bm25 import search_catalog
from .caches import clear_caches
from .catalog import build_catalog, tokenize
from .classify import Registry, def_name
from .config import ToolSearchConfig
from .session import SessionState
from .tooldefs import def_description, freeze, make_def, thaw
from .toolsets import Workspace

_VERBS = ("list get create update delete search export import sync archive restore rotate "
          "enable disable describe start stop run cancel approve merge").split()
_NOUNS = ("issue project ticket repository branch commit user team channel message file folder "
          "zone record worker bucket namespace database table index alert dashboard invoice "
          "customer order deployment secret token webhook schedule report").split()


def generated_catalog(n: int, servers: int = 8, seed: int = 7) -> tuple[tuple[Any, ...], Registry]:
    """``n`` synthetic but realistic MCP tool defs spread over ``servers`` servers."""
    rng = random.Random(seed)
    defs = []
    reg: dict[str, str] = {}
    for i in range(n):
        server = f"svc{i % servers}"
        verb, noun, noun2 = rng.choice(_VERBS), rng.choice(_NOUNS), rng.choice(_NOUNS)
        name = f"mcp__{server}__{verb}_{noun}_{noun2}_{i}"
        props = {p: {"type": "string", "description": f"The {p} of the {noun}."}
                 for p in rng.sample(_NOUNS, 3)}
        defs.append(make_def(name, f"{verb.capitalize()} a {noun} {noun2} in {server}. "
                             f"Returns the {noun} as JSON.",
                             {"type": "object", "properties": props, "required": [next(iter(props))]}))
        reg[name] = f"mcp-{server}"
    return tuple(defs), Registry(reg)


def sample_queries(defs: Sequence[Mapping[str, Any]], count: int, seed: int = 11) -> list[str]:
    """Queries a model might send: 2-4 words drawn from a tool's name and description."""
    rng = random.Random(seed)
    queries = []
    for _ in range(count):
        d = rng.choice(list(defs))
        words = tokenize(def_name(d).replace("mcp__", "") + " " + def_description(d)[:120])
        if not words:
            words = ["list"]
        queries.append(" ".join(rng.sample(words, min(len(words), rng.randint(2, 4)))))
    return queries


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000.0


def measure(defs: Sequence[Mapping[str, Any]], registry: Registry, *, queries: int = 300,
            context_length: int = 200_000) -> dict[str, Any]:
    """Median timings (ms) for one catalog: search on a built catalog, cold and warm assembly."""
    config = ToolSearchConfig()
    clear_caches()
    catalog = build_catalog(defs, registry)
    qs = sample_queries(defs, queries)
    search_times = []
    for q in qs:
        t0 = time.perf_counter()
        search_catalog(catalog, q, 5)
        search_times.append(time.perf_counter() - t0)
    cold = []
    for _ in range(3):
        fresh = tuple(freeze(thaw(d)) for d in defs)  # new objects: nothing cached on them
        clear_caches()
        gc.collect()  # start each run without the copying's collection debt
        t0 = time.perf_counter()
        assemble_tool_defs(fresh, registry, context_length=context_length, config=config)
        cold.append(time.perf_counter() - t0)
    assemble_tool_defs(defs, registry, context_length=context_length, config=config)
    warm = []
    for i in range(20):
        changed = config.with_values(listing_max_tokens=1000 + 250 * i, threshold_pct=2 + i % 5)
        t0 = time.perf_counter()
        assemble_tool_defs(defs, registry, context_length=context_length, config=changed)
        warm.append(time.perf_counter() - t0)
    return {
        "tools": len(defs),
        "search_median_ms": round(_median_ms(search_times), 3),
        "search_p95_ms": round(sorted(search_times)[int(len(search_times) * 0.95) - 1] * 1000, 3),
        "assemble_new_defs_ms": round(_median_ms(cold), 1),
        "assemble_changed_config_ms": round(_median_ms(warm), 2),
    }


def measure_tuning(workspace: Workspace, changes: int = 100) -> float:
    """Median ms for what a tuning keystroke costs the app's state: a new session state with
    one changed key, its assembly and its server rows."""
    state = SessionState.from_workspace(workspace)
    assert state.assembly is not None  # warm the caches
    samples = []
    for i in range(changes):
        t0 = time.perf_counter()
        changed = state.with_config(listing_max_tokens=1000 + 50 * i)
        assert changed.assembly is not None
        changed.rows()
        samples.append(time.perf_counter() - t0)
    return round(_median_ms(samples), 3)


def run_speed(real: tuple[Sequence[Mapping[str, Any]], Registry] | None,
              print_fn: Callable[[str], None] = print,
              sizes: Sequence[int] = (172, 3300, 10000)) -> dict[str, Any]:
    results: dict[str, Any] = {}
    if real is not None:
        print_fn(f"real catalogs ({len(real[0])} tools) ...")
        results["real"] = measure(*real)
        print_fn(_line("real", results["real"]))
    for n in sizes:
        defs, reg = generated_catalog(n)
        results[f"generated-{n}"] = measure(defs, reg)
        print_fn(_line(f"generated-{n}", results[f"generated-{n}"]))
    return results


def _line(label: str, r: Mapping[str, Any]) -> str:
    return (f"{label:<16} {r['tools']:>6} tools  search median {r['search_median_ms']:.3f} ms "
            f"(p95 {r['search_p95_ms']:.3f})  assemble new defs {r['assemble_new_defs_ms']:.1f} ms"
            f"  changed config {r['assemble_changed_config_ms']:.2f} ms")
