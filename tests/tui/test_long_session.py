"""A long session: opening and closing dialogs does not grow the app without bound."""

from __future__ import annotations

import gc

from textual.widgets import TextArea
from tui_helpers import settle, wait_until


async def test_closed_call_dialogs_are_not_kept(make_app):
    """Each Ctrl+T then Esc kept the dialog's two text areas (and every line they drew)
    watching the app's theme until the next theme change: 200 dialogs took 52 MB."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for _ in range(6):
            await pilot.press("ctrl+t")
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
        watchers = getattr(app, "__watchers", {})

        def closed() -> list[object]:
            return [node for pairs in watchers.values() for node, _ in pairs if node._closing]

        await wait_until(pilot, lambda: not closed(), "closed dialogs' watchers dropped",
                         seconds=5)
        gc.collect()
        await wait_until(pilot, lambda: not [o for o in gc.get_objects()
                                             if isinstance(o, TextArea)],
                         "closed text areas freed", seconds=5)
