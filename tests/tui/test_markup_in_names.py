"""Source text the app shows outside tables: a tool or server name is the source's own text,
never markup, and its invisible characters and escapes are shown."""

from __future__ import annotations

from textual.widgets import Static
from tui_helpers import settle

from toolsearch.toolsets import Toolset, ToolSpec, Workspace
from tui.app import ToolSearchApp


async def test_did_you_mean_shows_tool_names_as_written() -> None:
    """The Tools filter's "Did you mean" line named a core tool ``[b]scrape_page[/]`` as a
    bold ``scrape_page`` (markup) and ``scrape<ZWSP>pages`` as ``scrapepages``."""
    tools = (ToolSpec("[b]scrape_page[/]", "d", {"type": "object"}),
             ToolSpec("scrape\u200bpages", "d", {"type": "object"}))
    workspace = Workspace(name="names", toolsets=(Toolset("local", "core", tools),))
    app = ToolSearchApp(workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "slash", *"scrapepage", "enter")
        await settle(pilot)
        box = app.query_one("#tool-explain", Static)
        strips = [box.render_line(y) for y in range(box.size.height)]
        text = "".join(strip.text for strip in strips)
        assert "Did you mean:" in text, text
        assert "scrape\\u200bpages" in text and "[b]scrape_page[/]" in text, text
        assert "\u200b" not in text
        for strip in strips:
            for segment in strip:
                assert not (segment.style and segment.style.bold), segment
