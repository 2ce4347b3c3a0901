"""The app's speed and memory figures (``toolsearch bench tui``): printed, not asserted.

* first paint on ``seed-demo``: from launching a fresh interpreter to the first frame with
  every pane filled (target 1.0 s), and again while another process keeps one core busy
  (target 2.0 s);
* every key of an operator's tour of the tabs, timed one by one at ~4,900 tools (target 50 ms);
* with every real catalog attached (about 4,900 tools): how long after a tuning change all
  panes show the new state (target 100 ms), and how quickly a key is handled while the exact
  token counts are being worked out in a thread;
* resident memory (target 400 MB).

Runs headless with ``App.run_test``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REAL_CATALOGS = Path(__file__).resolve().parents[2] / "shared" / "catalogs" / "real"
SIZE = (120, 40)
TARGET_CHANGE_MS = 100.0
TARGET_PAINT_S = 1.0
TARGET_PAINT_BUSY_S = 2.0
TARGET_KEY_MS = 50.0
KEYS: tuple[str, ...] = (
    "down", "down", "a", "a", "s", "s", "S", "S", "2", "down", "down", "pagedown", "end",
    "home", "slash", *"deferred", "enter", "down", "escape", "S", "S", "S", "3",
    "right_square_bracket", "right_square_bracket", "4", "slash", *"issue", "escape", "5", "6",
    "tab", "tab", "escape", "7", "1", "question_mark", "escape",
)
"""Keys an operator presses from launch, across every tab (timed one by one)."""
TARGET_RSS_MB = 400.0


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident set size in MB, from /proc (0 where unavailable)."""
    values = {"VmRSS": 0.0, "VmHWM": 0.0}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in values:
                values[key] = float(rest.split()[0]) / 1024.0
    except OSError:
        pass
    return values["VmRSS"], values["VmHWM"]


def _first_paint_child() -> None:
    """Runs in a fresh interpreter: print the wall-clock time of the first full frame."""
    from tui.app import ToolSearchApp

    async def main() -> None:
        app = ToolSearchApp(["seed-demo"], exact=False)
        async with app.run_test(size=SIZE) as pilot:
            while app.session is None or not app.session.workspace.toolsets:
                await pilot.pause(0.005)
            await pilot.pause()
            app.screen._compositor.render_update(full=True)  # the frame itself
            print(json.dumps({"painted": time.time()}))

    asyncio.run(main())


def first_paint_seconds() -> float:
    """Launch a fresh interpreter and time it to the first painted frame."""
    start = time.time()
    out = subprocess.run([sys.executable, "-c", "from benchmarks.tui import _first_paint_child;"
                          "_first_paint_child()"], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1],
                         env={**os.environ, "TEXTUAL_ANIMATIONS": "none"})
    painted = json.loads(out.stdout.strip().splitlines()[-1])["painted"]
    return float(painted) - start


