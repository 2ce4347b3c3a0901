"""Tuning recomputes at once; save writes the Hermes config and keeps a backup."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from textual.widgets import Input, Select, Static
from tui_helpers import HERMES_CONFIG, burst, settle

from toolsearch.sources.samples import sample_path
from tui.app import ToolSearchApp
from tui.screens.confirm_save import ConfirmSaveScreen
from tui.screens.save import SavePathScreen
from tui.widgets.tuning import TuningPane

FIELDS = ("tune-enabled", "tune-listing", "tune-threshold_pct", "tune-listing_max_tokens",
          "tune-search_default_limit", "tune-max_search_limit", "tune-context-preset",
          "tune-context", "tune-profile")


async def _type(pilot, widget: Input, text: str) -> None:
    """Reach the field by keys from anywhere (Esc, 6, Tab…), clear it and type *text*."""
    tabs = ["tab"] * (FIELDS.index(widget.id) + 1)
    await pilot.press("escape", "6", *tabs, "ctrl+u", *text)
    await settle(pilot)


async def test_tiny_threshold_moves_to_tier_2(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.session.assembly.tier == 1
        app.action_show_tab("tuning")
        pane = app.query_one(TuningPane)
        await _type(pilot, pane.query_one("#tune-threshold_pct", Input), "0.01")
        assert app.session.config.threshold_pct == pytest.approx(0.01)
        assert app.session.assembly.tier == 2
        assert "Tier 2" in str(app.query_one("#gauge-text", Static).content)
        assert "threshold_pct binds" in str(app.query_one("#gauge-text", Static).content)


async def test_clamped_value_is_shown(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_show_tab("tuning")
        pane = app.query_one(TuningPane)
        await _type(pilot, pane.query_one("#tune-listing_max_tokens", Input), "50")
        assert app.session.config.listing_max_tokens == 200
        note = str(pane.query_one("#tune-note-listing_max_tokens", Static).content)
        assert "clamped to 200" in note


async def test_listing_off_profile_and_context_presets(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_show_tab("tuning")
        pane = app.query_one(TuningPane)
        pane.query_one("#tune-listing", Select).value = "off"
        await settle(pilot)
        assert app.session.config.listing == "off"
        assert app.session.assembly.tier == 2
        pane.query_one("#tune-context-preset", Select).value = 32_768
        await settle(pilot)
        assert app.session.context_length == 32_768
        assert pane.query_one("#tune-context", Input).value == "32768"
        pane.query_one("#tune-profile", Select).value = "latest"
        await settle(pilot)
        assert app.session.config.profile.name == "latest"
        # never set by the operator: the latest default, not the seed value pinned
        assert app.session.config.max_search_limit == 25
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert app.session.config.listing == "auto"
        assert app.session.context_length == 200_000


@pytest.mark.skipif(sample_path("seed-demo") is None, reason="sample catalogs not installed")
async def test_seed_demo_cap_200_is_tier_2():
    app = ToolSearchApp(["seed-demo"], demo_delay=0.0, exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        a = app.session.assembly
        assert (a.tier, a.deferred_count, a.listing_form) == (1, 172, "full")
        assert app.session.workspace.name
        app.action_show_tab("tuning")
        pane = app.query_one(TuningPane)
        await _type(pilot, pane.query_one("#tune-listing_max_tokens", Input), "200")
        assert app.session.config.listing_max_tokens == 200
        assert app.session.assembly.tier == 2


def _on_a_hermes_config(tmp_path, workspace) -> tuple[Path, ToolSearchApp]:
    """The app on a Hermes config.yaml (Save's target) holding HERMES_CONFIG."""
    config = tmp_path / "config.yaml"
    config.write_text(HERMES_CONFIG)
    return config, ToolSearchApp([str(config)], workspace=workspace, exact_delay=0.0)


async def test_save_writes_the_hermes_config_and_keeps_a_backup(tmp_path, workspace):
    config, app = _on_a_hermes_config(tmp_path, workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.save_target == str(config)
        pane = app.query_one(TuningPane)
        await _type(pilot, pane.query_one("#tune-listing_max_tokens", Input), "1500")
        await _type(pilot, pane.query_one("#tune-threshold_pct", Input), "2")
        await pilot.press("escape", "ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmSaveScreen)
        diff = str(app.screen.query_one("#confirm-diff", Static).content)
        assert "-     threshold_pct: 5\n+     threshold_pct: 2" in diff
        assert "-     listing_max_tokens: (not set" in diff
        assert "+     listing_max_tokens: 1500" in diff
        assert "search_default_limit" not in diff and "enabled" not in diff
        assert config.read_text() == HERMES_CONFIG, "nothing written before the answer"
        await pilot.press("y")
        await settle(pilot)
        assert app.last_save.changed
        assert app.last_save.backup == tmp_path / "config.yaml.bak"
    saved = yaml.safe_load(config.read_text())
    assert saved["model"] == "gpt-4o"
    assert saved["tools"]["tool_search"] == {"enabled": "auto", "threshold_pct": 2,
                                             "listing_max_tokens": 1500}
    assert "# keep me" in config.read_text()
    assert (tmp_path / "config.yaml.bak").read_text() == HERMES_CONFIG


async def test_reset_after_a_save_comes_back_to_the_saved_file(tmp_path, workspace):
    """After a save the file holds the new values: Ctrl+R went back to the values of launch
    (threshold 5 on screen, 17 in the file) and Save then said nothing differed."""
    config = tmp_path / "config.yaml"
    config.write_text(HERMES_CONFIG)
    app = ToolSearchApp([str(config)], workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.query_one(TuningPane)
        await _type(pilot, pane.query_one("#tune-threshold_pct", Input), "17")
        await pilot.press("enter", "ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmSaveScreen)
        await pilot.press("y")
        await settle(pilot)
        assert yaml.safe_load(config.read_text())["tools"]["tool_search"]["threshold_pct"] == 17
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert app.session.config.threshold_pct == 17
        assert pane.query_one("#tune-threshold_pct", Input).value == "17"
        await pilot.press("ctrl+s")  # screen and file agree: nothing to save
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmSaveScreen)
        # another profile keeps the saved value (it is the file's now)
        await pilot.press("6", *["tab"] * 9, "enter", "down", "enter")
        await settle(pilot)
        assert app.session.config.profile.name == "latest"
        assert app.session.config.threshold_pct == 17
        await _type(pilot, pane.query_one("#tune-threshold_pct", Input), "5")
        await pilot.press("enter", "ctrl+s")
        await settle(pilot)
        diff = str(app.screen.query_one("#confirm-diff", Static).content)
        assert "-     threshold_pct: 17\n+     threshold_pct: 5" in diff
        await pilot.press("n")
        await settle(pilot)


async def test_save_cancelled_or_unchanged_writes_nothing(tmp_path, workspace):
    config = tmp_path / "config.yaml"
    config.write_text(HERMES_CONFIG)
    app = ToolSearchApp([str(config)], workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")  # nothing changed by the operator
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmSaveScreen)
        pane = app.query_one(TuningPane)
        await _type(pilot, pane.query_one("#tune-max_search_limit", Input), "30")
        await pilot.press("escape", "ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmSaveScreen)
        await pilot.press("n")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmSaveScreen)
        # the profile switch is not a tools.tool_search key: still only max_search_limit
        await pilot.press("6", *["tab"] * 9, "enter", "down", "enter", "ctrl+s")
        await settle(pilot)
        assert app.session.config.profile.name == "latest"
        diff = str(app.screen.query_one("#confirm-diff", Static).content)
        assert "max_search_limit" in diff and "listing" not in diff
        await pilot.press("escape")
        await settle(pilot)
    assert config.read_text() == HERMES_CONFIG
    assert not (tmp_path / "config.yaml.bak").exists()


async def test_save_without_a_hermes_config_asks_for_a_path(tmp_path, make_app):
    app = make_app()
    target = tmp_path / "new" / "config.yaml"
    target.parent.mkdir()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6", "tab", "enter", "down", "down", "enter")  # enabled: off
        await settle(pilot)
        assert app.session.config.enabled == "off"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, SavePathScreen)
        await pilot.press("ctrl+u", *str(target), "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmSaveScreen)
        await pilot.press("y")
        await settle(pilot)
        assert app.last_save.path == target
        assert app.last_save.backup is None
        assert app.save_target == str(target)
    saved = yaml.safe_load(target.read_text())
    assert saved == {"tools": {"tool_search": {"enabled": "off"}}}


NOT_HERMES = {
    "claude.json": ('{"mcpServers": {"a": {"command": "x"}}}\n', "client config"),
    "cursor.yaml": ("mcpServers:\n  a: {command: x}\n", "client config"),
    "notes.yaml": ("x: 1\n", "not a Hermes config"),
    "catalog.yaml": ("name: c\ntoolsets:\n  - name: t\n    tools:\n      - name: a\n"
                     "        description: d\n", "catalog"),
}


UTF16 = "tools:\n  tool_search: {enabled: auto}\nmcp_servers: {}\n"


@pytest.mark.parametrize("name", [*NOT_HERMES, "folder", "missing/config.yaml", "new.json",
                                  "utf16.yaml"])
async def test_save_path_that_is_no_hermes_config_is_refused_before_asking(
        tmp_path, make_app, name):
    """The path dialog wrote tools.tool_search into any file: a Claude Desktop JSON config
    became YAML flow text (`tools: {...}` in JSON, which no client can read), a client YAML
    or a catalog got a block nothing reads. `tune --save` refuses these; so does the app,
    in its own words (it read like the command line's "--save writes ...", naming a flag the
    app has not got)."""
    target = tmp_path / name
    if name in NOT_HERMES:
        target.write_text(NOT_HERMES[name][0])
    elif name == "folder":
        target.mkdir()
    elif name == "utf16.yaml":
        target.write_bytes(UTF16.encode("utf-16"))
    before = sorted(p.name for p in tmp_path.iterdir())
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6", "tab", "enter", "down", "down", "enter", "ctrl+s")  # enabled off
        await settle(pilot)
        assert isinstance(app.screen, SavePathScreen)
        await pilot.press("ctrl+u", *str(target), "enter")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmSaveScreen), "asked to save into " + name
        # the reason is under the path, the dialog still open to correct it
        assert isinstance(app.screen, SavePathScreen)
        refusal = str(app.screen.query_one("#save-error", Static).content)
        assert str(target.parent if name.startswith("missing") else target) in refusal
        if name in NOT_HERMES:
            assert NOT_HERMES[name][1] in refusal
        assert "--" not in refusal, refusal  # no command-line flag
        if name in (*NOT_HERMES, "folder", "utf16.yaml"):
            assert "the app " in refusal, refusal
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    if name in NOT_HERMES:
        assert target.read_text() == NOT_HERMES[name][0]


async def test_save_into_an_empty_file_writes_the_block(tmp_path, make_app):
    target = tmp_path / "config.yaml"
    target.write_text("# to fill in\n")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6", "tab", "enter", "down", "down", "enter", "ctrl+s")
        await settle(pilot)
        await pilot.press("ctrl+u", *str(target), "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmSaveScreen)
        await pilot.press("y")
        await settle(pilot)
    assert yaml.safe_load(target.read_text()) == {"tools": {"tool_search": {"enabled": "off"}}}


async def test_a_number_field_left_blank_shows_the_value_in_effect_again(make_app):
    """`19`, Ctrl+U, Enter: the listing cap stayed clamped to 200 (the last number typed)
    while the field was blank and its note still read "clamped to 200"; the same with a
    lone `-` and when Tab leaves the field."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.query_one(TuningPane)
        field = pane.query_one("#tune-listing_max_tokens", Input)
        note = pane.query_one("#tune-note-listing_max_tokens", Static)
        await _type(pilot, field, "19")
        assert app.session.config.listing_max_tokens == 200
        await pilot.press("ctrl+u", "enter")
        await settle(pilot)
        assert field.value == "200"
        assert "clamped" not in str(note.content)
        # back into the field just left: Shift+Tab then Tab move on from it
        await pilot.press("shift+tab", "tab", "ctrl+u", "1", "9", "ctrl+u", "-", "tab")
        await settle(pilot)
        assert app.focused is not field
        assert field.value == "200"
        assert "clamped" not in str(note.content)
        context = pane.query_one("#tune-context", Input)
        await pilot.press("escape", "6", *["tab"] * 8, "ctrl+u", "enter")
        await settle(pilot)
        assert context.value == str(app.session.context_length) == "200000"


async def test_a_path_save_refuses_keeps_the_dialog_open_to_correct_it(tmp_path, make_app):
    """Keys only, no Hermes config loaded: a folder typed as the save path closed the dialog
    with an error toast, and the keys typed next (a corrected path) ran as app keys (its `2`
    switched to Tools and its `/` opened the filter)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.save_target
        await pilot.press("6", "tab", "tab", "tab", "ctrl+u", "7", "enter", "ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, SavePathScreen)
        await pilot.press("ctrl+u", *str(tmp_path), "enter")
        await settle(pilot)
        assert isinstance(app.screen, SavePathScreen)
        error = str(app.screen.query_one("#save-error", Static).content)
        assert "not a file" in error
        assert app.screen.query_one("#save-path", Input).value == str(tmp_path)
        await pilot.press(*"/config.yaml", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmSaveScreen)
        await pilot.press("y")
        await settle(pilot)
        assert yaml.safe_load((tmp_path / "config.yaml").read_text()) == \
            {"tools": {"tool_search": {"threshold_pct": 7}}}


async def test_ctrl_s_again_while_its_dialog_is_open_opens_no_second_one(tmp_path, workspace,
                                                                          make_app):
    """Ctrl+S pressed three times fast (or held) stacked three diff dialogs: `n` closed one and two more
    were left, each asking again."""
    config = tmp_path / "config.yaml"
    config.write_text(HERMES_CONFIG)
    app = ToolSearchApp([str(config)], workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6", "tab", "tab", "tab", "ctrl+u", "3", "enter")
        await settle(pilot)
        burst(app, ["ctrl+s", "ctrl+s", "ctrl+s"])  # as a terminal delivers a held key
        await settle(pilot)
        assert sum(isinstance(s, ConfirmSaveScreen) for s in app.screen_stack) == 1
        await pilot.press("n")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmSaveScreen)
        assert config.read_text() == HERMES_CONFIG
    app = make_app()  # no Hermes config: the path dialog
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.save_target
        await pilot.press("6", "tab", "tab", "tab", "ctrl+u", "3", "enter")
        await settle(pilot)
        burst(app, ["ctrl+s", "ctrl+s"])
        await settle(pilot)
        assert sum(isinstance(s, SavePathScreen) for s in app.screen_stack) == 1


async def test_the_confirm_dialog_says_what_the_save_really_does(tmp_path, workspace):
    """It promised a ``.bak`` backup of a file deleted since it was loaded (the save then wrote
    a new file and, rightly, no backup)."""
    config, app = _on_a_hermes_config(tmp_path, workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.save_target == str(config)
        await pilot.press("6", "tab", "tab", "tab", "ctrl+u", "7", "enter", "ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmSaveScreen)
        head = str(app.screen.query_one("#confirm-head", Static).content)
        assert "kept as" in head and ".bak" in head
        await pilot.press("n")
        await settle(pilot)
        config.unlink()  # deleted behind the app's back
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmSaveScreen)
        head = str(app.screen.query_one("#confirm-head", Static).content)
        assert ".bak" not in head and "kept" not in head, head
        assert "creates it" in head and "no old file to back up" in head
        await pilot.press("y")
        await settle(pilot)
        assert app.last_save.backup is None
        assert "no previous file to back up" in app.last_save.message()
    assert yaml.safe_load(config.read_text()) == {"tools": {"tool_search": {"threshold_pct": 7}}}
    assert not (tmp_path / "config.yaml.bak").exists()
