"""Speed of the bm25f retrieval over the union of real tools (not shipped).

    PYTHONPATH=. python benchmarks/bm25f_speed.py

Prints the index build time (best of 3, wall and CPU) and per-query p50/p95 over the shared
query sets: "cold" is the first pass over a fresh index (every term derived on first use),
"warm" a second pass. CPU time (process_time) is printed beside wall time because the machine
is shared: it is the figure that does not include waiting for other processes.
"""

from __future__ import annotations

import time

from bm25f_eval import SHARED, bm25f, recall, union_catalog


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


def main() -> None:
    catalog = union_catalog()
    walls, cpus = [], []
    for _ in range(3):
        w, c = time.perf_counter(), time.process_time()
        index = bm25f.build_index(catalog.entries)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    print(f"build {len(catalog)} tools: wall {min(walls) * 1000:.0f} ms, "
          f"cpu {min(cpus) * 1000:.0f} ms (best of 3)")
    for name in ("azure-mcp", "livemcpbench"):
        queries = recall.load_queries(SHARED / "recall" / f"{name}.jsonl")
        index = bm25f.build_index(catalog.entries)
        for label in ("cold", "warm"):
            wall, cpu = [], []
            for q in queries:
                w, c = time.perf_counter(), time.process_time()
                bm25f.search(index, q.text, 5)
                wall.append(time.perf_counter() - w)
                cpu.append(time.process_time() - c)
            print(f"{name:13s} {label}: {len(queries)} queries, p50 {_pct(wall, .5):.2f} ms "
                  f"p95 {_pct(wall, .95):.2f} ms wall; p50 {_pct(cpu, .5):.2f} ms "
                  f"p95 {_pct(cpu, .95):.2f} ms cpu")


if __name__ == "__main__":
    main()
