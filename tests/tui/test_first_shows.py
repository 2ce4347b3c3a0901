"""A tab's first show, once the app has had an idle moment to prepare it: one layout, the
widgets' styles already worked out (and the same as worked out afresh), and the Search hits
already stacked or side by side for the pane's width."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widget import Widget
from tui_helpers import settle, wait_until


async def _prepared(app: Any, pilot: Any) -> None:
    """Wait until the app has prepared every hidden tab while idle (tui/prepare.py)."""
    await wait_until(pilot, lambda: app.tabs_ahead is not None and app.tabs_ahead.done,
                     "hidden tabs prepared")


async def _layouts_of(pilot: Any, monkeypatch: Any, key: str) -> int:
    count = [0]
    refresh_layout = Screen._refresh_layout

    def counted(self: Screen[object], *args: Any, **kwargs: Any) -> None:
        if not kwargs.get("scroll") and not (args and args[-1] is True):
            count[0] += 1
        refresh_layout(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    await pilot.press(key)
    await settle(pilot)
    monkeypatch.setattr(Screen, "_refresh_layout", refresh_layout)
    return count[0]


async def test_search_shown_first_is_laid_out_once_and_stacked(make_app, monkeypatch):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await _prepared(app, pilot)
        assert await _layouts_of(pilot, monkeypatch, "4") == 1
        hits = app.query_one("#search-hits")
        assert hits.has_class("-stacked")
        assert hits.query_one("#hits-seed").region.width >= 100  # one column, full width


async def test_search_hits_side_by_side_when_wide(make_app):
    app = make_app()
    async with app.run_test(size=(200, 40)) as pilot:
        await _prepared(app, pilot)
        await pilot.press("4", "c")  # compare: both profiles' columns
        await settle(pilot)
        hits = app.query_one("#search-hits")
        assert not hits.has_class("-stacked")
        seed, latest = hits.query_one("#hits-seed"), hits.query_one("#hits-latest")
        assert seed.region.y == latest.region.y and seed.region.right <= latest.region.x
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert hits.has_class("-stacked")
        assert seed.region.bottom <= latest.region.y


async def test_hidden_tabs_have_their_styles_worked_out_ahead(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await _prepared(app, pilot)
        widgets = list(app.query_one("#tab-tuning").walk_children(Widget, with_self=True))
        assert len(widgets) > 30 and all(w._visual_style is not None for w in widgets)
        ahead = [w.visual_style for w in widgets]
        for widget in widgets:
            widget.notify_style_update()  # dropped: worked out again below
        assert [w.visual_style for w in widgets] == ahead
        app.theme = "textual-light"  # a restyle drops them: the first show works them out
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        fresh = [w.visual_style for w in widgets]
        for widget in widgets:
            widget.notify_style_update()
        assert [w.visual_style for w in widgets] == fresh != ahead
