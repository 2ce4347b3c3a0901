"""``toolsearch bench attach``: how fast live servers attach.

Two figures, each against its target:

1. **Parallel attach.** Ten stdio servers whose start-up latency ranges from 0.1 to 1.0 s
   (a server waiting on auth, a network or a cold cache) are attached together and compared
   with attaching the slowest of them alone. Target: at most 1.5x. These are the
   standard-library ``minimal`` servers, so the figure measures the client (spawn, handshake,
   paging, shutdown, all in parallel) rather than the servers' own start-up CPU. For
   information, the same is measured with SDK-built servers: each imports the SDK (about a
   second of CPU), so on a machine with few cores that ratio mostly measures the cores.
2. **Paging.** One SDK (lowlevel) server with 1,000 tools served over pages of 100
   (10 ``tools/list`` round trips). Target: the listing (all pages) under 2 s; the whole
   attach (spawn, handshake, list, shut down) is reported beside it.

"Attach" is what ``load_sources`` does per server: start it, initialise, list every page,
stop it. Figures are the best of a few runs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import anyio

from toolsearch.sources.live import ServerConfig, list_all_tools, list_servers, open_client

from .servers import server_command

SERVERS = 10
PARALLEL_TARGET = 1.5
PAGED_TOOLS = 1000
PAGE_SIZE = 100
PAGED_TARGET_S = 2.0


def _server(name: str, *args: str, module: str = "paged") -> ServerConfig:
    command, argv = server_command(module, "--name", name, *args)
    return ServerConfig(name=name, command=command, args=argv)


def _attach(configs: list[ServerConfig], timeout: float = 60.0) -> float:
    async def run() -> float:
        started = time.perf_counter()
        listings = await list_servers(configs, timeout=timeout)
        elapsed = time.perf_counter() - started
        failed = [x.toolset for x in listings if x.toolset.status.value != "connected"]
        if failed:
            raise RuntimeError(f"bench server {failed[0].name} failed: {failed[0].error}")
        return elapsed

    return anyio.run(run)


def _best(runs: int, measure: Callable[[], float]) -> float:
    return min(measure() for _ in range(runs))


def _paged(tools: int, page_size: int) -> tuple[float, float, int]:
    config = _server("paged", "--tools", str(tools), "--page-size", str(page_size))

    async def run() -> tuple[float, float, int]:
        started = time.perf_counter()
        async with open_client(config) as client:
            listed_at = time.perf_counter()
            found = await list_all_tools(client)
            list_s = time.perf_counter() - listed_at
        return list_s, time.perf_counter() - started, len(found)

    return anyio.run(run)


def _say_nothing(_what: str) -> None:
    pass


def _parallel(print_fn: Callable[[str], Any], label: str, configs: list[ServerConfig],
              runs: int, step: Callable[[str], None]) -> tuple[float, float]:
    step(f"{label}: the slowest alone, then all {len(configs)} together"
         + (f" ({runs} runs each)" if runs > 1 else ""))
    alone = _best(runs, lambda: _attach([configs[-1]]))
    together = _best(runs, lambda: _attach(configs))
    print_fn(f"  {label}: slowest alone {alone:.2f} s, all {len(configs)} together "
             f"{together:.2f} s: {together / alone:.2f}x")
    return alone, together


def run_attach_bench(print_fn: Callable[[str], Any] = print, *, servers: int = SERVERS,
                     tools: int = PAGED_TOOLS, page_size: int = PAGE_SIZE,
                     runs: int = 3, step: Callable[[str], None] = _say_nothing
                     ) -> dict[str, Any]:
    """Run the attach benchmark, printing a line per figure; returns every figure. *step* is
    told each stage as it starts (``bench attach`` shows them on a terminal)."""
    delays = [round(0.1 * (i + 1) * SERVERS / servers, 3) for i in range(servers)]
    print_fn(f"attach: {servers} stdio servers, start-up latency {delays[0]:g}-{delays[-1]:g} s "
             f"({os.cpu_count()} CPUs, best of {runs})")
    minimal = [_server(f"m{i}", "--delay", str(d), module="minimal")
               for i, d in enumerate(delays)]
    alone, together = _parallel(print_fn, "minimal servers", minimal, runs, step)
    ratio = together / alone
    parallel_ok = ratio <= PARALLEL_TARGET
    print_fn(f"  -> {ratio:.2f}x (target <= {PARALLEL_TARGET}x) {'ok' if parallel_ok else 'SLOW'}")
    sdk = [_server(f"s{i}", "--delay", str(d), "--tools", "20") for i, d in enumerate(delays)]
    sdk_alone, sdk_together = _parallel(print_fn, "SDK servers (for information)", sdk, 1, step)
    plain = [_server(f"p{i}", "--tools", "20") for i in range(servers)]
    plain_alone, plain_together = _parallel(
        print_fn, "SDK servers, no latency (CPU-bound, for information)", plain, 1, step)

    step(f"paging: {tools:,} tools over pages of {page_size}"
         + (f" ({runs} runs)" if runs > 1 else ""))
    best = min((_paged(tools, page_size) for _ in range(runs)), key=lambda r: r[0])
    list_s, attach_s, count = best
    pages = -(-tools // page_size)
    paged_ok = list_s < PAGED_TARGET_S and count == tools
    print_fn(f"paging: {count} tools over {pages} pages listed in {list_s:.3f} s "
             f"(target < {PAGED_TARGET_S:g} s) {'ok' if paged_ok else 'SLOW'}; "
             f"whole attach {attach_s:.2f} s")
    return {
        "servers": servers,
        "delays_s": delays,
        "cpus": os.cpu_count(),
        "slowest_alone_s": round(alone, 3),
        "parallel_s": round(together, 3),
        "ratio": round(ratio, 3),
        "ratio_target": PARALLEL_TARGET,
        "parallel_ok": parallel_ok,
        "sdk_slowest_alone_s": round(sdk_alone, 3),
        "sdk_parallel_s": round(sdk_together, 3),
        "sdk_no_latency_alone_s": round(plain_alone, 3),
        "sdk_no_latency_parallel_s": round(plain_together, 3),
        "paged_tools": count,
        "pages": pages,
        "paged_list_s": round(list_s, 3),
        "paged_attach_s": round(attach_s, 3),
        "paged_target_s": PAGED_TARGET_S,
        "paged_ok": paged_ok,
        "ok": parallel_ok and paged_ok,
    }


if __name__ == "__main__":
    result = run_attach_bench()
    raise SystemExit(0 if result["ok"] else 1)
