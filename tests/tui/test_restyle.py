"""A hidden widget's restyle after it lost focus waits until it is shown (tui/restyle.py):
what is drawn has the look of the widget's present state, by keys and by a click."""

from __future__ import annotations

from typing import Any

from tui_helpers import settle


def _frame(app: Any) -> list[list[tuple[str, str]]]:
    """The screen's lines as (text, style) segments."""
    return [[(segment.text, str(segment.style)) for segment in strip]
            for strip in app.screen._compositor.render_strips()]


async def test_a_table_left_by_a_tab_switch_waits_and_comes_back_with_its_look(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.query_one("#servers-table")
        assert table.has_focus
        before = _frame(app)
        await pilot.press("2")
        await settle(pilot)
        assert not table.has_focus
        assert table in app._restyle_when_shown  # its blurred look is never drawn
        tools = app.query_one("#tools-table")
        assert tools.has_focus and tools not in app._restyle_when_shown
        await pilot.press("1")
        await settle(pilot)
        assert table.has_focus and table not in app._restyle_when_shown
        assert _frame(app) == before


async def test_a_tab_shown_by_a_click_is_drawn_with_its_present_look(make_app):
    """Shown by a click on the tab bar, not the app's key: the table that waited is restyled
    before the frame that shows it, and the frame is the one the keys give."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        by_key = _frame(app)
        await pilot.press("1")
        await settle(pilot)
        tools = app.query_one("#tools-table")
        assert tools in app._restyle_when_shown
        await pilot.click("#--content-tab-tab-tools")
        await settle(pilot)
        assert tools.has_focus and tools not in app._restyle_when_shown
        assert _frame(app) == by_key


def _restyled_frame(app: Any) -> list[list[tuple[str, str]]]:
    """The screen drawn again after every widget's styles were worked out afresh."""
    from tui.widgets.bigtable import BigTable

    app.stylesheet.update(app.screen, animate=False)
    for widget in app.screen.walk_children(with_self=True):
        if isinstance(widget, BigTable):
            widget._lines.clear()
        widget.notify_style_update()
        widget.refresh()
    return _frame(app)


async def test_a_table_back_in_the_state_it_was_styled_for_keeps_its_styles(make_app):
    """Its restyle is dropped, and the frame is the one a restyle from scratch gives."""
    from tui.restyle import look_of

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # once there and back: the hidden panes mounted since launch brought their CSS (a
        # new stylesheet) and the prepared help screen made the main screen's last-child
        # pseudo-class change, so the first return is restyled
        await pilot.press("2", "1")
        await settle(pilot)
        table = app.query_one("#servers-table")
        look = look_of(table)
        await pilot.press("2")
        await settle(pilot)
        dropped = app.restyles_dropped
        await pilot.press("1")
        await settle(pilot)
        assert table.has_focus and table not in app._restyle_when_shown
        assert app.restyles_dropped == dropped + 1
        assert look_of(table) == look
        shown = _frame(app)
        assert _restyled_frame(app) == shown
        assert look_of(table) == look


async def test_a_table_restyled_while_hidden_is_restyled_when_it_takes_the_cursor_back(
        make_app):
    """Styles changed by a path the app does not see (here the stylesheet applied to the
    hidden table directly, as a CSS reload does): the waiting restyle runs."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "1")  # see the test above
        await settle(pilot)
        table = app.query_one("#servers-table")
        await pilot.press("2")
        await settle(pilot)
        app.stylesheet.update_nodes([table], animate=False)  # its blurred look, while hidden
        dropped = app.restyles_dropped
        await pilot.press("1")
        await settle(pilot)
        assert table.has_focus and app.restyles_dropped == dropped
        shown = _frame(app)
        assert _restyled_frame(app) == shown


async def test_a_theme_changed_while_a_table_was_hidden_shows_when_it_is_back(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "1")  # see the test above
        await settle(pilot)
        table = app.query_one("#servers-table")
        await pilot.press("2")
        await settle(pilot)
        old = _frame(app)
        app.theme = "textual-light"
        await settle(pilot)
        dropped = app.restyles_dropped
        await pilot.press("1")
        await settle(pilot)
        assert table.has_focus and app.restyles_dropped == dropped
        shown = _frame(app)
        assert shown != old
        assert _restyled_frame(app) == shown


async def test_a_text_whose_pane_changed_class_while_hidden_is_restyled_when_back(
        make_app, workspace):
    """An ancestor's class changed while the Listing's text was hidden (the pane's subtree
    restyled, the text without the cursor): a rule for that class and the focused text
    changes the look it comes back with, though not the look it had while hidden (its look
    does not depend on focus otherwise); the restyle runs."""
    from pathlib import Path

    import tui.app
    from tui.app import ToolSearchApp
    from tui.restyle import look_of

    class Probe(ToolSearchApp):
        CSS_PATH = Path(tui.app.__file__).with_name("app.tcss")
        CSS = ".-probe TextView:focus { background-tint: $error 40%; }"

    app = make_app()
    app = Probe(workspace=workspace, clock=app.clock, wall_clock=app.wall_clock,
                demo_delay=0.0, exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("3", "1", "3")  # see the first of these tests
        await settle(pilot)
        text = app.query_one("#listing-text-full")
        assert text.has_focus
        focused = look_of(text)
        await pilot.press("1")
        await settle(pilot)
        app.query_one("#listing").add_class("-probe")
        await settle(pilot)
        assert look_of(text) == focused  # the restyle while hidden changed nothing in it
        dropped = app.restyles_dropped
        await pilot.press("3")
        await settle(pilot)
        assert text.has_focus and app.restyles_dropped == dropped
        assert look_of(text) != focused
        shown = _frame(app)
        assert _restyled_frame(app) == shown


async def test_a_restyle_elsewhere_keeps_a_hidden_tables_styles(make_app):
    """A widget with children restyled outside the table's ancestors (the pane shown now):
    the table's rules cannot have changed, and its waiting restyle is still dropped."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "1")  # see the first of these tests
        await settle(pilot)
        table = app.query_one("#servers-table")
        await pilot.press("2")
        await settle(pilot)
        app.query_one("#tools").add_class("-probe")
        await settle(pilot)
        dropped = app.restyles_dropped
        await pilot.press("1")
        await settle(pilot)
        assert table.has_focus and app.restyles_dropped == dropped + 1
        shown = _frame(app)
        assert _restyled_frame(app) == shown
