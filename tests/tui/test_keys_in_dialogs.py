"""Keys that must not misfire: the palette over a dialog, the Activity tab's demo keys when
no demo plays."""

from __future__ import annotations

from textual.command import CommandPalette
from tui_helpers import settle

from tui.screens.help import HelpScreen


async def test_the_palette_key_does_not_open_the_palette_over_a_dialog(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("ctrl+p")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen), app.screen
        assert not any(isinstance(s, CommandPalette) for s in app.screen_stack)
