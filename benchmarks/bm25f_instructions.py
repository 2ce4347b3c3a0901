"""Instruction counts of the bm25f index build and first-use queries, under callgrind (not shipped).

    PYTHONPATH=. python benchmarks/bm25f_instructions.py [BM25F.py ...] [--queries SET]

Seconds on a shared 2-core machine swing by half between runs minutes apart; instructions
counted by ``valgrind --tool=callgrind`` do not (the same run gives the same count, to a few
parts in a thousand). For each version of ``toolsearch/bm25f.py`` given (default: this tree's),
one cold build of the union of real tools (caches cleared, numpy already imported, the index
kept, so freeing it is not counted) is counted alone: callgrind dumps its counters at each call
of ``getppid``, which the child calls right before and after the measured code. With
``--queries SET`` (``livemcpbench``, ``azure-mcp``) it counts each query of the set's first
pass over a fresh index instead and prints their p50 / p95 (the first query, which pays the
one-time derivations, printed apart). Needs valgrind; about a minute per version.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child(path: str, shared: Path, queries: str | None) -> None:
    """Run under callgrind: build (and search) with getppid() around each measured part."""
    import gc
    import importlib.util

    sys.path.insert(0, str(ROOT))
    from toolsearch import recall
    from toolsearch.caches import clear_caches
    from toolsearch.sources.catalog_file import load_dump_dir

    spec = importlib.util.spec_from_file_location("toolsearch.bm25f_counted", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    entries = recall.search_catalog_for(load_dump_dir(shared / "catalogs" / "real"),
                                        "seed").entries
    texts = [q.text for q in recall.load_queries(shared / "recall" / f"{queries}.jsonl")] \
        if queries else []
    import numpy  # noqa: F401  (imported by the first build otherwise)

    clear_caches()
    gc.collect()
    os.getppid()
    index = module.build_index(entries)
    os.getppid()
    for text in texts:
        module.search(index, text, 5)
        os.getppid()
    os._exit(0)  # no teardown


def counted(path: str, shared: Path, queries: str | None) -> list[int]:
    """Instructions of the build, then of each query, for one version."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=getppid",
                        f"--callgrind-out-file={out}", sys.executable, __file__, "--child",
                        path, "--shared", str(shared)] + (["--queries", queries] if queries
                                                          else []),
                       check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        parts = sorted(glob.glob(out + ".*"), key=lambda p: int(p.rsplit(".", 1)[1]))
        totals = []
        for part in parts:
            with open(part) as f:
                totals.append(next(int(line.split()[1]) for line in f
                                   if line.startswith(("summary:", "totals:"))))
    return totals[1:]  # the first dump is the setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="*", default=[str(ROOT / "toolsearch" / "bm25f.py")])
    parser.add_argument("--queries", choices=("livemcpbench", "azure-mcp"))
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.versions[0], args.shared, args.queries)
        return
    for path in args.versions:
        totals = counted(path, args.shared, args.queries)
        line = f"{path}: one cold build {totals[0] / 1e6:,.1f} M instructions"
        if args.queries:
            each = totals[1:]
            ordered = sorted(each)
            line += (f"; {args.queries} first use ({len(each)} queries): p50 "
                     f"{ordered[len(each) // 2] / 1e6:.2f} M, p95 "
                     f"{ordered[min(len(each) - 1, int(len(each) * .95))] / 1e6:.2f} M, the "
                     f"first query {each[0] / 1e6:.1f} M, all {sum(each) / 1e6:,.0f} M")
        print(line, flush=True)


if __name__ == "__main__":
    main()
