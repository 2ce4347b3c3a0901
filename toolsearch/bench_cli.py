"""``toolsearch bench ...`` subcommands.

``recall`` and ``reach`` are operator features (:mod:`toolsearch.recall`). ``speed``,
``attach`` and ``tui`` are benchmarks: they live in the checkout's ``benchmarks/`` folder,
which is not installed with the package, and are loaded from there when it exists.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .cli_help import JSON_HELP, SOURCE_HELP, add_command
from .cli_safety import warn
from .progress import progress

SHARED_CANDIDATES = (Path("../shared"), Path(__file__).resolve().parents[2] / "shared")
CHECKOUT = Path(__file__).resolve().parents[1]


def benchmark(module: str) -> Any | None:
    """``benchmarks.<module>`` of this source checkout, or None when it has no benchmarks/."""
    if not (CHECKOUT / "benchmarks" / "__init__.py").is_file():
        return None
    if str(CHECKOUT) not in sys.path:
        sys.path.insert(0, str(CHECKOUT))
    return importlib.import_module(f"benchmarks.{module}")


def shared_dir() -> Path | None:
    for candidate in SHARED_CANDIDATES:
        if (candidate / "catalogs" / "real").is_dir():
            return candidate
    return None


CATALOGS_HELP = ("folder of real tool dumps (default: ../shared/catalogs/real, when it is "
                 "there)")
CHECKOUT_NOTE = " (runs from a source checkout: its benchmarks/ folder)"


def add_bench_parser(sub: Any, common: Callable[..., None]) -> None:
    bench = add_command(sub, "bench", "measure and print figures: speed, recall, reach, "
                                      "attach, gateway or tui")
    bench.set_defaults(func=_run)
    kinds = bench.add_subparsers(dest="bench", metavar="KIND", required=True,
                                 help="which figures (toolsearch bench KIND --help for its "
                                      "options)")

    p = add_command(kinds, "speed", "time search and assembly on the real and generated "
                                    "catalogs", CHECKOUT_NOTE)
    p.add_argument("--catalogs", metavar="DIR", help=CATALOGS_HELP)
    p.add_argument("--sizes", default="172,3300,10000", metavar="N,N,...",
                   help="sizes of the generated catalogs, in tools (default 172,3300,10000)")
    p.add_argument("--json", action="store_true", help=JSON_HELP)

    p = add_command(kinds, "recall", "score how well search finds the right tools: "
                                     "recall@1, recall@5 and MRR@5 of a query set",
                    " (no SOURCE and no --queries: every profile on every bundled and shared "
                    "query set, against the targets; that suite runs from a source checkout)")
    p.add_argument("sources", nargs="*", metavar="SOURCE",
                   help=SOURCE_HELP + " (default: none, the whole suite)")
    p.add_argument("--queries", metavar="FILE.jsonl",
                   help='the query set, one JSON object a line such as {"query": "...", '
                        '"gold": ["TOOL"]}, or a bundled set\'s name (seed-demo, '
                        'models-web, ...) (default: none, the whole suite)')
    common(p, tuning=False)
    p.add_argument("--json", action="store_true", help=JSON_HELP)

    p = add_command(kinds, "reach", "list the tools that no query of their own words (name, "
                                    "first sentence) finds in the top 5")
    p.add_argument("sources", nargs="+", metavar="SOURCE", help=SOURCE_HELP)
    common(p, tuning=False)
    p.add_argument("--json", action="store_true", help=JSON_HELP)

    p = add_command(kinds, "attach", "time attaching live MCP servers (starts local test "
                                     "servers)", CHECKOUT_NOTE)
    p.add_argument("--json", action="store_true", help=JSON_HELP)

    p = add_command(kinds, "gateway", "time toolsearch serve: the latency it adds to "
                                      "tool_call, the tool_search round trip, 100 concurrent "
                                      "calls", CHECKOUT_NOTE)
    p.add_argument("--catalogs", metavar="DIR", help=CATALOGS_HELP)
    p.add_argument("--json", action="store_true", help=JSON_HELP)

    p = add_command(kinds, "tui", "time the app: first paint, tuning changes, keys, and its "
                                  "memory", CHECKOUT_NOTE)
    p.add_argument("--catalogs", metavar="DIR", help=CATALOGS_HELP)
    p.add_argument("--json", action="store_true", help=JSON_HELP)


def _emit(args: argparse.Namespace, result: Any, text: str | None = None) -> None:
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    elif text:
        print(text)


def _real_dir(args: argparse.Namespace) -> Path | None:
    if getattr(args, "catalogs", None):
        return Path(args.catalogs)
    shared = shared_dir()
    return shared / "catalogs" / "real" if shared else None


def run_bench(args: argparse.Namespace) -> int:
    if args.bench in ("speed", "attach", "tui", "gateway"):
        module = benchmark(args.bench)
        if module is None:
            print(f"toolsearch: error: bench {args.bench} runs from a source checkout "
                  "(its benchmarks/ folder is not installed with the package)", file=sys.stderr)
            return 1
        return _run_benchmark(args, module)
    return _run_operator_bench(args)


#: The largest generated catalog ``bench speed --sizes`` builds (memory grows with it).
MAX_BENCH_SIZE = 200_000


def _sizes(text: str) -> list[int]:
    """``--sizes N,N,...``: whole numbers from 1 to :data:`MAX_BENCH_SIZE` (0 or a negative
    size failed with an IndexError after the real catalogs' runs; a huge one filled memory)."""
    from .cli import CliError

    try:
        sizes = [int(n) for n in text.split(",")]  # '' and '1,,2' are mistakes, not sizes
    except ValueError:
        raise CliError(f"--sizes takes whole numbers, got {text!r}") from None
    wrong = [n for n in sizes if not 1 <= n <= MAX_BENCH_SIZE]
    if wrong:
        raise CliError(f"--sizes: each size is 1 to {MAX_BENCH_SIZE:,} tools (got {wrong[0]})")
    return sizes


def _run_benchmark(args: argparse.Namespace, module: Any) -> int:
    quiet = (lambda _line: None) if args.json else print
    shown = progress(f"bench {args.bench}")
    if args.bench == "speed":
        from .sources.catalog_file import load_dump_dir

        sizes = _sizes(args.sizes)  # checked before the real catalogs load
        real_dir = _real_dir(args)
        real = ws = None
        if real_dir is not None and real_dir.is_dir():
            shown(f"loading {real_dir}")
            ws = load_dump_dir(real_dir)
            real = (ws.tool_defs(), ws.registry())
        elif real_dir is not None:  # named: say which folder is missing (on stderr, so
            # --json says it too: a mistyped folder printed other figures without a word)
            why = "not a folder" if os.path.lexists(real_dir) else "no such folder"
            warn(f"--catalogs {real_dir}: {why}: generated catalogs only")
        else:
            quiet("(no ../shared/catalogs/real here: generated catalogs only)")
        results = module.run_speed(real, quiet, sizes=sizes, step=shown)
        if ws is not None:
            shown("real session: a tuning change, then a server detached")
            results["real"]["session_tuning_change_ms"] = module.measure_tuning(ws)
            quiet(f"real session: tuning change (new state: assembly + server rows) median "
                  f"{results['real']['session_tuning_change_ms']:.2f} ms")
            results["real"]["session_toggle_ms"] = module.measure_toggle(ws)
            quiet(f"real session: a server detached (an attachment not seen before: assembly "
                  f"+ server rows) median {results['real']['session_toggle_ms']:.2f} ms")
        _emit(args, results)
        return 0
    if args.bench == "attach":
        _emit(args, module.run_attach_bench(quiet, step=shown))
        return 0
    if args.bench == "gateway":
        _emit(args, module.run_gateway_bench(quiet, real_dir=_real_dir(args), step=shown))
        return 0
    real_dir = _real_dir(args)
    _emit(args, module.run_tui_bench([str(real_dir)] if real_dir else [], quiet, step=shown))
    return 0


def _run_operator_bench(args: argparse.Namespace) -> int:
    if args.bench == "recall" and args.queries is not None and not args.queries.strip():
        from .cli import CliError  # --queries "$UNSET" ran the whole suite (minutes), not this

        raise CliError("argument --queries: empty; expected a query file or a bundled set's "
                       "name (see toolsearch bench recall --help)")
    if args.bench == "recall" and not args.sources and args.queries is None:
        suite = benchmark("recall_suite")
        if suite is None:
            print("toolsearch: error: bench recall with no SOURCE (the whole suite) runs from a "
                  "source checkout (its benchmarks/ folder is not installed with the package)",
                  file=sys.stderr)
            return 1
        return int(suite.run_suite(shared_dir() or Path("../shared"), print,
                                   progress=progress("bench recall")))
    if args.bench == "recall" and not (args.sources and args.queries):
        from .cli import CliError

        raise CliError("bench recall takes SOURCE... and --queries FILE.jsonl (or neither, "
                       "for the whole suite)")
    if args.bench in ("recall", "reach"):
        from . import recall
        from .cli import load_workspace
        from .session import SessionState

        queries: tuple[recall.Query, ...] = ()
        if args.bench == "recall":  # the query file first: a bad one fails before any server
            from .cli import CliError  # starts, in one line without a Python type name

            path = recall.query_file(args.queries)
            if not os.path.lexists(path):
                sets = recall.bundled_query_sets()
                raise CliError(f"{args.queries}: no such file, and not a bundled query set"
                               + (f" (bundled: {', '.join(sets)})" if sets else ""))
            try:
                queries = recall.load_queries(path)
            except (ValueError, RecursionError) as exc:
                raise CliError(str(exc) if isinstance(exc, ValueError) else
                               f"{args.queries}: a line is nested too deeply") from None
            if not queries:
                raise CliError(f"{args.queries}: no queries (JSON lines such as "
                               '{"query": "...", "gold": ["TOOL"]})')
        ws = load_workspace(args.sources, timeout=args.timeout)
        state = SessionState.from_workspace(ws, profile=args.profile, context_length=args.context)
        shown = progress(f"bench {args.bench}")
        if args.bench == "recall":
            started = time.perf_counter()
            shown(f"{len(queries):,} queries over {len(state.session_defs):,} tools")
            report = recall.run_recall(state, queries, args.profile, tick=(
                lambda done: shown.count(done, len(queries), "queries")) if shown.enabled
                else None)
            seconds = time.perf_counter() - started
            payload = {**report.as_json(), "seconds": round(seconds, 3)}
            _emit(args, payload, recall.format_recall(report)
                  + f"\n{report.n} queries over {len(state.session_defs)} tools in {seconds:.2f} s")
        else:
            shown(f"two searches for each of {len(state.session_defs):,} tools")
            reach = recall.run_reach(state, args.profile, tick=(
                lambda done, total: shown.count(done, total, "tools")) if shown.enabled
                else None)
            _emit(args, reach.as_json(), recall.format_reach(reach))
        return 0
    raise ValueError(f"unknown bench {args.bench}")


def _run(args: argparse.Namespace) -> int:
    return run_bench(args)
