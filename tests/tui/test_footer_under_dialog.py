"""The main footer draws no keys while a dialog covers the main screen."""

from __future__ import annotations

from tui_helpers import settle

from tui.screens.help import HelpScreen
from tui.widgets.footer import KeyFooter


async def test_the_main_footer_is_blank_under_a_dialog_and_back_after(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        footer = app.query_one(KeyFooter)
        assert "Quit" in footer.render().plain
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert footer.render().plain.strip() == "", footer.render().plain
        await pilot.press("escape")
        await settle(pilot)
        assert "Quit" in footer.render().plain
