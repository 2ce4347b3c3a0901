"""A scroll view's scrollbars are repainted when they change, not at every layout
(tui/widgets/scrollbars.py)."""

from __future__ import annotations

from typing import Any

from textual.scrollbar import ScrollBar
from tui_helpers import settle


async def test_a_tab_shown_again_keeps_its_scrollbar_as_drawn(make_app, monkeypatch):
    app = make_app()
    async with app.run_test(size=(120, 20)) as pilot:  # short: the Tools table scrolls
        await settle(pilot)
        await pilot.press("2", "1", "2", "1")
        await settle(pilot)
        table = app.query_one("#tools-table")
        assert table.show_vertical_scrollbar
        drawn: list[Any] = []
        render = ScrollBar.render

        def counted(self: ScrollBar) -> Any:
            drawn.append(self.parent)
            return render(self)

        monkeypatch.setattr(ScrollBar, "render", counted)
        await pilot.press("2")
        await settle(pilot)
        assert table not in drawn
        await pilot.press("end")  # the thumb moves: the bar is drawn again
        await settle(pilot)
        assert table in drawn
        drawn.clear()
        await pilot.resize_terminal(120, 24)  # a new size: drawn again
        await settle(pilot)
        assert table in drawn
