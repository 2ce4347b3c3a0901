"""Frames skip what other widgets cover (tui/occlusion.py) and still send what Textual sends.

Each frame the app draws while keys switch tabs, open the key map, move cursors and edit a
field is also composed by Textual's own ``Compositor._render_chops``; the two must hold the
same strips in the same cells on every line the frame takes from them, and the app's must have asked fewer widgets
for lines (the covered containers).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from tui_helpers import settle

from tui.occlusion import OccludingCompositor


def _cells(chops: Sequence[Mapping[int, Strip | None]], crop: Region
           ) -> list[list[tuple[int, Any]]]:
    """The cells of the lines in *crop*: the lines a frame takes from a call (Textual's
    box holds every changed line; tui/banding.py keeps each band's own lines)."""
    return [[(x, None if strip is None else list(strip)) for x, strip in line.items()]
            for line in chops[crop.y:crop.bottom]]


async def test_frames_equal_textuals_own_while_tabs_switch(make_app, monkeypatch):
    ours = OccludingCompositor._render_chops
    asked: dict[str, int] = {"ours": 0, "textual": 0}
    counting = [""]
    render_lines = Widget.render_lines
    compared: list[int] = []

    def counted(self: Widget, crop: Region) -> list[Strip]:
        if counting[0]:
            asked[counting[0]] += 1
        return render_lines(self, crop)

    def both(self: OccludingCompositor, crop: Region,
             is_rendered_line: Callable[[int], bool]) -> Sequence[Mapping[int, Strip]]:
        counting[0] = "ours"
        mine = ours(self, crop, is_rendered_line)
        counting[0] = "textual"
        theirs = Compositor._render_chops(self, crop, is_rendered_line)
        counting[0] = ""
        assert _cells(mine, crop) == _cells(theirs, crop)
        compared.append(crop.area)
        return mine

    monkeypatch.setattr(Widget, "render_lines", counted)
    monkeypatch.setattr(OccludingCompositor, "_render_chops", both)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key in ("2", "3", "4", "5", "6", "7", "1", "2", "4", "1"):
            await pilot.press(key)
            await settle(pilot)
        await pilot.press("down", "a", "3", "right", "right", "question_mark")
        await settle(pilot)
        await pilot.press("escape", "6", "tab", "tab", "tab", "end", "0", "escape", "1")
        await settle(pilot)
    assert len(compared) >= 15  # frames of every tab were compared
    assert asked["ours"] < asked["textual"]  # and the covered widgets were not rendered
