"""bm25f variants on tuning data only (issue 11): not shipped, never reads ``models-*.jsonl``.

    PYTHONPATH=. python benchmarks/bm25f_tuning_check.py [--synonym-weight 0 0.2 0.3 ...]

For each value of ``Params.synonym_weight`` (0: the verb synonyms off), prints recall@1 / @5 /
MRR@5 on: every ``queries/tune-*.jsonl`` over the union of all real tools; the tuning half
(``recall_suite.half_of`` == 0) of the shared azure and livemcpbench sets over their own
catalog and the union, and of our sample sets; and the per-server check on tuning data (each
real server's catalog alone, with the tuning queries whose gold it holds), with the servers
where bm25f trails the seed. The objective is the pooled mean of recall@1 + recall@5 + MRR@5
over the rows (as ``tune_bm25f.py``).
"""

from __future__ import annotations

import argparse
import dataclasses

from bm25f_eval import REAL, ROOT, SHARED, bm25f, evaluate, half_of, recall

from toolsearch.profiles import get_profile
from toolsearch.sources.catalog_file import load_catalog_file, load_dump_dir, load_real_dump


def _index(ws):
    return bm25f.build_index(recall.search_catalog_for(ws, "bm25f").entries)


def _seed_hits(ws, queries) -> int:
    catalog = recall.search_catalog_for(ws, "seed")
    names = {e.name for e in catalog.entries}
    seed = get_profile("seed").retrieval
    hits = 0
    for q in queries:
        gold = {g for g in q.gold_names if g in names}
        hits += bool(gold & {h.name for h in seed.search(catalog, q.text, 5)})
    return hits


def load():
    union = load_dump_dir(REAL)
    rows = []
    tune = {f.stem: recall.load_queries(f) for f in sorted((ROOT / "queries").glob("tune-*.jsonl"))}
    for name, queries in tune.items():
        rows.append((f"{name} (union)", "union", queries))
    halves = {}
    for name, own in (("azure-mcp", load_real_dump(REAL / "azure-mcp.json")),
                      ("livemcpbench", load_dump_dir(REAL / "livemcpbench"))):
        halves[name] = [q for q in recall.load_queries(SHARED / "recall" / f"{name}.jsonl")
                        if half_of(q) == 0]
        rows.append((f"{name} tuning half (own)", _index(own), halves[name]))
        rows.append((f"{name} tuning half (union)", "union", halves[name]))
    for name in ("quickstart", "five-servers", "seed-demo"):
        ws = load_catalog_file(ROOT / "sample_catalogs" / f"{name}.yaml")
        rows.append((f"{name} tuning half", _index(ws),
                     [q for q in recall.load_queries(ROOT / "queries" / f"{name}.jsonl")
                      if half_of(q) == 0]))
    union_index = _index(union)
    rows = [(label, union_index if idx == "union" else idx, qs) for label, idx, qs in rows]
    pool = [q for qs in tune.values() for q in qs] + halves["azure-mcp"] + halves["livemcpbench"]
    servers = []
    for path in sorted(REAL.glob("*.json")) + sorted((REAL / "livemcpbench").glob("*.json")):
        if path.name == "index.json":
            continue
        ws = load_real_dump(path)
        idx = _index(ws)
        names = set(idx.names)
        mine = [q for q in pool if any(g in names for g in q.gold_names)]
        if mine:
            servers.append((str(path.relative_to(REAL)), idx, mine, _seed_hits(ws, mine)))
    return rows, servers


def report(rows, servers, params: bm25f.Params) -> float:
    total = n = 0.0
    for label, idx, queries in rows:
        f = evaluate(idx, queries, params)
        total += (f["r1"] + f["r5"] + f["mrr"]) * f["n"]
        n += f["n"]
        print(f"  {label:34s} n={f['n']:3d} r@1 {f['r1']:.3f} r@5 {f['r5']:.3f} "
              f"MRR {f['mrr']:.3f}")
    hits = seed = 0
    below = []
    for label, idx, queries, seed_hits in servers:
        f = evaluate(idx, queries, params)
        mine = round(f["r5"] * f["n"])
        hits += mine
        seed += seed_hits
        if mine < seed_hits:
            below.append(f"{label} ({mine} < {seed_hits})")
    print(f"  per-server on tuning data ({len(servers)} servers): recall@5 hits bm25f {hits}, "
          f"seed {seed}; bm25f below seed on {len(below)}: {', '.join(below) or '-'}")
    objective = total / max(n, 1)
    print(f"  pooled objective (r@1 + r@5 + MRR@5) {objective:.4f}")
    return objective


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--synonym-weight", type=float, nargs="+",
                        default=[0.0, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5])
    args = parser.parse_args()
    rows, servers = load()
    for value in args.synonym_weight:
        params = dataclasses.replace(bm25f.DEFAULT_PARAMS, synonym_weight=value)
        print(f"synonym_weight {value}:")
        report(rows, servers, params)


if __name__ == "__main__":
    main()
