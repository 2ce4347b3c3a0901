"""Tuning: Tab after Enter moves on from the field Enter left."""

from __future__ import annotations

from textual.widgets import Input
from tui_helpers import settle

from tui.widgets.tuning import TuningPane


async def test_tab_after_enter_in_tuning_moves_on_from_the_edited_field(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        pane = app.query_one(TuningPane)
        fields = [w for w in app.screen.focus_chain if pane in w.ancestors and
                  isinstance(w, Input)]
        edited, after = fields[1], fields[2]
        for _ in range(12):
            if app.focused is edited:
                break
            await pilot.press("tab")
        assert app.focused is edited
        await pilot.press("ctrl+u", "9", "enter")
        await settle(pilot)
        assert app.focused is pane  # Enter left the field
        await pilot.press("tab")
        await settle(pilot)
        assert app.focused is after, app.focused
        await pilot.press("enter", "shift+tab")
        await settle(pilot)
        assert app.focused is edited, app.focused
