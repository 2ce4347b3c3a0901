"""The keyboard contract, driven only by keys from launch (SPEC §11, STYLE §13)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input
from tui_helpers import active_tab, settle, terminal_read, wait_until

from tui.screens.help import HelpScreen
from tui.widgets.search import SearchPane
from tui.widgets.tools import ToolsPane


async def test_tools_filter_by_keys_then_escape_then_a_digit(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "slash", *"scrape")
        await settle(pilot)
        pane = app.query_one(ToolsPane)
        assert pane.query_one("#tools-filter", Input).value == "scrape"
        assert {r.name for r in pane.table.rows} == {"mcp__firecrawl__scrape"}
        await pilot.press("escape")
        await settle(pilot)
        assert pane.query_one("#tools-filter", Input).value == ""
        assert len(pane.table.rows) > 1
        await pilot.press("3")
        await settle(pilot)
        assert active_tab(app) == "listing"


async def test_tools_enter_keeps_the_filter_and_moves_to_the_table(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "slash", *"deferred", "enter", "down")
        await settle(pilot)
        pane = app.query_one(ToolsPane)
        assert pane.query_one("#tools-filter", Input).value == "deferred"
        names = [r.name for r in pane.table.rows]
        assert len(names) > 1 and {r.status for r in pane.table.rows} == {"deferred"}
        assert pane.highlighted_name() == names[1], "Down moved the cursor"
        await pilot.press("1")
        await settle(pilot)
        assert active_tab(app) == "servers"


async def test_search_by_keys_from_launch(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("4", "slash", *"scrape a page", "enter")
        await settle(pilot)
        assert app.query_one(SearchPane).query_text == "scrape a page"
        assert app.search is not None and app.search.query == "scrape a page"
        await pilot.press("escape", "5")
        await settle(pilot)
        assert active_tab(app) == "activity"
        assert app.query_one(SearchPane).query_text == "scrape a page"


async def test_enter_in_the_search_query_puts_the_cursor_on_the_hits(make_app):
    """As in the Tools filter: after Enter, `y` copies the top hit and a digit switches tabs
    (both were typed into the query)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("4", "slash", *"scrape a page", "enter")
        await settle(pilot)
        assert app.focused is app.query_one("#hits-table-seed")
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard.startswith("1\t") and "scrape" in app.clipboard
        await pilot.press("2")
        await settle(pilot)
        assert active_tab(app) == "tools"
        assert app.query_one(SearchPane).query_text == "scrape a page"


async def test_servers_keys_work_at_once(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("down", "a")
        await settle(pilot)
        assert app.session.detached == {"firecrawl"}
        await pilot.press("down", "s")
        await settle(pilot)
        assert app.session.scope is not None and "xactions" not in app.session.scope
        await pilot.press("2", "1", "a")
        await settle(pilot)
        assert app.session.detached == {"firecrawl", "xactions"}, "the cursor kept its row"


async def test_enter_on_a_server_shows_its_tools_and_changes_nothing(make_app):
    """Enter on a Servers row detached the server: the key a new operator presses to see
    more changed a setting (and a second click on a row did the same)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = app.session
        await pilot.press("down", "enter")
        await settle(pilot)
        assert active_tab(app) == "tools"
        pane = app.query_one(ToolsPane)
        assert pane.query_one("#tools-filter", Input).value == "mcp-firecrawl"
        assert app.focused is pane.table
        assert pane.table.rows and {r.toolset for r in pane.table.rows} == {"mcp-firecrawl"}
        assert app.session.detached == before.detached and app.session.scope == before.scope
        await pilot.press("escape")  # the table's Esc clears the filter
        await settle(pilot)
        assert len({r.toolset for r in pane.table.rows}) > 1


async def test_recall_f5_right_after_the_digit(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("7", "f5")
        await settle(pilot)
        assert app.recall_step is not None


@pytest.mark.parametrize("one_read", [False, True], ids=["pressed", "one-read"])
async def test_tuning_escape_leaves_a_number_field(make_app, one_read):
    """one-read: Esc and 7 within the terminal's escape delay, one key (`alt+7`'s character)
    to Textual, which typed it into the field."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = app.session.config.search_default_limit
        await pilot.press("6", *["tab"] * 5)
        await settle(pilot)
        assert app.focused.id == "tune-search_default_limit"
        await pilot.press("backspace", "9")
        if one_read:
            terminal_read(app, "\x1b7")
        else:
            await pilot.press("escape", "7")
        await settle(pilot)
        assert active_tab(app) == "recall"
        assert app.session.config.search_default_limit == 9 != before
        await pilot.press("6", *["tab"] * 5, "backspace", "4", "enter", "3")
        await settle(pilot)
        assert active_tab(app) == "listing"
        assert app.session.config.search_default_limit == 4


