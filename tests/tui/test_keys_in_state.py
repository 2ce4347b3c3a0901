"""Keys that must not misfire on Tuning: Tab after a field was left by Esc or by Enter moves
on from that field; the tab's digit on Tuning starts the pane over; Enter on the pane then
Shift+Tab goes back to the field edited."""

from __future__ import annotations

import pytest
from textual.widgets import Input
from tui_helpers import settle

from tui.widgets.tuning import TuningPane

LEAVE = {  # how the field is left, then keys and where each group must leave the cursor
    "escape": (("escape",), [(("escape", "6"), "pane"), (("tab",), "first")]),
    "enter": (("ctrl+u", "9", "enter"), [(("enter", "shift+tab"), "edited")]),
}


@pytest.mark.parametrize("key", LEAVE)
async def test_tab_after_leaving_a_tuning_field_moves_on_from_that_field(make_app, key):
    leave, then = LEAVE[key]
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
        await pilot.press(*leave)
        await settle(pilot)
        assert app.focused is pane  # the key left the field
        await pilot.press("tab")
        await settle(pilot)
        assert app.focused is after, app.focused
        for keys, where in then:
            await pilot.press(*keys)
            await settle(pilot)
            first = [w for w in app.screen.focus_chain if pane in w.ancestors][0]
            expected = {"pane": pane, "first": first, "edited": edited}[where]
            assert app.focused is expected, (keys, app.focused)
