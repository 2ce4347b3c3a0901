"""Line widgets work their style out once per render (tui/widgets/render_style.py): the
lines are the ones Textual's own per-line reading draws."""

from __future__ import annotations

from typing import Any

import pytest
from textual.dom import DOMNode
from textual.geometry import Region
from textual.widget import Widget
from tui_helpers import settle

from tui.widgets.render_style import StyleOncePerRender


def _lines(widget: Widget, render: Any) -> list[list[tuple[str, str]]]:
    widget.refresh()  # drop the widget's line cache: every line is drawn again
    return [[(s.text, str(s.style)) for s in strip]
            for strip in render(widget, Region(0, 0, *widget.size))]


@pytest.mark.parametrize(("key", "selector"), [
    ("3", "#listing-text-full"), ("4", "#hits-table-seed"), ("5", "#feed-log"),
])
async def test_a_line_widget_works_its_style_out_once_per_render(make_app, monkeypatch, key,
                                                                 selector):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+g")  # the demo: the feed's lines, and a search's hits
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        app.query_one("#search-query").value = "scrape url"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        widget = app.query_one(selector)
        assert isinstance(widget, StyleOncePerRender)
        assert widget.size.height > 5 and widget.has_focus
        # the same lines as Textual's own classes draw them (reading the style per line)
        own = next(c for c in type(widget).__mro__[1:]
                   if not issubclass(c, StyleOncePerRender) and "render_lines" in c.__dict__)
        wanted = _lines(widget, own.render_lines)
        reads = [0]
        rich_style = DOMNode.rich_style

        def counted(node: DOMNode) -> Any:
            if node is widget:
                reads[0] += 1
            return rich_style.fget(node)  # type: ignore[attr-defined]

        monkeypatch.setattr(DOMNode, "rich_style", property(counted))
        drawn = _lines(widget, type(widget).render_lines)
        assert reads[0] == 1
        assert drawn == wanted
        assert any(text.strip() for line in drawn for text, _ in line)
