"""The Tuning pane's Save button and a key typed right after it: the save comes first."""

from __future__ import annotations

from textual.widgets import Button
from tui_helpers import burst, settle, terminal_read

from tui.app import ToolSearchApp
from tui.screens.call import CallScreen
from tui.screens.help import HelpScreen
from tui.screens.save import SavePathScreen
from tui.widgets.tuning import TuningPane


def _click_then(app: object, button: Button, keys: str) -> None:
    """A click on *button* and *keys* in one read from the terminal (SGR mouse reports)."""
    x, y = button.region.offset
    at = f"{x + 1};{y + 1}"
    terminal_read(app, f"\x1b[<0;{at}M\x1b[<0;{at}m{keys}")


async def test_key_after_a_click_on_save_meets_the_save_dialog(make_app) -> None:
    """Save clicked, then `?` in the same burst: the help opened first and the save was
    dropped without a word (Ctrl+S then `?` always gave the save dialog)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        button = app.query_one(TuningPane).query_one("#tune-save", Button)
        _click_then(app, button, "?")
        await settle(pilot)
        assert isinstance(app.screen, SavePathScreen)
        assert not any(isinstance(s, HelpScreen) for s in app.screen_stack)


async def test_a_click_on_save_alone_still_asks_where(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        await pilot.click("#tune-save")
        await settle(pilot)
        assert isinstance(app.screen, SavePathScreen)


async def test_key_after_enter_on_save_meets_the_save_dialog(make_app) -> None:
    """Enter on the focused Save button, then Ctrl+T in the same burst: the call dialog
    opened first and the save was dropped."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        app.query_one(TuningPane).query_one("#tune-save", Button).focus()
        await settle(pilot)
        burst(app, ["enter", "ctrl+t"])
        await settle(pilot)
        assert isinstance(app.screen, SavePathScreen)
        assert not any(isinstance(s, CallScreen) for s in app.screen_stack)


async def test_one_click_on_save_saves_once(tmp_path, workspace) -> None:
    """The app presses Save as the click arrives; the click reaching the button afterwards
    adds nothing (one notice, not two)."""
    config = tmp_path / "config.yaml"
    config.write_text("tools:\n  tool_search:\n    enabled: auto\n")
    app = ToolSearchApp([str(config)], workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        _click_then(app, app.query_one(TuningPane).query_one("#tune-save", Button), "")
        await settle(pilot)
        notes = [n.message for n in app._notifications]
        assert sum("Nothing to save" in n for n in notes) == 1, notes
