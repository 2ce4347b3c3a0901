"""A long session: opening and closing dialogs does not grow the app without bound."""

from __future__ import annotations

import gc
import weakref

from textual.widgets import TextArea
from tui_helpers import settle, wait_until


async def test_closed_call_dialogs_are_not_kept(make_app):
    """Each Ctrl+T then Esc kept the dialog's two text areas (and every line they drew)
    watching the app's theme until the next theme change: 200 dialogs took 52 MB."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        opened: list[weakref.ref[TextArea]] = []
        for _ in range(6):
            await pilot.press("ctrl+t")
            await settle(pilot)
            opened += [weakref.ref(area) for area in app.screen.query(TextArea)]
            await pilot.press("escape")
            await settle(pilot)
        assert len(opened) == 12  # each dialog's name and arguments
        watchers = getattr(app, "__watchers", {})

        def closed() -> list[object]:
            return [node for pairs in watchers.values() for node, _ in pairs if node._closing]

        await wait_until(pilot, lambda: not closed(), "closed dialogs' watchers dropped",
                         seconds=5)

        def kept() -> list[TextArea]:
            gc.collect()
            return [area for ref in opened if (area := ref()) is not None]

        # only this test's dialogs: other tests' apps may still be in memory in a full run
        await wait_until(pilot, lambda: not kept(), "closed text areas freed", seconds=5)
