"""Tune the bm25f parameters on the tuning half of each query set (not shipped).

    PYTHONPATH=. python benchmarks/tune_bm25f.py [--rounds 2]

Every query set is split once and for all by :func:`bm25f_eval.half_of` (a hash of the query's
line number and text): half 0 tunes, half 1 is only reported. The sets: the shared azure and
livemcpbench prompts over the union of all real tools, and our own queries/quickstart,
five-servers and seed-demo over their sample catalogs. ``queries/models-*.jsonl`` are held out
and never read here. Coordinate descent over a small grid per parameter, starting from
``bm25f.DEFAULT_PARAMS``; the objective is the mean of (recall@1 + recall@5 +
MRR@5) over every tuning-half query pooled (each query weighs the same). Prints the chosen parameters and both halves' figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from bm25f_eval import ROOT, SHARED, bm25f, evaluate, half_of, recall, union_catalog

from toolsearch.sources.catalog_file import load_catalog_file

OUR_SETS = ("quickstart", "five-servers", "seed-demo")

GRID = {
    "k1": (0.6, 0.9, 1.2, 1.5, 2.0, 3.0),
    "stem_weight": (0.25, 0.5, 0.75, 1.0, 1.5),
    "w_name": (1.0, 1.5, 2.0, 2.5, 3.0, 4.0),
    "w_label": (0.5, 1.0, 1.5, 2.0, 3.0),
    "w_params": (0.3, 0.5, 0.75, 1.0, 1.5),
    "w_param_desc": (0.1, 0.2, 0.3, 0.5, 0.75),
    "b_name": (0.0, 0.25, 0.5, 0.75, 1.0),
    "b_description": (0.25, 0.5, 0.75, 0.9, 1.0),
    "b_params": (0.0, 0.25, 0.5, 0.75),
    "b_param_desc": (0.25, 0.5, 0.75, 1.0),
    "w_summary": (0.0, 0.5, 1.0, 1.5),
    "b_summary": (0.25, 0.5, 0.75),
}
_W = {"w_name": 0, "w_label": 1, "w_params": 3, "w_param_desc": 4, "w_summary": 5}
_B = {"b_name": 0, "b_description": 2, "b_params": 3, "b_param_desc": 4, "b_summary": 5}


def with_value(params: bm25f.Params, key: str, value: float) -> bm25f.Params:
    if key in _W:
        weights = list(params.weights)
        weights[_W[key]] = value
        return dataclasses.replace(params, weights=tuple(weights))
    if key in _B:
        bs = list(params.b)
        bs[_B[key]] = value
        return dataclasses.replace(params, b=tuple(bs))
    return dataclasses.replace(params, **{key: value})


def load_sets() -> list[tuple[str, bm25f.Index, tuple[recall.Query, ...]]]:
    union = bm25f.build_index(union_catalog().entries)
    sets = []
    for name in ("azure-mcp", "livemcpbench"):
        sets.append((f"{name} (union)", union,
                     recall.load_queries(SHARED / "recall" / f"{name}.jsonl")))
    for name in OUR_SETS:
        catalog = recall.search_catalog_for(
            load_catalog_file(ROOT / "sample_catalogs" / f"{name}.yaml"), "seed")
        sets.append((name, bm25f.build_index(catalog.entries),
                     recall.load_queries(ROOT / "queries" / f"{name}.jsonl")))
    return sets


def objective(sets, params: bm25f.Params, half: int = 0) -> float:
    """Pooled over every tuning-half query (so each query weighs the same): the mean of
    recall@1 + recall@5 + MRR@5."""
    total = 0.0
    n = 0
    for _name, index, queries in sets:
        part = [q for q in queries if half_of(q) == half]
        f = evaluate(index, part, params)
        total += (f["r1"] + f["r5"] + f["mrr"]) * f["n"]
        n += f["n"]
    return total / max(n, 1)


def report(sets, params: bm25f.Params) -> None:
    for name, index, queries in sets:
        row = [name.ljust(22)]
        for half in (0, 1, None):
            part = [q for q in queries if half is None or half_of(q) == half]
            f = evaluate(index, part, params)
            label = {0: "tune", 1: "held", None: "all"}[half]
            row.append(f"{label} n={f['n']:3d} r1 {f['r1']:.3f} r5 {f['r5']:.3f} "
                       f"mrr {f['mrr']:.3f}")
        print(" | ".join(row))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    start = time.perf_counter()
    sets = load_sets()
    best = bm25f.DEFAULT_PARAMS
    best_score = objective(sets, best)
    print(f"start {best} -> {best_score:.4f}")
    for round_ in range(args.rounds):
        changed = False
        for key, values in GRID.items():
            for value in values:
                cand = with_value(best, key, value)
                if cand == best:
                    continue
                score = objective(sets, cand)
                if score > best_score + 1e-9:
                    best, best_score, changed = cand, score, True
                    print(f"  round {round_}: {key}={value} -> {score:.4f}")
            for index in {id(s[1]): s[1] for s in sets}.values():
                index.memo.clear()  # keep memory bounded: memos are per params
        if not changed:
            break
    print(f"chosen {best} (tuning-half objective {best_score:.4f}, "
          f"{time.perf_counter() - start:.0f}s)")
    print("default:")
    report(sets, bm25f.DEFAULT_PARAMS)
    print("chosen:")
    report(sets, best)


if __name__ == "__main__":
    main()
