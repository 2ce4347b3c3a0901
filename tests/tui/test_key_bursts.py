"""Keys that arrive in one burst (a fast typist, a paste, `tmux send-keys`): each key is
handled where the keys before it left the cursor, never in the pane the cursor just left."""

from __future__ import annotations

from textual.widgets import Input, TabbedContent
from tui_helpers import burst, fixture_workspace, settle

from tui import keys
from tui.app import ToolSearchApp
from tui.widgets.tools import ToolsPane


async def _ready(pilot: object) -> None:
    app = pilot.app  # type: ignore[attr-defined]
    for _ in range(20):
        await settle(pilot)
        if not app.screen.query("Lazy"):
            return


async def test_tab_slash_filter_enter_in_one_burst_from_servers() -> None:
    app = ToolSearchApp(workspace=fixture_workspace(), exact=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        assert keys.pane_of(app.focused) == "servers"
        session = app.session
        burst(app, ["2", "/", *"scrape", "enter"])  # 's' and 'a' are Servers keys
        await settle(pilot)
        pane = app.query_one(ToolsPane)
        assert app.query_one("#main-tabs", TabbedContent).active == "tab-tools"
        assert pane.query_one("#tools-filter", Input).value == "scrape"
        assert app.focused is pane.table
        assert pane.highlighted_name() == "mcp__firecrawl__scrape"
        assert app.session is not None and session is not None
        assert app.session.scope == session.scope  # no key reached the Servers pane
        assert app.session.detached == session.detached


async def test_letters_after_slash_in_one_burst_go_into_the_filter_not_to_quit() -> None:
    """`q` quits outside a text field: typed fast after `/`, it must land in the filter."""
    app = ToolSearchApp(workspace=fixture_workspace(), exact=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        await pilot.press("2")
        await settle(pilot)
        burst(app, ["/", *"quit"])
        await settle(pilot)
        assert app.is_running
        field = app.query_one(ToolsPane).query_one("#tools-filter", Input)
        assert app.focused is field and field.value == "quit"


async def test_keys_after_enter_in_the_filter_meet_the_table_not_the_field() -> None:
    """Enter leaves the filter for the table through a message or two; a `3` in the same
    burst switches to Listing instead of being typed into the filter."""
    app = ToolSearchApp(workspace=fixture_workspace(), exact=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        burst(app, ["2", "/", *"crawl", "enter", "3"])
        await settle(pilot)
        pane = app.query_one(ToolsPane)
        assert pane.query_one("#tools-filter", Input).value == "crawl"
        assert app.query_one("#main-tabs", TabbedContent).active == "tab-listing"
        assert keys.pane_of(app.focused) == "listing"


async def test_tuning_fields_typed_in_one_burst_keep_every_key() -> None:
    """`Ctrl+U 17 Enter` in a number field: Textual types the digits at once and runs the
    field's Ctrl+U binding later, which used to clear the `17` it had just typed."""
    app = ToolSearchApp(workspace=fixture_workspace(), exact=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        burst(app, ["6", "tab", "tab", "tab", "ctrl+u", "1", "7", "enter",
                    "tab", "ctrl+u", *"34000", "enter"])  # Tab: on from the field left
        await settle(pilot)
        assert app.session is not None
        assert app.session.config.threshold_pct == 17
        assert app.session.config.listing_max_tokens == 34000
        assert app.focused is not None and app.focused.id == "tuning"  # left the field


async def test_text_typed_right_after_opening_a_dialog_goes_into_its_field() -> None:
    from tui.screens.call import CallScreen

    app = ToolSearchApp(workspace=fixture_workspace(), exact=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        burst(app, ["ctrl+t", "ctrl+u", *"mcp__firecrawl__map"])
        await settle(pilot)
        assert isinstance(app.screen, CallScreen)
        assert app.screen.query_one("#call-name", Input).value == "mcp__firecrawl__map"
        assert app.focused is app.screen.query_one("#call-name", Input)


async def test_a_number_field_reached_in_the_same_burst_as_its_tab_shows_its_value() -> None:
    """`6` and three Tabs at once reach threshold_pct before the Tuning pane was first drawn:
    the field showed blank beside a set value."""
    app = ToolSearchApp(workspace=fixture_workspace(), exact=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        burst(app, ["6", "tab", "tab", "tab"])
        await settle(pilot)
        field = app.focused
        assert isinstance(field, Input) and field.id == "tune-threshold_pct"
        assert app.session is not None
        assert field.value == f"{app.session.config.threshold_pct:g}"
        assert not app.overrides  # filling a field is not the operator's change


async def test_keys_after_ctrl_p_inside_the_palette_are_not_kept_waiting() -> None:
    """Ctrl+P with the palette's field under the cursor is a priority binding: Textual runs it
    and never hands it to the field, so it never came back, and the keys after it waited a
    full second (typed into the palette late, or replayed after a quit into a palette
    already taken down: a NoMatches traceback)."""
    from textual.command import CommandInput

    app = ToolSearchApp(workspace=fixture_workspace(), exact=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        await pilot.press("ctrl+p")
        await pilot.press("ctrl+p", "x")  # Pilot waits until the screen has handled the keys
        assert app.screen.query_one(CommandInput).value == "x"  # not a second later
        await pilot.press("down", "ctrl+q")
    assert app.return_code == 0
