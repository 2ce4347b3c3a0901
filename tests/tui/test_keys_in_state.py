"""Keys that must not misfire: Tab after Esc on Tuning, and its digit on Tuning."""

from __future__ import annotations

from textual.widgets import Input
from tui_helpers import settle

from tui.widgets.tuning import TuningPane


async def test_tab_after_escape_in_tuning_moves_on_from_the_field_left(make_app):
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
        await pilot.press("escape")
        await settle(pilot)
        assert app.focused is pane  # Esc left the field
        await pilot.press("tab")
        await settle(pilot)
        assert app.focused is after, app.focused
        # the tab's own digit starts over: Tab goes to the first field again
        await pilot.press("escape", "6")
        await settle(pilot)
        assert app.focused is pane
        await pilot.press("tab")
        await settle(pilot)
        first = [w for w in app.screen.focus_chain if pane in w.ancestors][0]
        assert app.focused is first, app.focused
