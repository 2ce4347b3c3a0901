"""A long pasted line in the search and filter fields is cut to fit, with a note: pasted whole,
a 1 MB line made every later key in the field take half a second."""

from __future__ import annotations

from textual import events
from textual.widgets import Input
from tui_helpers import fixture_workspace, settle

from tui.app import ToolSearchApp
from tui.widgets.search import QUERY_MAX
from tui.widgets.tools import FILTER_MAX


async def _paste(pilot: object, field: Input, text: str) -> None:
    field.post_message(events.Paste(text))
    await settle(pilot)


async def test_a_long_paste_is_cut_to_the_field_s_bound_with_a_note() -> None:
    app = ToolSearchApp(workspace=fixture_workspace(), exact=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("4", "slash")
        field = app.focused
        assert isinstance(field, Input) and field.id == "search-query"
        blob = "scrape page " * 100_000
        await _paste(pilot, field, blob + "\nsecond line")
        assert field.value == blob[:QUERY_MAX]
        assert any("cut to 4,096 of its 1,200,000" in n.message for n in app._notifications)
        await pilot.press("ctrl+u")  # the field still takes keys: clear it, paste a short one
        await _paste(pilot, field, "scrape")
        assert field.value == "scrape"
        field.selection = type(field.selection)(0, 6)  # a paste replaces the selection
        await _paste(pilot, field, "x" * (QUERY_MAX + 5))
        assert field.value == "x" * QUERY_MAX

        await pilot.press("escape", "2", "slash")
        tools_filter = app.focused
        assert isinstance(tools_filter, Input) and tools_filter.id == "tools-filter"
        await _paste(pilot, tools_filter, "firecrawl " * 1000)
        assert tools_filter.value == ("firecrawl " * 1000)[:FILTER_MAX]


async def test_a_paste_that_fits_is_pasted_as_input_does() -> None:
    app = ToolSearchApp(workspace=fixture_workspace(), exact=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("4", "slash", *"web")
        field = app.focused
        assert isinstance(field, Input)
        await _paste(pilot, field, " page\nignored")
        assert field.value == "web page"
        assert not any(n.title == "Paste" for n in app._notifications)
