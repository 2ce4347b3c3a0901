"""Keys that must not misfire: the palette over a dialog, the Activity tab's demo keys when
no demo plays."""

from __future__ import annotations

from textual.command import CommandPalette
from tui_helpers import settle

from tui.screens.help import HelpScreen
from tui.widgets.footer import KeyFooter


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


def _footer_actions(app) -> set[str]:
    return {key for key, _display, _desc, _on in app.query_one(KeyFooter).shown_keys}


async def test_the_activity_tab_shows_space_only_while_a_demo_plays(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        shown = _footer_actions(app)
        assert "space" not in shown, shown
        assert "n" in shown  # n starts the demo one call at a time
        app.demo_running = True
        await settle(pilot)
        assert "space" in _footer_actions(app)
        app.demo_running = False
