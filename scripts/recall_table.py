#!/usr/bin/env python3
"""Regenerate the recall table: both profiles over our query sets and the shared real sets.

    python scripts/recall_table.py [--shared DIR] [--check]

Our sets are ``queries/<name>.jsonl`` over ``sample_catalogs/<name>.yaml``. The shared real
sets (``<shared>/recall/*.jsonl`` over ``<shared>/catalogs/real``) default to ``../shared``
next to the checkout and are skipped, with the reason, when absent. ``--check`` exits 1 when
a gold name of our own sets matches no deferred tool. Prints a markdown table on stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from toolsearch import recall  # noqa: E402
from toolsearch.sources.catalog_file import (  # noqa: E402
    load_catalog_file,
    load_dump_dir,
    load_real_dump,
)

OUR_SETS = ("quickstart", "five-servers", "seed-demo")
PROFILES = ("seed", "latest")


def _sets(shared: Path) -> list[tuple[str, object, Path | None, str]]:
    """(label, loader, query file, skip reason)."""
    rows: list[tuple[str, object, Path | None, str]] = []
    for name in OUR_SETS:
        catalog = ROOT / "sample_catalogs" / f"{name}.yaml"
        queries = ROOT / "queries" / f"{name}.jsonl"
        reason = "" if catalog.exists() and queries.exists() else f"missing {catalog.name}"
        rows.append((name, lambda c=catalog: load_catalog_file(c), queries, reason))
    azure = shared / "catalogs" / "real" / "azure-mcp.json"
    live = shared / "catalogs" / "real" / "livemcpbench"
    for label, path, loader, qfile in (
        ("azure-mcp (shared)", azure, load_real_dump, shared / "recall" / "azure-mcp.jsonl"),
        ("livemcpbench (shared)", live, load_dump_dir, shared / "recall" / "livemcpbench.jsonl"),
    ):
        reason = "" if path.exists() and qfile.exists() else f"{path} or {qfile} not found"
        rows.append((label, lambda p=path, f=loader: f(p), qfile, reason))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--check", action="store_true",
                        help="fail when a gold name of our own sets matches no deferred tool")
    args = parser.parse_args(argv)
    lines = ["| query set | deferred tools | queries | profile | recall@1 | recall@5 | MRR@5 "
             "| gold found@5 |",
             "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |"]
    bad = 0
    start = time.perf_counter()
    for label, load, qfile, reason in _sets(args.shared):
        if reason:
            print(f"skipped {label}: {reason}", file=sys.stderr)
            continue
        workspace = load()  # type: ignore[operator]
        queries = recall.load_queries(qfile)  # type: ignore[arg-type]
        for profile in PROFILES:
            report = recall.run_recall(workspace, queries, profile)
            if report.unresolved:
                print(f"{label} ({profile}): {len(report.unresolved)} gold name(s) match no "
                      f"deferred tool, e.g. {report.unresolved[0][1]}", file=sys.stderr)
                bad += label in OUR_SETS
            lines.append(
                f"| {label} | {report.catalog_size} | {report.n} | {profile} "
                f"| {report.recall_at_1:.3f} | {report.recall_at_5:.3f} | {report.mrr:.3f} "
                f"| {report.gold_found_at_5:.3f} |")
    print("\n".join(lines))
    print(f"({time.perf_counter() - start:.1f}s)", file=sys.stderr)
    return 1 if args.check and bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
