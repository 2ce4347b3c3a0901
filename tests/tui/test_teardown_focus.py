"""Leaving the app while a focus move still waits for its pane: a quiet exit, no traceback."""

from __future__ import annotations

import asyncio

from textual.screen import ModalScreen
from textual.widget import Widget
from tui_helpers import burst, fixture_workspace, settle

from tui.app import ToolSearchApp


class SlowToLeave(Widget):
    """Holds the teardown open a little (a big catalog's panes take a while to unmount),
    so the focus move's next try lands while the screens are being taken down."""

    async def on_unmount(self) -> None:
        await asyncio.sleep(0.2)


async def test_leaving_while_a_dialog_holds_the_tab_focus_back_is_quiet() -> None:
    """`3?` in one burst: the cursor's move into Listing waits (up to 2 s, every 50 ms) for
    the help to close. Leaving the app in that window raised NoMatches on ``#main-tabs``."""
    app = ToolSearchApp(workspace=fixture_workspace(), exact=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.screen.mount(SlowToLeave())
        burst(app, ["3", "question_mark"])
        await pilot.pause(0.1)
        assert isinstance(app.screen, ModalScreen)
    assert app.return_code in (0, None)
