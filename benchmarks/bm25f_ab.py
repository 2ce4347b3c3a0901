"""Paired A/B of two versions of ``toolsearch/bm25f.py`` in one process (not shipped).

    PYTHONPATH=. python benchmarks/bm25f_ab.py OLD_BM25F.py NEW_BM25F.py [--repeats 6]

e.g. ``/work/main/toolsearch/bm25f.py toolsearch/bm25f.py``. On a shared machine two separate
runs of ``bm25f_speed.py`` a minute apart can differ 2x; here both versions run alternately in
the same process (same catalog objects, same stemmer, order swapped every repeat), each query's
time is its best over the repeats (a fresh index each time, so first use stays first use), and
p50 / p95 are taken over those bests, with the first query's time (it pays the one-time
derivations: stem classes, flat postings) and the sum over all queries. Build: best and median
CPU time over the repeats.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from toolsearch import caches, recall  # noqa: E402
from toolsearch.caches import clear_caches  # noqa: E402
from toolsearch.sources.catalog_file import load_dump_dir  # noqa: E402

SETS = ("azure-mcp", "livemcpbench")


def load(path: Path, name: str) -> tuple[ModuleType, list[Any]]:
    """``path`` imported as ``toolsearch.<name>`` (its relative imports resolve in this tree),
    and the caches it registers. Both versions register theirs under the same names, and so
    does ``toolsearch.bm25f`` when the seed catalog first imports it: the registry keeps only
    the last, so :func:`clear` clears each version's own."""
    spec = importlib.util.spec_from_file_location(f"toolsearch.{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    own: list[Any] = []
    register = caches.register_cache

    def capture(cache_name: str, cache: Any) -> Any:
        own.append(cache)
        return register(cache_name, cache)

    caches.register_cache = capture  # register_cache_fn calls it too
    try:
        spec.loader.exec_module(module)
    finally:
        caches.register_cache = register
    return module, own


def clear(own: list[Any]) -> None:
    """Every registered cache and a version's own (module docstring: cold caches)."""
    clear_caches()
    for cache in own:
        (getattr(cache, "cache_clear", None) or cache.clear)()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


def measure(old: Path, new: Path, shared: Path, repeats: int) -> dict[str, Any]:
    loaded = {"old": load(old, "bm25f_old"), "new": load(new, "bm25f_new")}
    versions = {label: module for label, (module, _own) in loaded.items()}
    union = load_dump_dir(shared / "catalogs" / "real")
    entries = recall.search_catalog_for(union, "seed").entries
    queries = {name: [q.text for q in recall.load_queries(shared / "recall" / f"{name}.jsonl")]
               for name in SETS if (shared / "recall" / f"{name}.jsonl").exists()}
    builds: dict[str, list[float]] = {v: [] for v in versions}
    best = {v: {name: [[float("inf")] * len(qs) for _ in range(2)]
                for name, qs in queries.items()} for v in versions}
    for r in range(repeats):
        for label in (("old", "new") if r % 2 == 0 else ("new", "old")):
            module = versions[label]
            clear(loaded[label][1])
            gc.collect()
            c = time.process_time()
            module.build_index(entries)
            builds[label].append(time.process_time() - c)
            for name, qs in queries.items():
                clear(loaded[label][1])
                index = module.build_index(entries)
                for times in best[label][name]:  # first use, then warm
                    for i, q in enumerate(qs):
                        c = time.process_time()
                        module.search(index, q, 5)
                        times[i] = min(times[i], time.process_time() - c)
    return {label: {"build_best_ms": min(builds[label]) * 1000,
                    "build_median_ms": sorted(builds[label])[len(builds[label]) // 2] * 1000,
                    **{f"{name} {kind}": (_pct(times, .5), _pct(times, .95), times[0] * 1000,
                                          sum(times) * 1000)
                       for name in queries
                       for kind, times in zip(("first use", "warm"), best[label][name],
                                              strict=True)}}
            for label in versions}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--repeats", type=int, default=6)
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    args = parser.parse_args()
    print("load average before:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    result = measure(args.old, args.new, args.shared, args.repeats)
    print("load average after: ", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    for label, figures in result.items():
        print(f"{label}: build best {figures['build_best_ms']:.0f} ms, median "
              f"{figures['build_median_ms']:.0f} ms")
        for key, value in figures.items():
            if isinstance(value, tuple):
                print(f"  {key:24s} p50 {value[0]:.2f} ms  p95 {value[1]:.2f} ms  first query "
                      f"{value[2]:.1f} ms  all {value[3]:.0f} ms")


if __name__ == "__main__":
    main()
