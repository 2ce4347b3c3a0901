"""The app's save says what it does in the app's words: a refused path read like the command
line's message ("--save writes ..."), naming a flag the app has not got; and the confirm
dialog promised a ``.bak`` backup of a file deleted since it was loaded (the save then wrote a
new file and, rightly, no backup)."""

from __future__ import annotations

import pytest
import yaml
from test_tuning import HERMES_CONFIG, NOT_HERMES
from textual.widgets import Static
from tui_helpers import settle

from tui.app import ToolSearchApp
from tui.screens.confirm_save import ConfirmSaveScreen
from tui.screens.save import SavePathScreen

UTF16 = "tools:\n  tool_search: {enabled: auto}\nmcp_servers: {}\n"


@pytest.mark.parametrize("name", [*NOT_HERMES, "folder", "utf16.yaml"])
async def test_a_refused_save_path_is_worded_for_the_app(tmp_path, make_app, name):
    target = tmp_path / name
    if name in NOT_HERMES:
        target.write_text(NOT_HERMES[name][0])
    elif name == "folder":
        target.mkdir()
    else:
        target.write_bytes(UTF16.encode("utf-16"))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6", "tab", "enter", "down", "down", "enter", "ctrl+s")  # enabled off
        await settle(pilot)
        assert isinstance(app.screen, SavePathScreen)
        await pilot.press("ctrl+u", *str(target), "enter")
        await settle(pilot)
        assert isinstance(app.screen, SavePathScreen)
        refusal = str(app.screen.query_one("#save-error", Static).content)
        assert str(target) in refusal
        assert "--" not in refusal, refusal  # no command-line flag
        assert "the app " in refusal, refusal


async def test_the_confirm_dialog_says_what_the_save_really_does(tmp_path, workspace):
    config = tmp_path / "config.yaml"
    config.write_text(HERMES_CONFIG)
    app = ToolSearchApp([str(config)], workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.save_target == str(config)
        await pilot.press("6", "tab", "tab", "tab", "ctrl+u", "7", "enter", "ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmSaveScreen)
        head = str(app.screen.query_one("#confirm-head", Static).content)
        assert "kept as" in head and ".bak" in head
        await pilot.press("n")
        await settle(pilot)
        config.unlink()  # deleted behind the app's back
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmSaveScreen)
        head = str(app.screen.query_one("#confirm-head", Static).content)
        assert ".bak" not in head and "kept" not in head, head
        assert "creates it" in head and "no old file to back up" in head
        await pilot.press("y")
        await settle(pilot)
        assert app.last_save.backup is None
        assert "no previous file to back up" in app.last_save.message()
    assert yaml.safe_load(config.read_text()) == {"tools": {"tool_search": {"threshold_pct": 7}}}
    assert not (tmp_path / "config.yaml.bak").exists()
