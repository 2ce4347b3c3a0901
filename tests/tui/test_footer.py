"""The key footer: the focused pane's keys and Quit, redrawn on a tab switch; a click on a
key presses it."""

from __future__ import annotations

from tui_helpers import settle

from tui.screens.help import HelpScreen
from tui.widgets.footer import KeyFooter


def _descriptions(footer: KeyFooter) -> list[str]:
    return [description for _, _, description, _ in footer.shown_keys]


async def test_footer_follows_the_pane_and_a_click_presses_the_key(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        footer = app.query_one(KeyFooter)
        assert {"Attach/detach", "Quit", "Keys", "palette"} <= set(_descriptions(footer))
        await pilot.press("4")
        await settle(pilot)
        shown = _descriptions(footer)
        assert "Query" in shown and "Attach/detach" not in shown and "Quit" in shown
        start = next(a for a, _, key in footer._spans if key == "question_mark")
        await pilot.click(KeyFooter, offset=(start + 1, 0))
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)


async def test_a_narrow_footer_drops_whole_keys_and_keeps_quit_and_the_key_map(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        footer = app.query_one(KeyFooter)
        line = "".join(s.text for s in footer.render_line(0)._segments)
        keys, edge = line.split("\u258f")
        drawn = [(display, d) for _, display, d, _ in footer._shown if f" {display} {d} " in keys]
        assert keys.rstrip() == "".join(f" {k} {d} " for k, d in drawn).rstrip()  # whole keys
        assert {"Quit", "Keys"} <= {d for _, d in drawn} and "palette" in edge
        assert len(drawn) < len(footer._shown)  # at 80 columns some keys had to go
