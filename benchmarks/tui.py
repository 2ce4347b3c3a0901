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
import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .tui_floor import median, run_floor

REAL_CATALOGS = Path(__file__).resolve().parents[2] / "shared" / "catalogs" / "real"
SIZE = (120, 40)
TARGET_CHANGE_MS = 100.0
TARGET_PAINT_S = 1.0
TARGET_PAINT_BUSY_S = 2.0
TARGET_KEY_MS = 50.0
PAINT_RUNS = 5
KEYS: tuple[str, ...] = (
    "down", "down", "a", "a", "s", "s", "S", "S", "2", "down", "down", "pagedown", "end",
    "home", "slash", *"deferred", "enter", "down", "escape", "S", "S", "S", "3",
    "right_square_bracket", "right_square_bracket", "4", "slash", *"issue", "escape", "5", "6",
    "tab", "tab", "tab", "tab", "end", "0", "backspace", "escape", "7", "1", "question_mark",
    "escape",
)
"""Keys an operator presses from launch, across every tab (timed one by one)."""
AGAIN_KEYS: tuple[str, ...] = ("2", "3", "4", "5", "7", "1")
"""Tab switches after the tour, to tabs shown before."""
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
    """Runs in a fresh interpreter: print the wall-clock times of the first frame drawn with
    the shown panes filled (gauges and the Servers table) and of every pane being ready."""
    import textual.lazy
    from textual.screen import Screen

    from tui.app import ToolSearchApp
    from tui.widgets.gauges import GaugesPane
    from tui.widgets.servers import ServersPane

    marks: dict[str, float] = {}
    app = ToolSearchApp(["seed-demo"], exact=False)
    refresh = Screen._compositor_refresh

    def filled(screen: Screen[object]) -> bool:
        if app.session is None or not app.session.workspace.toolsets:
            return False
        try:
            return screen.query_one(ServersPane).table.row_count > 0 and \
                screen.query_one(GaugesPane).figures is not None
        except Exception:
            return False

    def timed_refresh(screen: Screen[object]) -> None:  # the frame Textual draws itself
        ready = "painted" not in marks and filled(screen)
        refresh(screen)
        if ready:
            marks["painted"] = time.time()

    Screen._compositor_refresh = timed_refresh  # type: ignore[method-assign]

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            while "painted" not in marks:
                await asyncio.sleep(0.002)
            while app.screen.query(textual.lazy.Lazy):  # hidden panes mount after the frame
                await pilot.pause()
            await pilot.pause()
            marks["ready"] = time.time()

    asyncio.run(main())
    print(json.dumps(marks))


def _paint_child_env() -> dict[str, str]:
    """The children's environment: no animations, and a bytecode cache of their own (so a
    PYTHONDONTWRITEBYTECODE shell still measures a warm start after the first, cold run)."""
    env = {**os.environ, "TEXTUAL_ANIMATIONS": "none"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if "PYTHONPYCACHEPREFIX" not in env:
        env["PYTHONPYCACHEPREFIX"] = str(_PYCACHE)
    return env


_PYCACHE = Path(os.environ.get("TMPDIR", "/tmp")) / f"toolsearch-bench-pyc-{os.getpid()}"


def first_paint_seconds() -> tuple[float, float]:
    """Launch a fresh interpreter: (seconds to the first filled frame, seconds until every
    pane is mounted and idle)."""
    start = time.time()
    out = subprocess.run([sys.executable, "-c", "from benchmarks.tui import _first_paint_child;"
                          "_first_paint_child()"], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1], env=_paint_child_env())
    marks = json.loads(out.stdout.strip().splitlines()[-1])
    return float(marks["painted"]) - start, float(marks["ready"]) - start


def _say_nothing(_what: str) -> None:
    pass


