"""A tab's digit on a screen shown over the app (the key map, an activity entry): the screen
closes and the tab is shown, as the digit does everywhere outside a text field (SPEC §11: no
keystroke is lost; `?` then `2` did nothing, and the `2` was gone)."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.screen import Screen

from ..commands import TABS

TAB_KEYS = [Binding(str(n), f"leave_for_tab('{key}')", title, show=False,
                    id=f"leave_for.{key}")
            for n, (key, title) in enumerate(TABS, start=1)]
"""Bindings a closing screen adds to its own."""


class LeavesForTab(Screen[Any]):
    """Mixed into a screen that holds no text field: its ``TAB_KEYS`` close it for the tab."""

    async def action_leave_for_tab(self, key: str) -> None:
        app = self.app
        if app.screen is self:
            self.dismiss(None)
        await app.run_action(f"show_tab('{key}')")
