"""``toolsearch bench gateway``: what the gateway costs a client (issue #12 targets).

1. **Added latency of tool_call.** One client calls ``add`` on a stdio upstream directly, then
   through the gateway (``tool_call`` over stdio, the gateway's own stdio connection to the
   same kind of upstream). Added = gateway figure minus direct figure, median and p95.
   Targets: <= 2 ms median, <= 5 ms p95. Measured twice: with the upstream as the gateway's
   only source, and with the 4,932 real tools loaded beside it (``big``: the session the
   bridge guards are checked against is then large). Beside them, the **floor**: an empty
   pass-through made of the ``mcp`` SDK alone (``gateway_floor.py``: the SDK's stdio
   server forwarding to the same upstream through the SDK's client), which shows what the
   SDK's two hops cost before the gateway does anything.
2. **tool_search round trip over stdio at 4,932 tools** (the real dumps in
   ``../shared/catalogs/real`` as the gateway's source). Target: <= 5 ms median.
3. **100 concurrent tool_calls against a 50 ms upstream** tool, wall time. Target: <= 0.5 s.

Sequential calls alternate the direct and the gateway runs in rounds so load on a shared
machine hits both alike; every figure is printed with its target.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import anyio

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
UPSTREAM = HERE / "gateway_upstream.py"
FLOOR = HERE / "gateway_floor.py"
QUERIES = ("create github issue", "search web pages", "list files in a folder",
           "send a slack message", "query database table", "read aws cloudwatch logs")
TARGETS = {"added_median_ms": 2.0, "added_p95_ms": 5.0, "big_added_median_ms": 2.0,
           "big_added_p95_ms": 5.0, "search_median_ms": 5.0, "concurrent_100_s": 0.5}


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


INTERRUPTED = b"toolsearch: interrupted"
STOPPED = b"toolsearch serve: stopped ("
"""How a gateway the bench stops (SIGTERM) says it stopped: not news either."""
#: What a gateway says on a normal start ("events -> FILE", "N tools offered (...)"): the bench
#: starts three, so these lines are not news and are not relayed.
START_LINE = re.compile(rb"toolsearch serve: (events -> |[\d,]+ tools offered )")
_errlog: IO[str] | None = None
"""Where the servers this bench starts write their stderr (:func:`_servers_stderr_relayed`)."""


def _client(command: list[str]) -> Any:
    import mcp_types as types
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], env=_env())
    server = params if _errlog is None else stdio_client(params, errlog=_errlog)
    return Client(server, mode="legacy", cache=None,
                  client_info=types.Implementation(name="bench", version="1"))


@contextlib.contextmanager
def _servers_stderr_relayed(grace: float = 1.0) -> Iterator[None]:
    """The servers' stderr comes through a pipe and is relayed to ours line by line, minus
    their normal start lines and their own stop line (``toolsearch serve: stopped``; on
    Ctrl+C or SIGTERM the bench stops its gateways with SIGTERM and each said it too: the
    user read it three times). Everything else they write (an error, a warning) is relayed, before the bench's
    own last line: on the way out the relay waits up to *grace* seconds for the servers to
    close the pipe."""
    global _errlog
    read_fd, write_fd = os.pipe()

    def relay() -> None:
        with open(read_fd, "rb") as reader:
            for line in reader:
                if line.rstrip(b"\r\n") != INTERRUPTED and not START_LINE.match(line) \
                        and not line.startswith(STOPPED):
                    sys.stderr.write(line.decode(errors="replace"))
                    sys.stderr.flush()

    thread = threading.Thread(target=relay, name="bench stderr relay", daemon=True)
    thread.start()
    with open(write_fd, "w") as writer:
        _errlog = writer
        try:
            yield
        finally:
            _errlog = None
    thread.join(grace)


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


def _figures(name: str, times: list[float], direct: list[float]) -> dict[str, float]:
    """``floor_*`` / ``gateway_*`` / ``big_gateway_*`` medians and p95s, and what each adds
    over the direct call (``floor_added_*``, ``added_*``, ``big_added_*``)."""
    shown = {"floor": "floor", "": "gateway", "big": "big_gateway"}[name]
    added = {"floor": "floor_added", "": "added", "big": "big_added"}[name]
    median, p95 = statistics.median(times), _pct(times, 0.95)
    return {f"{shown}_median_ms": median, f"{shown}_p95_ms": p95,
            f"{added}_median_ms": median - statistics.median(direct),
            f"{added}_p95_ms": p95 - _pct(direct, 0.95)}


def _say_nothing(_what: str) -> None:
    pass


def _stop_children() -> None:
    """SIGTERM every server this process started, each in its own process group as the mcp
    SDK starts them."""
    me = Path(f"/proc/{os.getpid()}/task")
    try:
        pids = {int(c) for task in me.iterdir()
                for c in (task / "children").read_text().split()}
    except OSError:
        return  # no /proc: the SDK's own shutdown, slower but complete
    for pid in pids:
        with contextlib.suppress(OSError):
            if os.getpgid(pid) == pid:  # a group of its own: a server and its children
                os.killpg(pid, signal.SIGTERM)


@contextlib.contextmanager
def _servers_stopped_on_ctrl_c() -> Iterator[None]:
    """On Ctrl-C (or SIGTERM, which the CLI turns into one), stop every server at once, then
    let the event loop cancel as it would. Without it the mcp SDK closes each server's stdin
    and waits up to 2 s for it, one server after another, and a client still connecting
    does so before the cancellation reaches this bench: a gateway busy loading its catalogs
    reads no stdin, so Ctrl-C waited for the load and the grace periods (4 to 6 s)."""
    previous = signal.getsignal(signal.SIGINT)

    def interrupted(signum: int, frame: Any) -> None:
        _stop_children()
        if callable(previous):
            previous(signum, frame)
        else:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


async def _latency(config: Path, real: Path | None, tmp: Path, rounds: int, per_round: int,
                   step: Callable[[str], None] = _say_nothing) -> dict[str, Any]:
    from contextlib import AsyncExitStack

    with _servers_stopped_on_ctrl_c():
        async with AsyncExitStack() as stack:
            return await _measure_latency(stack, config, real, tmp, rounds, per_round, step)


async def _measure_latency(stack: Any, config: Path, real: Path | None, tmp: Path,
                           rounds: int, per_round: int, step: Callable[[str], None]
                           ) -> dict[str, Any]:
    add = {"a": 1, "b": 2}
    bridged = {"name": "mcp__benchup__add", "arguments": add}
    step("starting the upstream server, the floor and the gateway"
         + (f" (and a gateway loading {real})" if real is not None else ""))
    up = await stack.enter_async_context(_client([sys.executable, str(UPSTREAM)]))
    floor = await stack.enter_async_context(
        _client([sys.executable, str(FLOOR), str(UPSTREAM)]))
    gw = await stack.enter_async_context(
        _client(_gateway_cmd([str(config)], tmp / "events.jsonl")))
    calls: dict[str, Callable[[], Any]] = {
        "direct": lambda: up.call_tool("add", add),
        "floor": lambda: floor.call_tool("add", add),
        "": lambda: gw.call_tool("tool_call", bridged),
    }
    if real is not None:
        big = await stack.enter_async_context(
            _client(_gateway_cmd([str(config), str(real)], tmp / "events-big.jsonl")))
        calls["big"] = lambda: big.call_tool("tool_call", bridged)
    times: dict[str, list[float]] = {name: [] for name in calls}
    step("warming up every path")
    for call in calls.values():  # warm up every path
        await _timed(call, 20)
    for number in range(rounds):  # alternate, so load on a shared machine hits all alike
        step(f"tool_call latency: round {number + 1} of {rounds}")
        for name, call in calls.items():
            times[name] += await _timed(call, per_round)

    step("100 concurrent calls, directly and through the gateway")
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
    direct = times.pop("direct")
    results: dict[str, Any] = {
        "direct_median_ms": statistics.median(direct), "direct_p95_ms": _pct(direct, 0.95),
        "calls": len(direct), "concurrent_100_s": concurrent,
        "direct_concurrent_100_s": direct_concurrent,
    }
    for name, values in times.items():
        results.update(_figures(name, values, direct))
    return results


async def _search(real: Path, events: Path, n: int,
                  step: Callable[[str], None] = _say_nothing) -> dict[str, Any]:
    with _servers_stopped_on_ctrl_c():
        return await _measure_search(real, events, n, step)


async def _measure_search(real: Path, events: Path, n: int, step: Callable[[str], None]
                          ) -> dict[str, Any]:
    step(f"starting a gateway on {real}")
    async with _client(_gateway_cmd([str(real)], events)) as gw:
        tools = (await gw.list_tools()).tools
        deferred = json.loads((await gw.call_tool("tool_search", {"query": QUERIES[0]}))
                              .content[0].text)["total_available"]
        i = 0

        def call() -> Any:
            nonlocal i
            i += 1
            return gw.call_tool("tool_search", {"query": QUERIES[i % len(QUERIES)]})

        step(f"tool_search: {n} searches")
        await _timed(call, 20)
        times = await _timed(call, n)
    return {"search_median_ms": statistics.median(times), "search_p95_ms": _pct(times, 0.95),
            "search_deferred_tools": deferred, "offered_tools": len(tools), "searches": n}


def run_gateway_bench(say: Callable[[str], None], *, real_dir: Path | None,
                      rounds: int = 10, per_round: int = 50, searches: int = 300,
                      step: Callable[[str], None] = _say_nothing) -> dict[str, Any]:
    """Measure and print the gateway's figures. *step* is told each step as it starts
    (progress on stderr)."""
    with tempfile.TemporaryDirectory(prefix="ts-bench-gw-") as tmp:
        config = Path(tmp) / "servers.json"
        config.write_text(json.dumps({"mcpServers": {"benchup": {
            "command": sys.executable, "args": [str(UPSTREAM)]}}}))
        say("gateway bench: tool_call latency, direct vs through the gateway (stdio)...")
        real = real_dir if real_dir is not None and real_dir.is_dir() else None
        with _servers_stderr_relayed():
            results = anyio.run(_latency, config, real, Path(tmp), rounds, per_round, step)
            if real_dir is not None and real_dir.is_dir():
                say(f"gateway bench: tool_search over stdio with {real_dir} as the source...")
                results.update(anyio.run(_search, real_dir, Path(tmp) / "events2.jsonl",
                                         searches, step))
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
    if "big_gateway_median_ms" in results:
        say(f"  through the gateway with the 4,932 real tools loaded too: median "
            f"{results['big_gateway_median_ms']:.3f} ms, p95 "
            f"{results['big_gateway_p95_ms']:.3f} ms")
    say(f"  floor (an empty pass-through of the mcp SDK alone, same two stdio hops): added "
        f"median {results['floor_added_median_ms']:.3f} ms, p95 "
        f"{results['floor_added_p95_ms']:.3f} ms")
    say(f"  load average (1 min) while measuring: {os.getloadavg()[0]:.2f} on "
        f"{os.cpu_count()} cores")
    if "search_median_ms" in results:
        say(f"  tool_search: {results['search_deferred_tools']} deferred tools, p95 "
            f"{results['search_p95_ms']:.3f} ms over {results['searches']} searches")
    return results
