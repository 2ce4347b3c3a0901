"""The floor of ``toolsearch bench tui``'s tab switch: the same key timing on stock Textual.

A minimal app made of stock Textual widgets only, in the shape of ours: a ``Header``, a
``TabbedContent`` of seven panes switched by the keys ``1`` … ``7`` (shown in the ``Footer``),
a ``DataTable`` holding as many rows as the workspace has tools in every other pane and a
60-line text in the others, at the same terminal size. It only switches the tab: the cursor
stays where it is (ours also moves it into the shown pane, which costs a Blur/Focus and a
footer update), so this is a floor, not a twin. Each key is timed by the same
``_key_latencies`` as the app's tour, so what the floor takes on this machine, at this load,
is what Textual itself costs for a tab switch; the rest of our figure is ours.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

PANES = 7
ROUNDS = 3


def _floor_app(rows: int, names: Sequence[str] = ()) -> Any:
    from textual.app import App, ComposeResult
    from textual.binding import Binding
    from textual.widgets import DataTable, Footer, Header, Static, TabbedContent, TabPane

    class FloorApp(App[None]):
        BINDINGS = [Binding(str(i), f"show({i})", f"tab {i}") for i in range(1, PANES + 1)]

        def compose(self) -> ComposeResult:
            yield Header()
            with TabbedContent(id="tabs"):
                for i in range(1, PANES + 1):
                    with TabPane(f"{i} Pane {i}", id=f"t{i}"):
                        if i % 2:
                            yield DataTable(id=f"d{i}")
                        else:
                            yield Static("\n".join(f"line {j} " * 8 for j in range(60)))
            yield Footer()

        def on_mount(self) -> None:
            for i in range(1, PANES + 1, 2):
                table = self.query_one(f"#d{i}", DataTable)
                table.add_columns("tool", "server", "tokens", "why")
                table.add_rows([(names[j] if j < len(names) else f"tool_{j}", f"server_{j % 125}",
                                 str(j), "deferred: not in the listing") for j in range(rows)])

        def action_show(self, i: int) -> None:
            self.query_one(TabbedContent).active = f"t{i}"

    return FloorApp()


async def floor_figures(rows: int, tab_keys: Sequence[str], names: Sequence[str] = (),
                        size: tuple[int, int] = (120, 40), rounds: int = ROUNDS
                        ) -> dict[str, Any]:
    """Time *tab_keys* (digits, in the tour's order) from launch on the stock app, then
    *rounds* - 1 times again: the first round meets each pane's first show, as the tour does."""
    from .tui import _key_latencies

    app = _floor_app(rows, names)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.pause()
        first = await _key_latencies(pilot, app, keys=tuple(tab_keys))
        again: list[dict[str, Any]] = []
        for _ in range(rounds - 1):
            again += await _key_latencies(pilot, app, keys=tuple(tab_keys))
    return {"rows": rows, "first_ms": [k["ms"] for k in first],
            "again_ms": [k["ms"] for k in again],
            "first_median_ms": median([k["ms"] for k in first]),
            "again_median_ms": median([k["ms"] for k in again]),
            "first_cpu_median_ms": median([k["cpu_ms"] for k in first])}


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else float("nan")


def run_floor(rows: int, tab_keys: Sequence[str], names: Sequence[str] = (),
              size: tuple[int, int] = (120, 40)) -> dict[str, Any]:
    return asyncio.run(floor_figures(rows, tab_keys, names, size))
