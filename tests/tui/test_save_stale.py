"""Save and a config.yaml another program changed: after the app loaded it (the diff and the
write are against the file now), and while the diff is shown (nothing written)."""

from __future__ import annotations

import yaml
from textual.widgets import Input, Static
from tui_helpers import HERMES_CONFIG, settle

from tui.app import ToolSearchApp
from tui.screens.confirm_save import ConfirmSaveScreen
from tui.widgets.tuning import TuningPane

EDITED = HERMES_CONFIG.replace("model: gpt-4o", "model: claude  # edited").replace(
    "enabled: auto", "enabled: on")


async def _threshold(pilot, app: ToolSearchApp, value: str) -> None:
    pane = app.query_one(TuningPane)
    pane.query_one("#tune-threshold_pct", Input).focus()
    await pilot.press("ctrl+u", *value, "enter")
    await settle(pilot)


async def _save_diff(pilot, app: ToolSearchApp) -> str:
    """Ctrl+S: the save confirmation is up; the diff it shows."""
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert isinstance(app.screen, ConfirmSaveScreen)
    return str(app.screen.query_one("#confirm-diff", Static).content)


async def test_a_file_edited_after_loading_keeps_the_edit(tmp_path, workspace):
    config = tmp_path / "config.yaml"
    config.write_text(HERMES_CONFIG)
    app = ToolSearchApp([str(config)], workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _threshold(pilot, app, "2")
        config.write_text(EDITED.replace("threshold_pct: 5", "threshold_pct: 9"))
        diff = await _save_diff(pilot, app)
        assert "-     threshold_pct: 9\n+     threshold_pct: 2" in diff  # the file now
        await pilot.press("y")
        await settle(pilot)
    text = config.read_text()
    assert "model: claude  # edited" in text
    assert yaml.safe_load(text)["tools"]["tool_search"] == {"enabled": True, "threshold_pct": 2}


async def test_a_file_changed_while_the_diff_is_shown_is_not_saved(tmp_path, workspace):
    config = tmp_path / "config.yaml"
    config.write_text(HERMES_CONFIG)
    app = ToolSearchApp([str(config)], workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _threshold(pilot, app, "2")
        diff = await _save_diff(pilot, app)
        assert "-     threshold_pct: 5\n+     threshold_pct: 2" in diff
        edited = EDITED.replace("threshold_pct: 5", "threshold_pct: 9")
        config.write_text(edited)  # the operator's editor, while he reads the diff
        await pilot.press("y")
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert getattr(app, "last_save", None) is None
        shown = [n.message for n in app._notifications]
        assert any("changed on disk while the diff was shown; nothing written" in m
                   for m in shown), shown
        # saving again shows the diff against the file as it is now
        diff = await _save_diff(pilot, app)
        assert "-     threshold_pct: 9\n+     threshold_pct: 2" in diff
        await pilot.press("n")
        await settle(pilot)
    assert config.read_text() == edited
    assert not (tmp_path / "config.yaml.bak").exists()


async def test_the_saved_message_says_the_backup_is_the_file_before_this_save(
        tmp_path, workspace):
    config = tmp_path / "config.yaml"
    config.write_text(HERMES_CONFIG)
    backup = tmp_path / "config.yaml.bak"
    app = ToolSearchApp([str(config)], workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for value in ("2", "3"):
            before = config.read_text()
            await _threshold(pilot, app, value)
            await pilot.press("ctrl+s")
            await settle(pilot)
            await pilot.press("y")
            await settle(pilot)
            await app.workers.wait_for_complete()
            await settle(pilot)
            assert backup.read_text() == before
            assert (f"backup of the file before this save: {backup} (each save replaces it)"
                    in app.last_save.message())
