"""The app-wide keys (Ctrl+T call, Ctrl+G demo, Ctrl+S save, Ctrl+R reset, ? / F1 keys) do
nothing while a dialog is up: no second dialog over the first, nothing changed on the main
screen hidden behind it. Also when the keys come in one burst after the key that opens it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.screen import ModalScreen
from tui_helpers import burst, play_demo, settle

from tui.app import ToolSearchApp
from tui.screens.activity_detail import ActivityDetailScreen
from tui.screens.call import CallScreen
from tui.screens.confirm_save import ConfirmSaveScreen
from tui.screens.help import HelpScreen
from tui.screens.save import SavePathScreen

APP_KEYS = ("ctrl+t", "ctrl+g", "ctrl+s", "ctrl+r", "question_mark", "f1")

HERMES_CONFIG = """\
model: gpt-4o
tools:
  tool_search:
    enabled: auto
    threshold_pct: 5
"""


def _app(tmp_path: Path, workspace, hermes: bool) -> ToolSearchApp:
    sources: list[str] = []
    if hermes:  # a Hermes config among the sources: Ctrl+S shows the diff to confirm
        config = tmp_path / "config.yaml"
        config.write_text(HERMES_CONFIG)
        sources.append(str(config))
    return ToolSearchApp(sources, workspace=workspace, exact_delay=0.0, demo_delay=0.0)


async def _open(pilot, dialog: type[ModalScreen]) -> None:
    """Open *dialog* by keys, as the operator does."""
    if dialog is HelpScreen:
        await pilot.press("question_mark")
    elif dialog is CallScreen:
        await pilot.press("ctrl+t")
    elif dialog is ActivityDetailScreen:
        await play_demo(pilot)
        await pilot.press("5", "enter")
    else:  # a change to save first: the save path, or the diff to confirm
        await pilot.press("6", "tab", "tab", "tab", "ctrl+u", "3", "enter", "ctrl+s")
    await settle(pilot)


@pytest.mark.parametrize("dialog", [HelpScreen, CallScreen, ActivityDetailScreen,
                                    SavePathScreen, ConfirmSaveScreen],
                         ids=lambda d: d.__name__)
async def test_no_app_wide_key_acts_over_an_open_dialog(tmp_path, workspace, dialog):
    app = _app(tmp_path, workspace, hermes=dialog is ConfirmSaveScreen)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _open(pilot, dialog)
        assert isinstance(app.screen, dialog), app.screen_stack
        stack, session, overrides = list(app.screen_stack), app.session, dict(app.overrides)
        activity = app.activity
        for key in APP_KEYS:
            if dialog is HelpScreen and key in ("question_mark", "f1"):
                continue  # the key map's own keys close it
            await pilot.press(key)
            await settle(pilot)
            assert app.screen_stack == stack, (key, app.screen_stack)
            assert not app.demo_running, key
            assert app.activity == activity, key
            assert app.session is session and app.overrides == overrides, key  # no reset


@pytest.mark.parametrize("key", ["ctrl+t", "ctrl+g", "ctrl+r", "question_mark"])
async def test_keys_in_one_burst_after_ctrl_s_meet_its_dialog(tmp_path, workspace, key):
    """Ctrl+S opens its dialog once the save request is handled: a Ctrl+T typed right after
    it opened the call dialog first and the save dialog on top of it; a Ctrl+G played the
    demo behind the save dialog; a Ctrl+R reset the tuning about to be saved."""
    for hermes, dialog in ((False, SavePathScreen), (True, ConfirmSaveScreen)):
        app = _app(tmp_path, workspace, hermes=hermes)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("6", "tab", "tab", "tab", "ctrl+u", "3", "enter")
            await settle(pilot)
            session = app.session
            burst(app, ["ctrl+s", key])
            await settle(pilot)
            assert [type(s) for s in app.screen_stack[1:]] == [dialog], app.screen_stack
            assert not app.demo_running
            assert app.session is session  # not reset behind the dialog


@pytest.mark.parametrize("first, dialog", [("ctrl+t", CallScreen),
                                           ("question_mark", HelpScreen)])
async def test_keys_in_one_burst_after_a_dialog_key_meet_its_dialog(make_app, first, dialog):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        burst(app, [first, *(k for k in APP_KEYS if k not in (first, "f1"))])
        await settle(pilot)
        assert [type(s) for s in app.screen_stack[1:]] == [dialog], app.screen_stack
        assert not app.demo_running


@pytest.mark.parametrize("words, dialog", [("call a bridge", CallScreen),
                                           ("save to Hermes", SavePathScreen)])
async def test_the_palette_still_opens_a_dialog_once_it_has_closed(make_app, words, dialog):
    """The palette is a dialog too: its command runs after it closed, so the keys' check
    does not refuse it."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*words)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert [type(s) for s in app.screen_stack[1:]] == [dialog], app.screen_stack
