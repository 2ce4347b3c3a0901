"""What the terminal was sent equals the screen drawn again from scratch.

The app draws less than Textual would after a tab switch: covered widgets are not rendered
(tui/occlusion.py), changed lines are drawn band by band (tui/banding.py), and widgets that
ask for a repaint during a frame's layout join that frame instead of one of their own
(tui/pacing.py), and hidden tabs have their widgets' styles worked out ahead
(tui/prepare.py). Here every frame the app draws is applied, cell by cell, to a model of the
terminal; after keys that switch tabs (first shows and tabs shown before), open the key map,
move cursors and edit a field, the model must hold what a full redraw from scratch shows,
characters and styles.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.segment import ControlType, Segment
from textual.app import App
from tui_helpers import settle

from tui.pacing import PacedFrames
from tui.widgets.bigtable import BigTable

Cell = tuple[str, Any]


class Terminal:
    """Cells as the terminal holds them after the frames written so far."""

    def __init__(self, width: int, height: int) -> None:
        self.cells: list[list[Cell | None]] = [[None] * width for _ in range(height)]
        self.frames = 0

    def write(self, segments: Any) -> None:
        self.frames += 1
        x = y = 0
        for segment in segments:
            if segment.control:
                for control in segment.control:
                    if control[0] == ControlType.CURSOR_MOVE_TO:
                        x, y = control[1], control[2]
                continue
            if segment.text == "\n":
                continue
            for char in segment.text:
                if 0 <= y < len(self.cells) and 0 <= x < len(self.cells[y]):
                    self.cells[y][x] = (char, segment.style)
                x += cell_len(char)


def _from_scratch(app: Any) -> list[list[Cell]]:
    """The screen drawn again with every cache dropped (styles worked out again too), as
    cells."""
    for widget in app.screen.walk_children(with_self=True):
        if isinstance(widget, BigTable):
            widget._lines.clear()
        widget.notify_style_update()
        widget.refresh()
    lines = []
    for strip in app.screen._compositor.render_strips():
        cells: list[Cell] = []
        for segment in Segment.simplify(strip):
            cells.extend((char, segment.style) for char in segment.text)
        lines.append(cells)
    return lines


async def _same(pilot: Any, terminal: Terminal) -> None:
    await settle(pilot)
    wanted = _from_scratch(pilot.app)
    for y, line in enumerate(wanted):
        sent = terminal.cells[y][:len(line)]
        assert [c[0] if c else None for c in sent] == [c[0] for c in line], f"line {y}"
        assert sent == line, f"line {y}: styles"
    await settle(pilot)


async def test_the_terminal_holds_a_full_redraw_after_tab_switches(make_app, monkeypatch):
    terminal = Terminal(120, 40)
    display = App._display

    def sent(self: App[object], screen: Any, renderable: Any) -> None:
        if renderable is not None and hasattr(renderable, "__rich_console__") and \
                isinstance(screen, PacedFrames) and not self._batch_count:
            console = self.console
            terminal.write(renderable.__rich_console__(console, console.options))
        display(self, screen, renderable)

    monkeypatch.setattr(App, "_display", sent)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(2.0)  # the hidden tabs laid out and styled ahead (tui/prepare.py)
        await _same(pilot, terminal)
        for key in ("2", "3", "4", "5", "7", "1", "2", "3", "4", "5", "7", "1"):
            await pilot.press(key)
            await _same(pilot, terminal)
        await pilot.press("down", "a", "2", "end", "3", "right", "right")
        await _same(pilot, terminal)
        await pilot.press("6", "tab", "tab", "tab", "end", "0", "escape", "1")
        await _same(pilot, terminal)
    assert terminal.frames > 20
