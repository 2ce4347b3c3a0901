"""``toolsearch bench gateway``: what the gateway costs a client (issue #12 targets).

1. **Added latency of tool_call.** One client calls ``add`` on a stdio upstream directly, then
   through the gateway (``tool_call`` over stdio, the gateway's own stdio connection to the
   same kind of upstream). Added = gateway figure minus direct figure, median and p95.
   Targets: <= 2 ms median, <= 5 ms p95.
2. **tool_search round trip over stdio at 4,932 tools** (the real dumps in
   ``../shared/catalogs/real`` as the gateway's source). Target: <= 5 ms median.
3. **100 concurrent tool_calls against a 50 ms upstream** tool, wall time. Target: <= 0.5 s.

Sequential calls alternate the direct and the gateway runs in rounds so load on a shared
machine hits both alike; every figure is printed with its target.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
UPSTREAM = HERE / "gateway_upstream.py"
QUERIES = ("create github issue", "search web pages", "list files in a folder",
           "send a slack message", "query database table", "read aws cloudwatch logs")
TARGETS = {"added_median_ms": 2.0, "added_p95_ms": 5.0, "search_median_ms": 5.0,
           "concurrent_100_s": 0.5}


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _client(command: list[str]) -> Any:
    import mcp_types as types
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=command[0], args=command[1:], env=_env())
    return Client(params, mode="legacy", cache=None,
                  client_info=types.Implementation(name="bench", version="1"))


def _gateway_cmd(sources: list[str], events: Path) -> list[str]:
    return [sys.executable, "-m", "toolsearch", "serve", *sources, "--events", str(events)]


async def _timed(call: Callable[[], Any], n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        result = await call()
        out.append((time.perf_counter() - started) * 1000.0)
        if getattr(result, "is_error", False):
            raise RuntimeError(f"benchmark call failed: {result.content}")
    return out


async def _latency(config: Path, events: Path, rounds: int, per_round: int) -> dict[str, Any]:
    direct: list[float] = []
    via: list[float] = []
    async with _client([sys.executable, str(UPSTREAM)]) as up, \
            _client(_gateway_cmd([str(config)], events)) as gw:
        def call_direct() -> Any:
            return up.call_tool("add", {"a": 1, "b": 2})

        def call_gateway() -> Any:
            return gw.call_tool("tool_call", {"name": "mcp__benchup__add",
                                              "arguments": {"a": 1, "b": 2}})

        await _timed(call_direct, 20)  # warm up both paths
        await _timed(call_gateway, 20)
        for _ in range(rounds):
            direct += await _timed(call_direct, per_round)
            via += await _timed(call_gateway, per_round)

        started = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for _ in range(100):
                tg.start_soon(up.call_tool, "wait50", {})
        direct_concurrent = time.perf_counter() - started
        started = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for _ in range(100):
                tg.start_soon(gw.call_tool, "tool_call", {"name": "mcp__benchup__wait50",
                                                           "arguments": {}})
        concurrent = time.perf_counter() - started
    return {
        "direct_median_ms": statistics.median(direct), "direct_p95_ms": _pct(direct, 0.95),
        "gateway_median_ms": statistics.median(via), "gateway_p95_ms": _pct(via, 0.95),
        "added_median_ms": statistics.median(via) - statistics.median(direct),
        "added_p95_ms": _pct(via, 0.95) - _pct(direct, 0.95),
        "calls": len(via), "concurrent_100_s": concurrent,
        "direct_concurrent_100_s": direct_concurrent,
    }


async def _search(real: Path, events: Path, n: int) -> dict[str, Any]:
    async with _client(_gateway_cmd([str(real)], events)) as gw:
        tools = (await gw.list_tools()).tools
        deferred = json.loads((await gw.call_tool("tool_search", {"query": QUERIES[0]}))
                              .content[0].text)["total_available"]
        i = 0

        def call() -> Any:
            nonlocal i
            i += 1
            return gw.call_tool("tool_search", {"query": QUERIES[i % len(QUERIES)]})

        await _timed(call, 20)
        times = await _timed(call, n)
    return {"search_median_ms": statistics.median(times), "search_p95_ms": _pct(times, 0.95),
            "search_deferred_tools": deferred, "offered_tools": len(tools), "searches": n}


def run_gateway_bench(say: Callable[[str], None], *, real_dir: Path | None,
                      rounds: int = 10, per_round: int = 50, searches: int = 300
                      ) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ts-bench-gw-") as tmp:
        config = Path(tmp) / "servers.json"
        config.write_text(json.dumps({"mcpServers": {"benchup": {
            "command": sys.executable, "args": [str(UPSTREAM)]}}}))
        say("gateway bench: tool_call latency, direct vs through the gateway (stdio)...")
        results = anyio.run(_latency, config, Path(tmp) / "events.jsonl", rounds, per_round)
        if real_dir is not None and real_dir.is_dir():
            say(f"gateway bench: tool_search over stdio with {real_dir} as the source...")
            results.update(anyio.run(_search, real_dir, Path(tmp) / "events2.jsonl",
                                     searches))
        else:
            say("(no ../shared/catalogs/real: tool_search round trip skipped)")
    for key, target in TARGETS.items():
        if key not in results:
            continue
        value = results[key]
        unit = "s" if key.endswith("_s") else "ms"
        verdict = "ok" if value <= target else "MISSED"
        say(f"  {key:<20} {value:8.3f} {unit}  (target <= {target:g} {unit})  {verdict}")
    say(f"  direct call median {results['direct_median_ms']:.3f} ms, p95 "
        f"{results['direct_p95_ms']:.3f} ms; through the gateway median "
        f"{results['gateway_median_ms']:.3f} ms, p95 {results['gateway_p95_ms']:.3f} ms "
        f"({results['calls']} calls each); 100 concurrent 50 ms calls directly: "
        f"{results['direct_concurrent_100_s']:.3f} s")
    say(f"  load average (1 min) while measuring: {os.getloadavg()[0]:.2f} on "
        f"{os.cpu_count()} cores")
    if "search_median_ms" in results:
        say(f"  tool_search: {results['search_deferred_tools']} deferred tools, p95 "
            f"{results['search_p95_ms']:.3f} ms over {results['searches']} searches")
    return results