def first_paint_busy_seconds() -> float:
    """First paint while another process keeps one core busy (a spinning interpreter)."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)
        return first_paint_seconds()
    finally:
        spinner.kill()
        spinner.wait()


async def _key_latencies(pilot: Any, app: Any) -> list[tuple[str, float]]:
    """Each key of :data:`KEYS` from launch: press (the app has handled it and is idle), then
    paint the frame that shows it. (The pilot's wait for every widget to go idle is left out:
    it posts a callback to each of ~300 widgets and measures the pilot, not the app.)"""
    out = []
    for key in KEYS:
        t0 = time.perf_counter()
        await pilot.press(key)
        app.screen._compositor.render_update(full=True)
        out.append((key, (time.perf_counter() - t0) * 1000.0))
    return out


def load_big(sources: Sequence[str]) -> Any:
    from toolsearch.sources.catalog_file import load_dump_dir

    if not sources:
        return load_dump_dir(REAL_CATALOGS)
    if len(sources) == 1 and Path(sources[0]).is_dir():
        return load_dump_dir(Path(sources[0]))
    from toolsearch.sources import load_sources

    return load_sources(list(sources))


async def _big_figures(workspace: Any) -> dict[str, Any]:
    from textual.widgets import TabbedContent

    from toolsearch.session import SessionState
    from tui.app import ToolSearchApp
    from tui.widgets.gauges import GaugesPane
    from tui.widgets.tools import ToolsPane

    figures: dict[str, Any] = {"tools": sum(len(t.tools) for t in workspace.toolsets),
                               "toolsets": len(workspace.toolsets)}
    start = time.perf_counter()
    app = ToolSearchApp(workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        figures["open_s"] = time.perf_counter() - start
        await app.workers.wait_for_complete()
        await pilot.pause()
        figures["exact_counts_first_s"] = time.perf_counter() - start
        app._exact_delay = 10.0  # keep the exact recount out of the change timings below
        session = app.session
        assert session is not None
        first = workspace.toolsets[0].name
        changes: list[tuple[str, Callable[[SessionState], SessionState]]] = [
            ("listing_max_tokens 4000 -> 20000", lambda s: s.with_config(listing_max_tokens=20000)),
            ("threshold_pct 5 -> 0.5", lambda s: s.with_config(threshold_pct=0.5)),
            ("context 200K -> 128K", lambda s: s.with_context(128_000)),
            ("listing off", lambda s: s.with_config(listing="off")),
            ("listing auto", lambda s: s.with_config(listing="auto")),
            (f"detach {first}", lambda s: s.toggled(first)),
            (f"re-attach {first}", lambda s: s.toggled(first)),
            ("enabled off (every row changes)", lambda s: s.with_config(enabled="off")),
            ("enabled on", lambda s: s.with_config(enabled="on")),
        ]
        tabs = app.query_one("#main-tabs", TabbedContent)
        per_tab: dict[str, dict[str, float]] = {}
        for tab in ("tools", "servers", "listing"):
            app.action_show_tab(tab)
            await pilot.pause()
            timings: dict[str, float] = {}
            for label, make in changes:
                state = make(app.session)  # type: ignore[arg-type]
                t0 = time.perf_counter()
                app.change(state)
                await pilot._wait_for_screen()
                await pilot._wait_for_screen()
                app.screen._compositor.render_update(full=True)
                timings[label] = (time.perf_counter() - t0) * 1000.0
                gauges = app.query_one(GaugesPane).figures
                assert gauges is not None and gauges.tier == state.assembly.tier
                assert app.query_one(ToolsPane)._rows
            per_tab[tab] = timings
        figures["change_ms"] = per_tab
        # the Tools pane catches up when it is shown again after changes made while hidden
        app.action_show_tab("servers")
        await pilot.pause()
        app.change(app.session.with_config(enabled="off"))  # type: ignore[union-attr]
        await pilot._wait_for_screen()
        t0 = time.perf_counter()
        tools = app.query_one(ToolsPane)
        assert tools._dirty
        app.action_show_tab("tools")
        while tools._dirty and time.perf_counter() - t0 < 5:
            await asyncio.sleep(0.001)
        await pilot._wait_for_screen()
        app.screen._compositor.render_update(full=True)
        figures["tools_tab_catch_up_ms"] = (time.perf_counter() - t0) * 1000.0
        app.change(app.session.with_config(enabled="on"))  # type: ignore[union-attr]
        await pilot.pause()
        # a key while the exact counts are being worked out in a thread
        app._exact_delay = 0.0
        app.action_show_tab("servers")
        await pilot.pause()
        app.change(app.session.with_config(listing_max_tokens=7000))  # type: ignore[union-attr]
        await asyncio.sleep(0.005)
        t0 = time.perf_counter()
        press = asyncio.create_task(pilot.press("2"))
        while tabs.active != "tab-tools" and time.perf_counter() - t0 < 5:
            await asyncio.sleep(0.001)
        figures["key_during_exact_ms"] = (time.perf_counter() - t0) * 1000.0
        await press
        figures["key_switched_tab"] = tabs.active == "tab-tools"
        await app.workers.wait_for_complete()
        app._exact_delay = 10.0
        app.action_show_tab("servers")
        await pilot.pause()
        figures["key_ms"] = await _key_latencies(pilot, app)
        figures["rss_mb"], figures["peak_rss_mb"] = rss_mb()
    return figures


def run_tui_bench(sources: Sequence[str], print_fn: Callable[[str], None] = print
                  ) -> dict[str, Any]:
    """Measure and print the app's figures; returns them as a dict."""
    result: dict[str, Any] = {}
    paint = first_paint_seconds()
    result["first_paint_seed_demo_s"] = paint
    print_fn(f"first paint (seed-demo, fresh interpreter): {paint:.2f} s "
             f"(target {TARGET_PAINT_S} s) {'ok' if paint <= TARGET_PAINT_S else 'SLOW'}")
    busy = first_paint_busy_seconds()
    result["first_paint_busy_core_s"] = busy
    print_fn(f"first paint with another process keeping one core busy: {busy:.2f} s "
             f"(target {TARGET_PAINT_BUSY_S} s) "
             f"{'ok' if busy <= TARGET_PAINT_BUSY_S else 'SLOW'}")
    t0 = time.perf_counter()
    workspace = load_big(sources)
    result["load_s"] = time.perf_counter() - t0
    big = asyncio.run(_big_figures(workspace))
    result.update(big)
    print_fn(f"workspace: {big['toolsets']} toolsets, {big['tools']:,} tools "
             f"(loaded in {result['load_s']:.2f} s; app open {big['open_s']:.2f} s; "
             f"exact counts done {big['exact_counts_first_s']:.2f} s)")
    worst = 0.0
    for tab, timings in big["change_ms"].items():
        print_fn(f"tuning change -> every pane updated, '{tab}' tab showing:")
        for label, ms in timings.items():
            worst = max(worst, ms)
            flag = "ok" if ms <= TARGET_CHANGE_MS else "SLOW"
            print_fn(f"  {label:<36} {ms:7.1f} ms  {flag}")
    result["worst_change_ms"] = worst
    print_fn(f"worst change: {worst:.1f} ms (target {TARGET_CHANGE_MS:.0f} ms)")
    print_fn(f"Tools tab shown after 4,900 rows changed while hidden: "
             f"{big['tools_tab_catch_up_ms']:.1f} ms")
    print_fn(f"key handled while exact counts run: {big['key_during_exact_ms']:.1f} ms "
             f"(tab switched: {big['key_switched_tab']})")
    keys = big["key_ms"]
    slow = [(k, ms) for k, ms in keys if ms > TARGET_KEY_MS]
    worst_key = max(keys, key=lambda pair: pair[1])
    result["worst_key_ms"] = worst_key[1]
    print_fn(f"keys from launch across every tab ({len(keys)} presses at {big['tools']:,} "
             f"tools): median {sorted(ms for _, ms in keys)[len(keys) // 2]:.1f} ms, worst "
             f"{worst_key[1]:.1f} ms ({worst_key[0]!r}) (target {TARGET_KEY_MS:.0f} ms per key) "
             f"{'ok' if not slow else 'SLOW: ' + ', '.join(f'{k} {ms:.0f}' for k, ms in slow)}")
    rss, peak = big["rss_mb"], big["peak_rss_mb"]
    print_fn(f"resident memory: {rss:.0f} MB (peak {peak:.0f} MB, target "
             f"{TARGET_RSS_MB:.0f} MB) {'ok' if peak <= TARGET_RSS_MB else 'HIGH'}")
    return result


if __name__ == "__main__":
    run_tui_bench(sys.argv[1:])
