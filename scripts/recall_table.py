#!/usr/bin/env python3
"""Regenerate the README recall table: every profile over our query sets and the shared sets.

    python scripts/recall_table.py [--shared DIR] [--check]

Rows come from ``benchmarks/recall_suite.py`` (the same rows ``toolsearch bench recall`` prints
with the targets): our sample sets over their sample catalogs, our model-style sets
(``queries/models-*.jsonl``) over the union of all real tools, and the shared azure and
livemcpbench prompts over their own catalogs and over the union. The shared sets default to
``../shared`` next to the checkout and are skipped when absent. ``--check`` exits 1 when a gold
name of our own sets matches no deferred tool. Prints a markdown table on stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from recall_suite import HEADER, Suite  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--check", action="store_true",
                        help="fail when a gold name of our own sets matches no deferred tool")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if not (args.shared / "catalogs" / "real").is_dir():
        print(f"skipped the shared sets: {args.shared}/catalogs/real not found", file=sys.stderr)
    suite = Suite(args.shared, say=lambda _line: None)
    suite.run_rows()
    bad = 0
    for row in suite.rows:
        if row.report.unresolved and not row.query_set.endswith("(shared)"):
            print(f"{row.query_set} ({row.profile}): {len(row.report.unresolved)} gold name(s) "
                  f"match no deferred tool, e.g. {row.report.unresolved[0][1]}", file=sys.stderr)
            bad += 1
    print(HEADER)
    print("\n".join(row.markdown() for row in suite.rows))
    print(f"({time.perf_counter() - start:.1f}s)", file=sys.stderr)
    return 1 if args.check and bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
