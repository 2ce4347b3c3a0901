"""A click and the keys typed right after it: the click's effect comes first, as the
operator made them (SPEC §11), whatever the click set off on its way up to the app."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widget import Widget
from textual.widgets import Button, Input
from tui_helpers import burst, settle, terminal_read

from toolsearch.toolsets import Workspace
from tui.app import ToolSearchApp
from tui.screens.confirm_save import ConfirmSaveScreen
from tui.widgets.tuning import TuningPane

SIZES = [(80, 24), (120, 40)]


def _click_then(app: ToolSearchApp, widget: Widget, keys: str) -> None:
    """A click on *widget* and *keys* in one read from the terminal (SGR mouse reports)."""
    x, y = widget.region.offset
    at = f"{x + 1};{y + 1}"
    terminal_read(app, f"\x1b[<0;{at}M\x1b[<0;{at}m{keys}")


async def _tuned_with_config(tmp_path: Path, workspace: Workspace, size: tuple[int, int]
                             ) -> tuple[ToolSearchApp, Path]:
    config = tmp_path / "config.yaml"
    config.write_text("tools:\n  tool_search:\n    enabled: auto\n")
    return ToolSearchApp([str(config)], workspace=workspace, exact_delay=0.0), config


async def _type_threshold(pilot: object, app: ToolSearchApp) -> Input:
    """Tuning shown, `50` typed into threshold_pct and Enter: a change the operator made."""
    await pilot.press("6")  # type: ignore[attr-defined]
    await settle(pilot)
    field = app.query_one(TuningPane).query_one("#tune-threshold_pct", Input)
    field.focus()
    await settle(pilot)
    await pilot.press("ctrl+u", "5", "0", "enter")  # type: ignore[attr-defined]
    await settle(pilot)
    assert app.overrides == {"threshold_pct": 50.0}
    return field


@pytest.mark.parametrize("size", SIZES)
async def test_ctrl_s_after_a_click_on_reset_saves_nothing(tmp_path, workspace, size) -> None:
    """Reset clicked, then Ctrl+S in the same read: the save dialog offered to write the
    threshold_pct of 50 the operator had just reset (the click's Pressed reached the pane
    after Ctrl+S had run); now the reset comes first and there is nothing to save."""
    app, config = await _tuned_with_config(tmp_path, workspace, size)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        field = await _type_threshold(pilot, app)
        reset = app.query_one(TuningPane).query_one("#tune-reset", Button)
        reset.scroll_visible(animate=False)
        await settle(pilot)
        _click_then(app, reset, "\x13")  # Ctrl+S
        await settle(pilot)
        assert not any(isinstance(s, ConfirmSaveScreen) for s in app.screen_stack)
        assert any("Nothing to save" in n.message for n in app._notifications)
        assert app.overrides == {}
        assert field.value != "50"
    assert "threshold_pct" not in config.read_text()


@pytest.mark.parametrize("size", SIZES)
async def test_ctrl_s_after_enter_on_reset_saves_nothing(tmp_path, workspace, size) -> None:
    """Enter on the focused Reset button, then Ctrl+S in one burst: the same, by keys."""
    app, _config = await _tuned_with_config(tmp_path, workspace, size)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await _type_threshold(pilot, app)
        app.query_one(TuningPane).query_one("#tune-reset", Button).focus()
        await settle(pilot)
        burst(app, ["enter", "ctrl+s"])
        await settle(pilot)
        assert not any(isinstance(s, ConfirmSaveScreen) for s in app.screen_stack)
        assert any("Nothing to save" in n.message for n in app._notifications)


async def _after_reset_then(make_app, size: tuple[int, int], keys: list[str], *, burst_read: bool
                           ) -> tuple[str | None, dict[str, str]]:
    """Where the cursor is and what the fields hold after a click on Reset and *keys*, in
    one read or one at a time."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await _type_threshold(pilot, app)
        pane = app.query_one(TuningPane)
        reset = pane.query_one("#tune-reset", Button)
        reset.scroll_visible(animate=False)
        await settle(pilot)
        if burst_read:
            _click_then(app, reset, "".join(keys))
        else:
            _click_then(app, reset, "")
            await settle(pilot)
            for key in keys:
                terminal_read(app, key)
                await settle(pilot)
        await settle(pilot)
        focused = app.focused.id if app.focused is not None else None
        return focused, {f.id or "": f.value for f in pane.query(Input)}


@pytest.mark.parametrize("size", SIZES)
async def test_keys_after_a_click_on_reset_land_as_typed_slowly(make_app, size) -> None:
    """Reset clicked, then Shift+Tab to the context field and `9`: the same cursor and
    fields as when typed one at a time (the reset's late cursor move had left the pane
    holding the cursor, and the `9` went nowhere)."""
    keys = ["\x1b[Z"] * 4 + ["9"]  # Shift+Tab four times (to the context field), then 9
    slow = await _after_reset_then(make_app, size, keys, burst_read=False)
    fast = await _after_reset_then(make_app, size, keys, burst_read=True)
    assert fast == slow
    assert slow[0] == "tune-context" and slow[1]["tune-context"].endswith("9")
