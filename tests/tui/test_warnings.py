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
