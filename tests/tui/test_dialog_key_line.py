"""Every dialog shows its keys on a line at the bottom, as the main screen's footer does (the
main footer is blank under a dialog): a new user sees how to leave it and what Enter does."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import play_demo, settle

from tui.app import ToolSearchApp
from tui.screens.activity_detail import ActivityDetailScreen
from tui.screens.call import CallScreen
from tui.screens.confirm_save import ConfirmSaveScreen
from tui.screens.help import HelpScreen
from tui.screens.save import SavePathScreen
from tui.widgets.footer import KeyFooter

HERMES_CONFIG = "tools:\n  tool_search:\n    threshold_pct: 5\n"

CASES = [  # the dialog, the keys that open it, what its key line must show
    (HelpScreen, ["question_mark"], ["esc Close"]),
    (CallScreen, ["ctrl+t"], ["esc Close", "^j Send"]),
    (ActivityDetailScreen, ["5", "enter"], ["esc Close", "← Older", "→ Newer", "c Copy JSON"]),
    (SavePathScreen, ["ctrl+s"], ["esc Cancel"]),
    (ConfirmSaveScreen, ["ctrl+s"], ["y Save", "n Cancel"]),
]


@pytest.mark.parametrize("dialog, keys, shown", CASES, ids=[c[0].__name__ for c in CASES])
async def test_each_dialog_shows_its_keys_on_its_bottom_line(tmp_path: Path, workspace,
                                                            dialog, keys, shown):
    sources: list[str] = []
    if dialog is ConfirmSaveScreen:
        config = tmp_path / "config.yaml"
        config.write_text(HERMES_CONFIG)
        sources.append(str(config))
    app = ToolSearchApp(sources, workspace=workspace, exact_delay=0.0, demo_delay=0.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        if dialog is ActivityDetailScreen:
            await play_demo(pilot)
        elif dialog in (SavePathScreen, ConfirmSaveScreen):  # a change to save
            await pilot.press("6", "tab", "tab", "tab", "ctrl+u", "3", "enter")
        await pilot.press(*keys)
        await settle(pilot)
        assert isinstance(app.screen, dialog), app.screen_stack
        line = app.screen.query_one(KeyFooter)
        assert line.region.y == app.size.height - 1  # the bottom line, where the footer is
        text = line.render().plain
        for key in shown:
            assert key in text, (key, text)
        await pilot.press("escape")  # the key the line names closes it
        await settle(pilot)
        assert len(app.screen_stack) == 1, app.screen_stack