def first_paint_runs(runs: int = PAINT_RUNS, step: Callable[[str], None] = _say_nothing
                     ) -> dict[str, float]:
    """The first (cold: nothing compiled yet) run, then the median of *runs* warm starts."""
    step(f"first paint in a fresh interpreter: start 1 of {runs + 1} (cold)")
    cold, _ = first_paint_seconds()
    warm = []
    for run in range(runs):
        step(f"first paint in a fresh interpreter: start {run + 2} of {runs + 1}")
        warm.append(first_paint_seconds())
    warm.sort()
    mid = warm[len(warm) // 2]
    return {"cold_s": cold, "painted_s": mid[0], "ready_s": mid[1],
            "painted_max_s": max(p for p, _ in warm)}


def first_paint_busy_runs(runs: int = PAINT_RUNS, step: Callable[[str], None] = _say_nothing
                          ) -> dict[str, float]:
    """First paint while another process keeps one core busy (a spinning interpreter)."""
    # stderr silenced: a terminal's Ctrl-C reaches the spinner too (our process group), and
    # its KeyboardInterrupt traceback would follow the one "interrupted" line
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                               stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.2)
        warm = []
        for run in range(runs):
            step(f"first paint with one core kept busy: start {run + 1} of {runs}")
            warm.append(first_paint_seconds())
        warm.sort()
    finally:
        spinner.kill()
        spinner.wait()
    mid = warm[len(warm) // 2]
    return {"painted_s": mid[0], "ready_s": mid[1], "painted_max_s": max(p for p, _ in warm)}


CURSOR_KEYS = frozenset({"up", "down", "pageup", "pagedown", "home", "end"})
KEY_KINDS = ("tab switch", "cursor move", "typing in a filter", "tuning digit", "sort",
             "other")


def key_kind(key: str, focused: Any) -> str:
    """What an operator's key does, from the key and the widget holding the cursor."""
    from textual.widgets import Input

    from tui.widgets.tuning import TuningPane

    if isinstance(focused, Input):
        if any(isinstance(node, TuningPane) for node in focused.ancestors):
            return "tuning digit" if len(key) == 1 or key == "backspace" else "other"
        return "typing in a filter" if len(key) == 1 or key == "backspace" else "other"
    if key.isdigit():
        return "tab switch"
    if key in CURSOR_KEYS:
        return "cursor move"
    return "sort" if key == "S" else "other"


class FrameClock:
    """Times of the frames the app draws itself, and of each key event reaching the app."""

    def __init__(self, app: Any) -> None:
        from textual import events
        from textual.screen import Screen

        self.app = app
        self.frames: list[float] = []
        self.keys_seen: list[float] = []
        self._refresh = Screen._compositor_refresh
        self._on_event = app.on_event
        clock = self

        def refresh(screen: Any) -> None:
            clock._refresh(screen)
            clock.frames.append(time.perf_counter())

        async def on_event(event: Any) -> None:
            if isinstance(event, events.Key):
                clock.keys_seen.append(time.perf_counter())
            await clock._on_event(event)

        Screen._compositor_refresh = refresh  # type: ignore[method-assign]
        app.on_event = on_event

    def close(self) -> None:
        from textual.screen import Screen

        Screen._compositor_refresh = self._refresh  # type: ignore[method-assign]

    def quiet(self, nodes: Sequence[Any] | None = None) -> bool:
        """No message waiting in any queue and nothing left to draw (timers may be pending).
        *nodes*: the DOM as it was a moment ago (walking it costs ~0.2 ms)."""
        app = self.app
        screen = app.screen
        if screen._dirty_widgets or screen._layout_required or screen._repaint_required:
            return False
        for node in nodes if nodes is not None else self.nodes():
            if not node._message_queue.empty() or node._next_callbacks:
                return False
        return True

    def nodes(self) -> list[Any]:
        return [self.app, *self.app.screen.walk_children(with_self=True)]


async def _stall_probe(stalls: list[tuple[float, float]], stop: asyncio.Event) -> None:
    """Wake every millisecond; a late wake-up is a stretch the event loop was blocked."""
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        if now - last > 0.004:
            stalls.append((last, now))
        last = now


async def _key_latencies(pilot: Any, app: Any, keys: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Each key from launch, sent as the terminal would send it: the time from the key
    entering the app's queue until the app has handled it and every message it caused, and
    drawn the frame that shows it (``ms``); and the longest stretch the event loop stays
    blocked in the 0.4 s after the key, debounced work included (``stall_ms``: a key typed
    then waits that long). Pilot's own waiting is not in these figures, nor animations (the
    tab underline's slide is turned off, as ``TEXTUAL_ANIMATIONS=none`` does)."""
    from textual import events

    clock = FrameClock(app)
    animations, app.animation_level = app.animation_level, "none"  # eye candy, not work
    stalls: list[tuple[float, float]] = []
    stop = asyncio.Event()
    probe = asyncio.create_task(_stall_probe(stalls, stop))
    out: list[dict[str, Any]] = []
    try:
        for key in keys or KEYS:
            kind = key_kind(key, app.focused)
            char = key if len(key) == 1 else {"slash": "/", "question_mark": "?",
                                              "right_square_bracket": "]",
                                              "left_square_bracket": "["}.get(key)
            seen = len(clock.keys_seen)
            cpu0 = time.process_time()
            t0 = time.perf_counter()
            event = events.Key(key, char)
            app._driver.send_message(event)  # as the terminal's reader thread does
            nodes = clock.nodes()
            while True:
                await asyncio.sleep(0.0005)
                if len(clock.keys_seen) > seen and clock.quiet(nodes):
                    nodes = clock.nodes()  # the DOM may have changed: check it afresh
                    if clock.quiet(nodes):
                        break
                if time.perf_counter() - t0 > 5:
                    break
                if time.perf_counter() - t0 > 5:
                    break
            done = time.perf_counter()
            cpu = (time.process_time() - cpu0) * 1000.0
            frames = [f for f in clock.frames if t0 <= f <= done]
            ms = ((frames[-1] if frames else done) - t0) * 1000.0
            await asyncio.sleep(0.4)  # debounced work (filters, search) runs in here
            stall = max((b - max(a, t0) for a, b in stalls if b > t0), default=0.0) * 1000.0
            stalls.clear()
            out.append({"key": key, "kind": kind, "ms": ms, "stall_ms": max(stall, 0.0),
                        "cpu_ms": cpu})
    finally:
        stop.set()
        await probe
        clock.close()
        app.animation_level = animations
    return out


def key_summary(keys: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per kind of key: count, median, p95 and max of ``ms`` and the worst stall."""
    summary: dict[str, dict[str, float]] = {}
    for kind in KEY_KINDS:
        values = sorted(k["ms"] for k in keys if k["kind"] == kind)
        if not values:
            continue
        summary[kind] = {
            "n": len(values), "median_ms": values[len(values) // 2],
            "p95_ms": values[min(len(values) - 1, round(0.95 * (len(values) - 1)))],
            "max_ms": values[-1],
            "worst_stall_ms": max(k["stall_ms"] for k in keys if k["kind"] == kind),
            "median_cpu_ms": sorted(k["cpu_ms"] for k in keys if k["kind"] == kind)[
                len(values) // 2],
        }
    return summary


def load_big(sources: Sequence[str]) -> Any:
    from toolsearch.sources.catalog_file import load_dump_dir

    if not sources:
        return load_dump_dir(REAL_CATALOGS)
    if len(sources) == 1 and Path(sources[0]).is_dir():
        return load_dump_dir(Path(sources[0]))
    from toolsearch.sources import load_sources

    return load_sources(list(sources))


async def _big_figures(workspace: Any, step: Callable[[str], None] = _say_nothing
                       ) -> dict[str, Any]:
    from textual.widgets import TabbedContent

    from toolsearch.session import SessionState
    from tui.app import ToolSearchApp
    from tui.widgets.gauges import GaugesPane
    from tui.widgets.tools import ToolsPane

    figures: dict[str, Any] = {"tools": sum(len(t.tools) for t in workspace.toolsets),
                               "toolsets": len(workspace.toolsets)}
    step(f"opening the app on {figures['tools']:,} tools")
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
        for number, tab in enumerate(("tools", "servers", "listing"), 1):
            step(f"tuning changes with the {tab} tab showing (tab {number} of 3)")
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
        step("keys across every tab")
        figures["key_ms"] = await _key_latencies(pilot, app)
        # every tab once more, each shown before (Tuning left out: it puts the cursor in a field)
        figures["tab_again_ms"] = await _key_latencies(pilot, app, AGAIN_KEYS)
        figures["rss_mb"], figures["peak_rss_mb"] = rss_mb()
    return figures


def print_textual_floor(result: dict[str, Any], workspace: Any, keys: list[dict[str, Any]],
                        again: list[dict[str, Any]], print_fn: Callable[[str], None],
                        step: Callable[[str], None] = _say_nothing) -> None:
    """The same tab switches timed on a stock Textual app of the same shape
    (benchmarks/tui_floor.py), printed beside ours: what Textual itself costs here, now."""
    tab_keys = [k for k in KEYS if k.isdigit()]
    names = [t.name for ts in workspace.toolsets for t in ts.tools]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    gc.collect()  # our app's garbage is collected here, not inside the floor's keys
    step("the same tab switches on a stock Textual app (the floor)")
    floor = run_floor(len(names), tab_keys, names, SIZE)
    ours = median([k["ms"] for k in keys if k["kind"] == "tab switch"])
    ours_again = median([k["ms"] for k in again])
    result["textual_floor"] = floor
    result["tab_again_median_ms"] = ours_again
    print_fn(f"  Textual floor (stock TabbedContent of 7 panes, DataTable of {len(names):,} rows, "
             f"Header, Footer, same size and keys; load {load:.2f}): tab switch median "
             f"{floor['first_median_ms']:.1f} ms on first show, {floor['again_median_ms']:.1f} "
             f"ms shown before; ours {ours:.1f} ms (the tour's tab switches are first shows "
             f"but the last), {ours_again:.1f} ms shown before ({len(again)} keys after the "
             f"tour)")


def run_tui_bench(sources: Sequence[str], print_fn: Callable[[str], None] = print,
                  step: Callable[[str], None] = _say_nothing) -> dict[str, Any]:
    """Measure and print the app's figures; returns them as a dict. *step* is told each step
    as it starts (progress on stderr)."""
    result: dict[str, Any] = {}
    try:
        paint = first_paint_runs(step=step)
        busy = first_paint_busy_runs(step=step)
    finally:
        import shutil

        shutil.rmtree(_PYCACHE, ignore_errors=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    result["first_paint_seed_demo_s"] = paint["painted_s"]
    result["first_paint"] = paint
    print_fn(f"first paint (seed-demo, fresh interpreter, median of {PAINT_RUNS} warm starts; "
             f"load {load:.2f}): {paint['painted_s']:.2f} s (slowest {paint['painted_max_s']:.2f}"
             f" s; target {TARGET_PAINT_S} s) "
             f"{'ok' if paint['painted_s'] <= TARGET_PAINT_S else 'SLOW'}")
    print_fn(f"  (the first frame with gauges and the Servers table filled; every pane mounted "
             f"and idle at {paint['ready_s']:.2f} s; the very first, cold start with nothing "
             f"compiled: {paint['cold_s']:.2f} s)")
    result["first_paint_busy_core_s"] = busy["painted_s"]
    result["first_paint_busy"] = busy
    print_fn(f"first paint with another process keeping one core busy: {busy['painted_s']:.2f} s "
             f"(slowest {busy['painted_max_s']:.2f} s; target {TARGET_PAINT_BUSY_S} s) "
             f"{'ok' if busy['painted_s'] <= TARGET_PAINT_BUSY_S else 'SLOW'}")
    step("loading " + (", ".join(sources) if sources else "the catalogs"))
    t0 = time.perf_counter()
    workspace = load_big(sources)
    result["load_s"] = time.perf_counter() - t0
    big = asyncio.run(_big_figures(workspace, step))
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
    summary = key_summary(keys)
    result["keys"] = summary
    worst_key = max(keys, key=lambda k: max(k["ms"], k["stall_ms"]))
    result["worst_key_ms"] = max(worst_key["ms"], worst_key["stall_ms"])
    print_fn(f"keys from launch across every tab ({len(keys)} presses at {big['tools']:,} tools; "
             f"key entering the app -> handled -> frame drawn; stall: longest the app stays "
             f"blocked within 0.4 s after the key, debounced work included; target "
             f"{TARGET_KEY_MS:.0f} ms):")
    for kind, figures in summary.items():
        flag = "ok" if max(figures["max_ms"], figures["worst_stall_ms"]) <= TARGET_KEY_MS \
            else "SLOW"
        print_fn(f"  {kind:<20} n={figures['n']:<3.0f} median {figures['median_ms']:6.1f} ms  "
                 f"p95 {figures['p95_ms']:6.1f}  max {figures['max_ms']:6.1f}  worst stall "
                 f"{figures['worst_stall_ms']:6.1f} ms  (CPU median {figures['median_cpu_ms']:5.1f} ms)  "
                 f"{flag}")
    print_textual_floor(result, workspace, keys, big["tab_again_ms"], print_fn, step)
    slow = [k for k in keys if max(k["ms"], k["stall_ms"]) > TARGET_KEY_MS]
    result["all_keys_median_ms"] = median([k["ms"] for k in keys])
    print_fn(f"  all {len(keys)} keys: median {result['all_keys_median_ms']:.1f} ms; "
             f"{len([k for k in keys if k['ms'] > TARGET_KEY_MS])} over {TARGET_KEY_MS:.0f} ms "
             f"by their own time, {len(slow)} counting the stall after them")
    if slow:
        print_fn("  over target: " + ", ".join(f"{k['key']} {k['ms']:.0f}/{k['stall_ms']:.0f}"
                                                for k in slow))
    rss, peak = big["rss_mb"], big["peak_rss_mb"]
    print_fn(f"resident memory: {rss:.0f} MB (peak {peak:.0f} MB, target "
             f"{TARGET_RSS_MB:.0f} MB) {'ok' if peak <= TARGET_RSS_MB else 'HIGH'}")
    return result


if __name__ == "__main__":
    run_tui_bench(sys.argv[1:])
