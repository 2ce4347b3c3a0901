"""Hostile ``tool_search`` queries over the union of real tools (not shipped).

    PYTHONPATH=. python benchmarks/hostile_queries.py [--shared DIR] [--size BYTES]

For every profile, the time a bridge takes to answer one query of ``--size`` characters (1 MB
by default), of two kinds: made-up words (none in the catalog: bm25f's typo and run-on
mending) and real prose (the catalog's own descriptions, repeated: every token known, the
seed's long-query path), and how many memo entries the second such query adds (a gateway
keeps its catalog for as long as it runs). Wall time, best of ``--repeats`` (a first,
warm-up query is answered before).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from toolsearch.profiles import PROFILE_NAMES  # noqa: E402
from toolsearch.session import SessionState  # noqa: E402
from toolsearch.sources.catalog_file import load_dump_dir  # noqa: E402


def memo_size(memo: dict) -> int:
    """Entries of a catalog's memo, counting the bm25f index's own memo one level down."""
    total = 0
    for value in memo.values():
        total += 1
        inner = getattr(value, "memo", None)
        if isinstance(inner, dict):
            total += sum(len(v) if isinstance(v, dict) else 1 for v in inner.values())
    return total


def made_up(size: int, salt: int) -> str:
    """Letters-only made-up words (digits would skip bm25f's typo look-up), none alike."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    words, length, i = [], 0, 0
    while length < size:
        n, code = i, []
        for _ in range(5):
            n, r = divmod(n, 26)
            code.append(letters[r])
        word = "qz" + letters[salt % 26] + "".join(code) + "vk"
        words.append(word)
        length += len(word) + 1
        i += 1
    return " ".join(words)

def ask(bridge: Any, key: str, text: str) -> float:
    """Seconds the bridge takes to answer ``tool_search`` with ``text``."""
    start = time.perf_counter()
    bridge.dispatch_sync("tool_search", {key: [text]} if key == "queries" else {key: text})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    workspace = load_dump_dir(args.shared / "catalogs" / "real")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{len(workspace.tool_defs()):,} tools; queries of {args.size:,} characters")
    for profile in PROFILE_NAMES:
        bridge = SessionState.from_workspace(workspace, profile=profile).bridge()
        # seed and bm25f take one "query"; latest a list of "queries"
        key = "queries" if "queries is required" in str(bridge.dispatch_sync(
            "tool_search", {"query": "warm up"}).result) else "query"
        prose = " ".join(e.description or "" for e in bridge.catalog.entries)
        prose = (prose * (args.size // max(len(prose), 1) + 1))[:args.size]
        fake = min(ask(bridge, key, made_up(args.size, r)) for r in range(args.repeats))
        before = memo_size(bridge.catalog.memo)
        ask(bridge, key, made_up(args.size, 25))
        grown = memo_size(bridge.catalog.memo) - before
        real = min(ask(bridge, key, prose) for _ in range(args.repeats))
        print(f"{profile:7s} made-up words {fake:5.2f} s (memo +{grown} on another)   "
              f"real prose {real:5.2f} s")

if __name__ == "__main__":
    main()