async def test_reset_restores_the_field_under_the_cursor_and_its_note(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        loaded = app.session.config.listing_max_tokens
        await pilot.press("6", *["tab"] * 4, "ctrl+u", *"99999")
        await settle(pilot)
        field = app.query_one("#tune-listing_max_tokens", Input)
        note = app.query_one("#tune-note-listing_max_tokens")
        assert "clamped" in str(note.content)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert field.value == str(loaded)
        assert "clamped" not in str(note.content)
        assert app.session.config.listing_max_tokens == loaded
        await pilot.press("7")
        await settle(pilot)
        assert field.value == str(loaded)
        assert active_tab(app) == "recall"


async def _key_map_text(app: Any, pilot: Any) -> str:
    """`?` from launch: the key map's text."""
    await settle(pilot)
    await pilot.press("question_mark")
    await settle(pilot)
    assert isinstance(app.screen, HelpScreen)
    return str(app.screen.query_one("#help-text").render())


async def test_help_and_quit_keys(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        text = await _key_map_text(app, pilot)
        for section in ("Servers", "Tools", "Search", "Tuning", "Recall"):
            assert section in text
        await pilot.press("escape", "f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "2", "slash", "q")
        await settle(pilot)
        assert app.query_one("#tools-filter", Input).value == "q"
        assert app.is_running
        await pilot.press("escape", "q")
        await pilot.pause()
        assert app.return_code is not None or not app.is_running


async def test_call_and_demo_keys_work_inside_a_field(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "slash", *"scr", "ctrl+t")
        await settle(pilot)
        assert type(app.screen).__name__ == "CallScreen"
        await pilot.press("escape", "ctrl+g")
        await settle(pilot)
        assert active_tab(app) == "activity"
        assert app.activity, "the demo played"


async def test_compare_box_says_on_and_off_in_words(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("4", "c")
        await settle(pilot)
        box = app.query_one("#search-compare")
        assert box.value and str(box.label).endswith(": on")
        await pilot.press("c")
        await settle(pilot)
        assert not box.value and str(box.label).endswith(": off")


async def test_demo_with_one_live_server_says_live_and_narrows_to_the_rest():
    from toolsearch.toolsets import Toolset, ToolsetStatus, ToolSpec, Workspace
    from tui.app import ToolSearchApp

    schema = {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}
    live = Toolset("firecrawl", "mcp", (ToolSpec("scrape", "Scrape a page.", schema),
                                        ToolSpec("map", "Map a site.", schema)),
                   status=ToolsetStatus.CONNECTED)
    core = Toolset("hermes-core", "core", (ToolSpec("terminal", "Run a command.", {}),))
    app = ToolSearchApp(workspace=Workspace(name="one", toolsets=(core, live)), demo_delay=0.0,
                        exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
        notes = [e.note for e in app.activity]
        assert not any("nothing" in n for n in notes)
        assert any("scope narrowed to hermes-core" in n and "refused" in n for n in notes)
        assert any("'firecrawl' is live" in n for n in notes)
        assert not any("snapshot source" in n for n in notes)


async def test_demo_pause_step_and_details_by_keys(make_app):
    from tui.screens.activity_detail import ActivityDetailScreen

    app = make_app(demo_delay=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("5", "n")  # n starts the demo one call at a time
        await pilot.pause(0.4)  # (settle would wait for the paused demo worker)
        assert app.demo_running and app.demo_paused
        assert len(app.activity) == 1
        await pilot.press("n")
        await pilot.pause(0.4)
        assert len(app.activity) == 2
        await pilot.press("space")  # resume: the rest plays
        for _ in range(20):
            await settle(pilot)
            if not app.demo_running:
                break
        assert not app.demo_running and len(app.activity) >= 6
        times = [e.at for e in app.activity]
        assert times == sorted(times) and times[0] > 0
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ActivityDetailScreen)
        assert screen.index == len(app.activity) - 1
        text = screen.query_one("#detail-text").text
        assert "request:" in text and "reply:" in text and '"arguments"' in text
        await pilot.press("left")
        assert screen.index == len(app.activity) - 2
        await pilot.press("c")
        await settle(pilot)
        assert '"request"' in app.clipboard
        app.copy_to_clipboard("")
        await pilot.press("y")  # y copies wherever c does (Search copies a hit with y)
        await settle(pilot)
        assert '"request"' in app.clipboard
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ActivityDetailScreen)
        await pilot.press("y")
        assert f'"bridge": "{app.activity[-1].event.bridge}"' in app.clipboard


async def test_stepping_past_the_demos_last_call_says_it_finished(make_app):
    """`n` one call at a time to the end: the app says the demo finished, so the next `n`
    (which plays it again from call 1) is no surprise."""
    app = make_app(demo_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("5", "n")
        for _ in range(30):
            await pilot.pause(0.2)
            if not app.demo_running:
                break
            await pilot.press("n")
        assert not app.demo_running and len(app.activity) >= 6
        messages = [n.message for n in app._notifications]
        assert any(m.startswith(f"Demo finished: {len(app.activity)} calls") for m in messages)


async def test_sort_by_keys_and_header_click_keeps_the_cursor_row(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "down", "down", "down")
        await settle(pilot)
        pane = app.query_one(ToolsPane)
        chosen = pane.highlighted_name()
        await pilot.press("S", "S")  # Status, then Tool
        await settle(pilot)
        names = [r.name for r in pane.table.rows]
        assert pane.table.sort_column == 1 and names == sorted(names, key=str.lower)
        assert pane.highlighted_name() == chosen
        await pilot.click("#tools-table", offset=(2, 0))  # the Status column's header
        await settle(pilot)

        def status_cells():
            return [pane.table.get_cell(f"{r.toolset}\x1f{r.name}", "status").plain
                    for r in pane.table.rows]

        assert pane.table.sort_column == 0 and status_cells() == sorted(status_cells())
        assert pane.highlighted_name() == chosen
        await pilot.click("#tools-table", offset=(2, 0))
        await settle(pilot)
        assert pane.table.sort_reverse
        assert status_cells() == sorted(status_cells(), reverse=True)
        assert pane.highlighted_name() == chosen
        await pilot.press("1", "S", "S", "S", "S")  # Servers: Tools column
        await settle(pilot)
        table = app.query_one("#servers-table")
        numbers = [int(table.get_cell(key, "tools").plain.replace(",", ""))
                   for key, _ in table.rows]
        assert numbers == sorted(numbers)


async def test_copy_and_export_the_sent_listing_and_a_hit(make_app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tool_search-description.txt").write_text("mine\n")  # never overwritten
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("3", "right_square_bracket", "right_square_bracket",
                          "right_square_bracket")
        await settle(pilot)
        pane = app.query_one("#listing")
        assert pane.active_form == "sent"
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == pane.text_of("sent") and "tool_search" in app.clipboard.lower()
        app.copy_to_clipboard("")
        await pilot.press("c")
        await settle(pilot)
        assert app.clipboard == pane.text_of("sent")
        await pilot.press("e")
        await settle(pilot)
        assert (tmp_path / "tool_search-description.txt").read_text() == "mine\n"
        written = (tmp_path / "tool_search-description-2.txt").read_text()
        assert written.rstrip("\n") == pane.text_of("sent").rstrip("\n")
        await pilot.press("4", "slash", *"scrape", "enter", "escape", "y")
        await settle(pilot)
        assert app.clipboard.startswith("1\t") and "mcp__firecrawl__scrape" in app.clipboard


async def test_launch_profile_sticks_and_the_palette_switch_updates_the_fields(make_app):
    app = make_app(profile="latest")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.session.config.profile.name == "latest" and "latest" in app.sub_title
        await pilot.press("6")
        await settle(pilot)
        field = app.query_one("#tune-max_search_limit", Input)
        assert field.value == "25"
        await pilot.press("ctrl+p", *"switch profile to seed")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.config.profile.name == "seed"
        assert field.value == "20" == str(app.session.config.max_search_limit)
        assert app.query_one("#tune-profile").value == "seed"


async def test_typing_a_context_length_at_a_normal_pace_keeps_every_digit(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6", *["tab"] * 8, "ctrl+u")
        for pace in (0.02, 0.12):
            for digit in "32000":
                await pilot.press(digit)
                await pilot.pause(pace)
            await settle(pilot)
            assert app.query_one("#tune-context", Input).value == "32000"
            assert app.session.context_length == 32000
            await pilot.press("ctrl+u")


async def test_seed_demo_opens_under_the_profile_asked_for():
    import pytest

    from toolsearch.sources.samples import sample_path
    from tui.app import ToolSearchApp

    if sample_path("seed-demo") is None:
        pytest.skip("sample catalogs not installed")
    app = ToolSearchApp(["seed-demo"], profile="latest", exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        assert app.session.config.profile.name == "latest"
        assert app.query_one("#tune-max_search_limit", Input).value == "25"
        assert app.query_one("#tune-profile").value == "latest"


async def test_a_filter_that_matches_nothing_offers_the_closest_names(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "slash", *"mcp__firecrawl__firecrawl_scrape")
        await settle(pilot)
        text = str(app.query_one("#tool-explain").content)
        assert "No tool matches the filter. Did you mean: mcp__firecrawl__scrape" in text


async def test_the_palette_keys_command_opens_the_key_map(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "slash", "ctrl+p", *"Keys")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text").render())
        assert "Tuning" in text and "Activity" in text, "every pane, not one field's keys"


async def test_the_prepared_help_screen_follows_a_theme_change(make_app):
    """The help screen is built ahead and kept installed: a theme chosen after that still
    styles it (its box is the new theme's surface)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: app.is_screen_installed("key map"),
                         "the help screen prepared in an idle moment")
        first = app.get_css_variables()["surface"]
        themes = [name for name in app.available_themes if name != app.theme]
        themes = [name for name in themes  # themes whose surface differs from the first's
                  if app.available_themes[name].surface not in (None, first)][:2]
        assert themes
        for name in themes:
            app.theme = name
            await settle(pilot)
            await pilot.press("question_mark")
            await settle(pilot)
            assert isinstance(app.screen, HelpScreen)
            box = app.screen.query_one("#help-box")
            surface = app.get_css_variables()["surface"]
            assert box.styles.background.hex.lower() == surface.lower()[:7], name
            await pilot.press("escape")
            await settle(pilot)


def _screen_lines(app) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_the_help_screen_is_drawn_ahead_and_again_after_a_resize(make_app):
    """The help screen is laid out and drawn while the operator is idle, at the app's size;
    shown after a resize it is laid out again: the same lines as a help screen opened at
    that size with nothing done ahead."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: app.is_screen_installed("key map") and
                         app.get_screen("key map").query_one("#help-text").size.width > 0,
                         "the help screen laid out in an idle moment")
        await pilot.press("question_mark")
        await settle(pilot)
        at_120 = _screen_lines(app)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        at_80 = _screen_lines(app)
    fresh = make_app()
    fresh._prepare_help = lambda: None  # nothing done ahead: built, laid out and drawn on `?`
    async with fresh.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert not fresh.is_screen_installed("key map")
        assert _screen_lines(fresh) == at_80
    assert len(at_80) == 24 and len(at_120) == 40 and at_120[3] != at_80[3]


async def test_the_key_map_names_keys_as_typed_and_only_the_apps_own(make_app):
    """The key map showed `left_square_bracket` / `right_square_bracket` for Listing's [ and
    ], and under Tuning ten scrolling keys the pane inherits from its scroll container
    ("up  Scroll Up", "Ctrl+PAGEUP  Page Left") instead of its own."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        text = await _key_map_text(app, pilot)
        assert "square_bracket" not in text
        listing = text.split("\nListing\n")[1].split("\n\n")[0]
        assert "  [  " in listing and "  ]  " in listing
        tuning = text.split("\nTuning\n")[1].split("\n\n")[0]
        assert "Scroll" not in tuning and "Page Left" not in tuning
        assert "leave a number field" in tuning
