"""``toolsearch bench speed``: search and assembly timings over real and generated catalogs.

For the real union it also times the library path a host agent takes every turn, with plain
dicts: a new list (never seen: caches cleared, fresh objects), the same list with a changed
config, and ``json.dumps`` of every def once, the floor for any content-addressed cache.
The rounds are interleaved so that machine load moves all three alike; the ratios are of
medians. Targets: new list <= 1.5x the floor, same list <= 0.3x, search <= 1 ms median.
"""

from __future__ import annotations

import gc
import json
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolsearch.assemble import assemble_tool_defs
from toolsearch.bm25 import search_catalog
from toolsearch.caches import clear_caches
from toolsearch.catalog import build_catalog, tokenize
from toolsearch.classify import Registry, def_name
from toolsearch.config import ToolSearchConfig
from toolsearch.session import SessionState
from toolsearch.tooldefs import def_description, freeze, make_def, thaw
from toolsearch.toolsets import Workspace

TARGET_NEW = 1.5
TARGET_SAME = 0.3
TARGET_SEARCH_MS = 1.0

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


def measure_plain(defs: Sequence[Mapping[str, Any]], registry: Registry, *, rounds: int = 7,
                  same_per_round: int = 3, context_length: int = 200_000) -> dict[str, Any]:
    """The plain-dict library path against the ``json.dumps`` floor (medians, ms)."""
    base = [thaw(d) for d in defs]
    config = ToolSearchConfig()
    same = [thaw(d) for d in base]
    for _ in range(3):  # first sighting, then the snapshot: the steady state is measured
        assemble_tool_defs(same, registry, context_length=context_length, config=config)
    floor: list[float] = []
    new: list[float] = []
    changed: list[float] = []
    for i in range(rounds):
        gc.collect()
        t0 = time.perf_counter()
        for d in base:
            json.dumps(d)
        floor.append(time.perf_counter() - t0)
        fresh = [thaw(d) for d in base]
        clear_caches()
        gc.collect()
        t0 = time.perf_counter()
        assemble_tool_defs(fresh, registry, context_length=context_length, config=config)
        new.append(time.perf_counter() - t0)
        for _ in range(2):  # clear_caches() forgot `same` too: back to the steady state
            assemble_tool_defs(same, registry, context_length=context_length, config=config)
        for j in range(same_per_round):
            other = config.with_values(listing_max_tokens=1000 + 250 * (i * same_per_round + j),
                                       threshold_pct=2 + j)
            gc.collect()  # every sample starts without collection debt, as the floor does
            t0 = time.perf_counter()
            assemble_tool_defs(same, registry, context_length=context_length, config=other)
            changed.append(time.perf_counter() - t0)
    f, n, c = _median_ms(floor), _median_ms(new), _median_ms(changed)
    return {"json_floor_ms": round(f, 1), "plain_new_list_ms": round(n, 1),
            "plain_same_list_changed_config_ms": round(c, 1),
            "plain_new_list_ratio": round(n / f, 2), "plain_same_list_ratio": round(c / f, 2)}


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


def measure_toggle(workspace: Workspace, toggles: int = 40) -> float:
    """Median ms for what attaching or detaching a server (``a`` in the app) costs the app's
    state: a new session state with one more server detached (an attachment never seen
    before, so nothing of it is remembered), its assembly and its server rows."""
    state = SessionState.from_workspace(workspace)
    assert state.assembly is not None  # warm the caches
    names = [t.name for t in workspace.toolsets]
    samples = []
    for name in names[:toggles]:
        gc.collect()
        t0 = time.perf_counter()
        changed = state.toggled(name)
        assert changed.assembly is not None
        changed.rows()
        samples.append(time.perf_counter() - t0)
    return round(_median_ms(samples), 3)


def run_speed(real: tuple[Sequence[Mapping[str, Any]], Registry] | None,
              print_fn: Callable[[str], None] = print,
              sizes: Sequence[int] = (172, 3300, 10000),
              step: Callable[[str], None] | None = None) -> dict[str, Any]:
    """*step*, if given, is told each catalog as it starts (progress on stderr)."""
    results: dict[str, Any] = {}
    todo = len(sizes) + (real is not None)
    if real is not None:
        if step is not None:
            step(f"real catalogs, {len(real[0]):,} tools (catalog 1 of {todo})")
        print_fn(f"real catalogs ({len(real[0])} tools) ...")
        results["real"] = measure(*real)
        print_fn(_line("real", results["real"]))
        results["real"].update(measure_plain(*real))
        print_fn(_plain_lines(results["real"]))
    for index, n in enumerate(sizes, todo - len(sizes) + 1):
        if step is not None:
            step(f"generated catalog of {n:,} tools (catalog {index} of {todo})")
        defs, reg = generated_catalog(n)
        results[f"generated-{n}"] = measure(defs, reg)
        print_fn(_line(f"generated-{n}", results[f"generated-{n}"]))
    return results


def _plain_lines(r: Mapping[str, Any]) -> str:
    def verdict(ok: bool) -> str:
        return "ok" if ok else "MISSED"

    return "\n".join([
        "plain dicts, real union (medians of interleaved rounds):",
        f"  json.dumps of every def once (floor)   {r['json_floor_ms']:8.1f} ms",
        f"  new list                               {r['plain_new_list_ms']:8.1f} ms  "
        f"{r['plain_new_list_ratio']:.2f}x floor (target <= {TARGET_NEW}x) "
        f"{verdict(r['plain_new_list_ratio'] <= TARGET_NEW)}",
        f"  same list, changed config              {r['plain_same_list_changed_config_ms']:8.1f} ms  "
        f"{r['plain_same_list_ratio']:.2f}x floor (target <= {TARGET_SAME}x) "
        f"{verdict(r['plain_same_list_ratio'] <= TARGET_SAME)}",
        f"  search median                          {r['search_median_ms']:8.3f} ms  "
        f"(target <= {TARGET_SEARCH_MS} ms) {verdict(r['search_median_ms'] <= TARGET_SEARCH_MS)}",
    ])


def _line(label: str, r: Mapping[str, Any]) -> str:
    return (f"{label:<16} {r['tools']:>6} tools  search median {r['search_median_ms']:.3f} ms "
            f"(p95 {r['search_p95_ms']:.3f})  assemble new defs {r['assemble_new_defs_ms']:.1f} ms"
            f"  changed config {r['assemble_changed_config_ms']:.2f} ms")
