"""Ctrl+S / Ctrl+T with a Tuning dropdown open: the list closes, then the dialog opens."""

from __future__ import annotations

import pytest
from textual.screen import ModalScreen
from textual.widgets import Select
from tui_helpers import settle


@pytest.mark.parametrize("key", ["ctrl+s", "ctrl+t"])
async def test_a_dialog_key_closes_an_open_dropdown_first(make_app, key):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        await pilot.press("tab")
        await settle(pilot)
        select = app.query_one("#tune-enabled", Select)
        assert app.focused is select
        await pilot.press("enter")
        await settle(pilot)
        assert select.expanded
        await pilot.press(key)
        await settle(pilot)
        assert not select.expanded, "the list stayed open under the dialog"
        if isinstance(app.screen, ModalScreen):
            await pilot.press("escape")
            await settle(pilot)
        assert not select.expanded
        assert select.value == "auto"  # the highlighted option was not chosen
