"""Save docs/screenshot.svg: the app on sample catalog seed-demo, drawn by the app itself.

    python scripts/screenshot.py [--tab tools] [--size 120x40] [-o docs/screenshot.svg]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from pathlib import Path

from textual.worker import WorkerCancelled

from tui.app import ToolSearchApp
from tui.widgets.search import SearchPane
from tui.widgets.tools import ToolsPane

ROOT = Path(__file__).resolve().parent.parent


class _Clock:
    """Fixed 12.5 ms per bridge call, so the picture does not change from run to run."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.0125
        return self.now


async def _settle(pilot) -> None:  # type: ignore[no-untyped-def]
    for _ in range(2):
        await pilot.pause(0.05)
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.2)


async def shoot(out: Path, tab: str, size: tuple[int, int], source: str) -> None:
    app = ToolSearchApp([source], clock=_Clock(), demo_delay=0.0, exact_delay=0.0)
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        app.action_show_tab(tab)
        await _settle(pilot)
        if tab == "tools":
            pane = app.query_one(ToolsPane)
            pane.set_filter("firecrawl")
            await _settle(pilot)
            pane.select_tool("mcp__firecrawl__scrape")
            pane.table.focus()
        elif tab == "search":
            search = app.query_one(SearchPane)
            search.action_toggle_compare()
            search.set_query("scrape a web page")
        elif tab == "activity":
            app.action_demo()
        await _settle(pilot)
        out.parent.mkdir(parents=True, exist_ok=True)
        app.save_screenshot(filename=out.name, path=str(out.parent))
    print(f"saved {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tab", default="tools",
                        choices=["servers", "tools", "listing", "search", "activity", "tuning"])
    parser.add_argument("--size", default="120x40")
    parser.add_argument("--source", default="seed-demo")
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "screenshot.svg")
    args = parser.parse_args()
    width, height = (int(x) for x in args.size.lower().split("x"))
    asyncio.run(shoot(args.output, args.tab, (width, height), args.source))


if __name__ == "__main__":
    main()
