"""App-wide behaviour: themes, palette, keys, loading, NO_COLOR, small terminals."""

from __future__ import annotations

import pytest
from textual.widgets import Input, TabbedContent
from tui_helpers import settle

from tui.app import ToolSearchApp
from tui.commands import palette_entries
from tui.themes import load_themes, theme_from_data
from tui.widgets.gauges import GaugesPane
from tui.widgets.servers import ServersPane

OUR_THEMES = [t.name for t in load_themes().themes]


def test_our_themes_are_found():
    assert {"ops-dark", "ops-light", "ops-high-contrast"} <= set(OUR_THEMES)


@pytest.mark.parametrize("theme", [*OUR_THEMES, "textual-dark", "textual-light", "ansi-dark",
                                   "nord"])
async def test_app_starts_under_every_theme(make_app, theme):
    app = make_app(theme=theme)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.theme == theme
        assert app.get_css_variables()["tier-1"]
        app.save_screenshot("/dev/null")


async def test_a_bad_theme_file_is_reported_not_fatal(tmp_path, make_app):
    (tmp_path / "good.yaml").write_text("name: good\nprimary: '#123456'\n")
    (tmp_path / "broken.yaml").write_text("name: [unclosed\n")
    (tmp_path / "badcolour.yaml").write_text("name: bad\nprimary: notacolour\n")
    app = make_app(themes_folder=tmp_path, theme="good")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.theme == "good"
        notes = " | ".join(app.startup_notes)
        assert "broken.yaml skipped" in notes and "badcolour.yaml skipped" in notes
        assert any("skipped" in n.message for n in app._notifications)


def test_theme_data_errors_say_what_is_wrong():
    with pytest.raises(ValueError, match="missing 'name'"):
        theme_from_data({"primary": "#fff"}, "x")
    with pytest.raises(ValueError, match="variables.tier-1"):
        theme_from_data({"name": "x", "primary": "#fff", "variables": {"tier-1": "nope"}}, "x")


async def test_unknown_theme_falls_back(make_app):
    app = make_app(theme="no-such-theme")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.theme == "ops-dark"
        assert any("unknown theme" in n for n in app.startup_notes)


async def test_palette_offers_every_area_and_runs_actions(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        titles = [t for t, _, _ in palette_entries(app)]
        for prefix in ("View:", "Listing:", "Search:", "Tools:", "Feed:", "Tuning:", "Demo:",
                       "Servers:"):
            assert any(t.startswith(prefix) for t in titles), prefix
        assert all(": " in t for t in titles)
        assert "Servers: detach firecrawl" in titles
        action = dict((t, a) for t, a, _ in palette_entries(app))["Servers: detach firecrawl"]
        await app.run_action(action)
        await settle(pilot)
        assert "firecrawl" in app.session.detached
        titles = [t for t, _, _ in palette_entries(app)]
        assert "Servers: re-attach firecrawl" in titles
        assert "Tuning: switch profile to latest" in titles


async def test_palette_opens_with_our_commands(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"detach fire")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert "firecrawl" in app.session.detached


async def test_palette_then_a_digit_offers_that_tab_first(make_app):
    """Ctrl+P, `2`, Enter: the Tools tab (the digit a tab's key everywhere else), not the
    first command whose title holds a 2 ("switch profile to bm25f" ran)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for digit, tab in (("2", "tab-tools"), ("5", "tab-activity"), ("1", "tab-servers")):
            await pilot.press("ctrl+p")
            await pilot.pause()
            await pilot.press(digit)
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert app.query_one("#main-tabs", TabbedContent).active == tab, digit
            assert app.session.config.profile.name == "seed"


async def test_digit_keys_switch_tabs_but_not_while_typing(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tabs = app.query_one("#main-tabs", TabbedContent)
        await pilot.press("6")
        assert tabs.active == "tab-tuning"
        field = app.query_one("#tune-listing_max_tokens", Input)
        field.focus()
        field.value = ""
        await pilot.press("3", "0", "0", "0")
        await settle(pilot)
        assert tabs.active == "tab-tuning"
        assert app.session.config.listing_max_tokens == 3000
        app.query_one(ServersPane).table.focus()
        await pilot.press("2")
        assert tabs.active == "tab-tools"


async def test_every_binding_has_an_id(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        from textual.binding import Binding

        from tui.widgets import bigtable, recall, search, servers, tools

        for cls in (ToolSearchApp, servers.ServersPane, tools.ToolsPane, search.SearchPane,
                    recall.RecallPane, bigtable.BigTable):
            for b in cls.BINDINGS:
                assert isinstance(b, Binding) and b.id, (cls.__name__, b)


async def test_a_source_that_cannot_load_is_reported(tmp_path):
    app = ToolSearchApp([str(tmp_path / "missing.yaml")], exact_delay=0.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.session is not None and not app.session.workspace.toolsets
        assert any(n.severity == "error" for n in app._notifications)
        assert app.sub_title.startswith("(nothing loaded)") or "nothing" in app.sub_title


async def test_no_color_is_honoured(monkeypatch, make_app):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.no_color
        text = str(app.query_one("#gauge-text").content)
        assert "Tier 1" in text and "fits" in text  # words, not colour alone


async def test_usable_at_80_by_24(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        gauges = app.query_one(GaugesPane)
        assert gauges.region.height <= 9
        tabs = app.query_one("#main-tabs", TabbedContent)
        for key in ("servers", "tools", "listing", "search", "activity", "tuning", "recall"):
            app.action_show_tab(key)
            await pilot.pause()
            assert tabs.active == f"tab-{key}"
            pane = tabs.active_pane
            assert pane is not None and pane.region.height >= 8
        assert app.screen.has_class("-narrow")


async def test_a_terminal_resized_after_launch_gets_the_narrow_layout(make_app):
    """The narrow layout (below 100 columns) follows a resize after launch, not only the
    size at launch: Tuning's fields take their narrow width at 80x24 (they kept the wide
    width, and each note wrapped onto two lines)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.screen.has_class("-narrow")
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        assert app.screen.has_class("-narrow")
        field = app.screen.query(".tune-field").first()
        assert field.size.width == 14
        note = app.screen.query(".tune-note").first()
        assert note.size.height == 1
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert not app.screen.has_class("-narrow")
        assert field.size.width == 24
