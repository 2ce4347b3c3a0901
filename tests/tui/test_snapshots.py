"""A handful of canonical screens, with fixed data, a fake clock and no cursor blink."""

from __future__ import annotations

import pytest
from tui_helpers import FakeClock, fixture_workspace, settle

from tui.app import ToolSearchApp


def _app(**kwargs: object) -> ToolSearchApp:
    kwargs.setdefault("workspace", fixture_workspace())
    return ToolSearchApp(clock=FakeClock(), wall_clock=FakeClock(step=1.0), demo_delay=0.0,
                         exact_delay=0.0,
                         **kwargs)  # type: ignore[arg-type]


def test_main_view(snap_compare):
    assert snap_compare(_app(), terminal_size=(120, 40), run_before=settle)


@pytest.mark.parametrize("form", ["full", "names", "summary", "sent"])
def test_listing_tab(snap_compare, form):
    async def show(pilot):
        await settle(pilot)
        pilot.app.action_show_listing(form)
        await settle(pilot)

    assert snap_compare(_app(), terminal_size=(120, 40), run_before=show)


def test_small_terminal_80x24(snap_compare):
    assert snap_compare(_app(), terminal_size=(80, 24), run_before=settle)


def test_error_state(snap_compare, tmp_path):
    async def highlight_error(pilot):
        await settle(pilot)
        await pilot.press("down", "down", "down")
        await settle(pilot)

    assert snap_compare(_app(), terminal_size=(120, 30), run_before=highlight_error)


def test_source_that_failed_to_load(snap_compare):
    app = ToolSearchApp(["/nonexistent/toolsearch/config.yaml"], workspace=None,
                        clock=FakeClock(), exact_delay=0.0)
    assert snap_compare(app, terminal_size=(100, 30), run_before=settle)


def test_activity_after_demo(snap_compare):
    async def demo(pilot):
        await settle(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)

    assert snap_compare(_app(), terminal_size=(120, 40), run_before=demo)


def test_recall_tab_with_a_bad_query_file(snap_compare):
    async def run_missing(pilot):
        await settle(pilot)
        pilot.app.action_show_tab("recall")
        await settle(pilot)
        pilot.app.query_one("#recall-path").value = "/nonexistent/queries.jsonl"
        pilot.app.action_run_recall()
        await settle(pilot)

    assert snap_compare(_app(), terminal_size=(120, 30), run_before=run_missing)


@pytest.mark.parametrize("tab", ["1", "2", "3", "4", "5", "6", "7"])
def test_each_tab_at_80x24(snap_compare, tab):
    """Every tab at 80×24, reached by its digit key from launch."""
    async def show(pilot):
        await settle(pilot)
        await pilot.press(tab)
        await settle(pilot)

    assert snap_compare(_app(), terminal_size=(80, 24), run_before=show)


def test_key_map_at_80x24(snap_compare):
    async def help_screen(pilot):
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)

    assert snap_compare(_app(), terminal_size=(80, 24), run_before=help_screen)
