"""Warnings that numbers hide, reached by keys: a negative saving, eager schemas larger than
the context, an empty listing that would otherwise read "fits"."""

from __future__ import annotations

from textual.widgets import Static
from tui_helpers import settle

from toolsearch.toolsets import Toolset, ToolSpec, Workspace
from tui.app import ToolSearchApp
from tui.view import listing_fit


def gauges(app: ToolSearchApp) -> str:
    return str(app.query_one("#gauge-text", Static).content)


def tiny_workspace() -> Workspace:
    one = Toolset("solo", "mcp", (ToolSpec("ping", "Ping.", {"type": "object"}),))
    core = Toolset("hermes-core", "core", (ToolSpec("terminal", "Run a command.", {}),))
    return Workspace(name="tiny", toolsets=(core, one), context_length=200_000)


async def test_a_saving_below_zero_is_said_in_words():
    app = ToolSearchApp(workspace=tiny_workspace(), exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "more than it saves" in gauges(app)


async def test_eager_schemas_larger_than_the_context(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "Warning" not in gauges(app)
        await pilot.press("6", *["tab"] * 8, "ctrl+u", *"300", "enter")
        await settle(pilot)
        assert app.session.context_length == 300
        assert "exceed the context (300)" in gauges(app)


def test_an_empty_listing_never_fits():
    assert "fits" not in listing_fit(0, 0)[0]
    assert "fits" not in listing_fit(0, 4000)[0]
    assert "fits" in listing_fit(10, 4000)[0]


async def test_at_80_columns_each_warning_takes_one_line_and_the_tools_table_keeps_rows():
    """cloudflare-scale at 80x24: the eager-schemas warning wrapped to two lines and the Tools
    table under the gauges showed a single tool (the real catalogs: none)."""
    from tui.widgets.tools import ToolsPane

    for workspace in (tiny_workspace(), None):
        app = ToolSearchApp(["cloudflare-scale"] if workspace is None else (),
                            workspace=workspace, exact=False)
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(20):
                await settle(pilot)
                if app.session is not None:
                    break
            await pilot.press("2")
            await settle(pilot)
            gauge = app.query_one("#gauge-text", Static)
            warned = [line for line in gauge.content.wrap(gauge.content_region.width)
                      if "\u26a0" in line.plain]
            assert len(warned) == 1
            index = gauge.content.wrap(gauge.content_region.width).index(warned[0])
            assert index == len(gauge.content.wrap(gauge.content_region.width)) - 1
            assert ("more than it saves" if workspace else "keep tool search on") in \
                warned[0].plain
            if workspace is None:
                table = app.query_one(ToolsPane).table
                assert table.size.height - 2 >= 2  # two tools between header and scrollbar


def wide_workspace() -> Workspace:
    """Schema tokens in the millions (as the 4,932 real tools have): long figures."""
    text = "Reads one record of the store and returns its fields. " * 60
    big = Toolset("store", "mcp", tuple(ToolSpec(f"read_{i}", text, {"type": "object"})
                                        for i in range(2500)))
    return Workspace(name="wide", toolsets=(big,), context_length=200_000)


async def test_the_gauges_keep_one_line_each_at_80_columns_with_figures_in_millions():
    app = ToolSearchApp(workspace=wide_workspace(), exact_delay=0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        static = app.query_one("#gauge-text", Static)
        assert app.session.assembly.classification is not None
        text = gauges(app)
        assert "Schemas eager" in text and "saving" in text
        assert app.query_one("#gauge-text").region.height > 0
        lines = text.split("\n")
        assert all(len(line) <= static.content_region.width for line in lines), lines
        assert static.content_region.height == len(lines)  # no wrapped line takes a table row
