"""`a` and `s` on a resting server take the state worked out ahead (tui/ahead.py), and only
while it derives from the session on screen."""

from __future__ import annotations

import pytest
from tui_helpers import settle


async def test_a_and_s_take_the_states_worked_out_while_idle(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("down")  # firecrawl; the cursor rests
        await settle(pilot)
        ahead = app.states_ahead
        assert ahead.wanted == "firecrawl" and ahead.worked_out >= 2
        before = app.session
        fresh = before.toggled("firecrawl")
        held = ahead.state(before, "attach", "firecrawl")
        assert held is not fresh and held == fresh  # the same state, worked out earlier
        await pilot.press("a")
        assert app.session is held
        assert app.session.detached == frozenset({"firecrawl"})
        assert app.session.assembly.deferred_count == fresh.assembly.deferred_count == 8
        await settle(pilot)
        scoped = app.session.scope_toggled("firecrawl")
        await pilot.press("s")
        assert app.session == scoped and not app.session.in_scope("firecrawl")
        assert app.session.detached == frozenset({"firecrawl"})


async def test_a_state_worked_out_before_a_change_is_not_used_after_it(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("down")  # firecrawl; its attach state is worked out
        await settle(pilot)
        old = app.session
        assert app.states_ahead.worked_out >= 1
        # threshold_pct 0.01 in Tuning (Tab from the pane's first control), then back
        await pilot.press("6", "tab", "tab", "tab", "ctrl+u", *"0.01", "escape", "1")
        await settle(pilot)
        assert app.session is not old
        assert app.session.config.threshold_pct == pytest.approx(0.01)
        await pilot.press("a")
        await settle(pilot)
        assert app.session.detached == frozenset({"firecrawl"})
        assert app.session.config.threshold_pct == pytest.approx(0.01)  # not the old state's
        assert app.session.assembly.tier == 2
