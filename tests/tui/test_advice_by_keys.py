"""What would change it, read as an operator reads it: by keys from launch, at 120x40 and 80x24
(a third keyboard pass over the least-used parts of issue #8)."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.widgets import Static
from tui_helpers import FakeClock, loaded, settle, wait_until

from tui.app import ToolSearchApp

SIZES = [(120, 40), (80, 24)]


def _detail(app) -> str:
    return str(app.query_one("#server-detail", Static).content)


def _gauges(app) -> str:
    return str(app.query_one("#gauge-text", Static).content)


@pytest.mark.parametrize("size", SIZES)
async def test_a_budget_above_the_context_says_the_context_stops_it(make_app, size):
    """6, Tab to the context length, 200, Enter, 1, Down to firecrawl: its full lines need
    274 tokens, more than the whole 200-token context. The detail said "above the 60,000
    listing_max_tokens allows", a cap 274 is far below."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("6", *["tab"] * 8, "ctrl+u", *"200", "enter")
        await settle(pilot)
        assert app.session.context_length == 200
        await pilot.press("1", "down")
        await wait_until(pilot, lambda: "Full lines" in _detail(app), "the advice")
        text = " ".join(_detail(app).split())
        assert "above the whole context of 200 tokens" in text
        assert "60,000" not in text


async def test_no_context_length_reads_as_a_fixed_leg_in_the_gauges_and_advice(make_app):
    """6, Tab to the context presets, Enter, End (none), Enter: the budget line read
    "threshold_pct 5% of context no context (fixed 10,000)" and "threshold_pct binds",
    though threshold_pct plays no part without a context length."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6", *["tab"] * 3, "ctrl+u", *"90", "enter")  # 90% of 200,000
        await pilot.press("tab", "ctrl+u", *"20000", "enter")  # the cap: 20,000
        await pilot.press(*["tab"] * 3, "enter")  # Tab moves on from the field left
        await settle(pilot)
        await pilot.press("end", "enter")
        await settle(pilot)
        assert not app.session.context_length
        text = " ".join(_gauges(app).split())
        assert "no context length: fixed = 10,000" in text
        assert "of context no context" not in text
        assert "the fixed 10,000 binds" in text and "threshold_pct binds" not in text


async def test_no_context_length_at_80_columns(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("6", *["tab"] * 7, "enter")
        await settle(pilot)
        await pilot.press("end", "enter")
        await settle(pilot)
        assert not app.session.context_length
        text = " ".join(_gauges(app).split())
        assert "no context: fixed = 10,000" in text and "no ctx" not in text


@pytest.mark.parametrize("typed", ["post_twet", "scarpe"])
async def test_a_misspelt_bare_name_in_the_filter_gets_a_did_you_mean(make_app, typed):
    """2, /, a tool's name as the operator knows it, misspelt: "No tool matches the filter."
    and nothing more, the mcp__server__ prefix kept every name under the threshold."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2", "slash", *typed, "enter")
        await settle(pilot)
        text = " ".join(str(app.query_one("#tool-explain").content).split())
        want = {"post_twet": "mcp__xactions__post_tweet", "scarpe": "mcp__firecrawl__scrape"}
        assert f"Did you mean: {want[typed]}" in text


@pytest.mark.parametrize("size", SIZES)
async def test_a_sorted_narrow_column_keeps_its_glyph(make_app, size):
    """1, S four times sorts Servers by Tools: the header read "Tool…" (the ▲ cropped with
    an ellipsis), so neither the sorted column nor its direction showed."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("1", "S", "S", "S", "S")
        await settle(pilot)
        table = app.query_one("#servers-table")
        header = table.render_line(0).text
        assert "Tool\u25b2" in header and "Tool\u2026" not in header
        await pilot.press("S")  # Tokens, 7 wide: "Tokens ▲" is 8
        await settle(pilot)
        header = table.render_line(0).text
        assert "Tokens\u25b2" in header and "\u2026" not in header


async def test_the_activity_head_keeps_its_keys_at_80_columns(make_app):
    """5 at 80x24: the head stopped at "(Space pause, n" and never showed Enter or c."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        head = app.query_one("#feed-head", Static)
        text = str(head.content)
        assert len(text) <= head.content_region.width
        for words in ("Enter details", "c copy", "Space pause", "n step"):
            assert words in text


async def test_an_activity_detail_says_its_outcome_in_words_and_its_time(make_app):
    """Ctrl+G, Enter, Left twice to the blind call: the detail read "outcome: missing_args"
    (the feed says "missing args") and gave no time, though the feed shows one."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: not app.demo_running, "the demo's end")
        await settle(pilot)
        blind = next(e for e in app.activity if e.event.outcome == "missing_args")
        await pilot.press("enter", *["left"] * (len(app.activity) - blind.seq))
        await settle(pilot)
        text = app.screen.query_one("#detail-text").text
        assert "outcome: \u21ba missing args" in text and "missing_args" not in \
            text.split("request:")[0]
        minutes, seconds = divmod(blind.at, 60)
        assert f"at {int(minutes):02d}:{seconds:04.1f} since start" in text


async def test_the_call_dialog_says_its_outcome_in_words(make_app):
    """Ctrl+T, Ctrl+J on the default (a core tool): the status began "not_deferrable"."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t", "ctrl+u", *"terminal", "ctrl+j")
        await settle(pilot)
        status = str(app.screen.query_one("#call-status", Static).content)
        assert status.startswith("\u2298 not deferrable \u00b7 tool_describe"), status


async def test_export_into_a_folder_that_is_gone_says_why_in_words(make_app, tmp_path,
                                                                  monkeypatch):
    """3, ], ], ], e after the folder the app started in was removed: the notice was
    Python's "[Errno 2] No such file or directory", with no way out."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3", *["right_square_bracket"] * 3, "e")
        await settle(pilot)
        errors = [n.message for n in app._notifications if n.severity == "error"]
        assert errors, "no notice"
        assert "Errno" not in errors[-1]
        assert errors[-1].startswith("Could not write") and "press c to copy" in errors[-1]
    assert not tmp_path.joinpath("gone").exists()


@pytest.mark.parametrize("key", ["f5", "f6"])
async def test_recall_misses_have_rows_on_screen_at_80x24(key):
    """7, F5 (or F6) on seed-demo at 80x24: the figures took every row, the misses table got
    the footer's line, and the cursor sat in a table the operator could not see (Down, Enter
    tried a miss in Search unseen)."""
    app = ToolSearchApp(["seed-demo"], clock=FakeClock(), wall_clock=FakeClock(step=1.0),
                        exact=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("7", key)
        await wait_until(pilot, lambda: app.recall is not None, "the run")
        await settle(pilot)
        misses = app.query_one("#recall-misses")
        assert app.focused is misses
        footer_top = app.screen.query_one("KeyFooter").region.y
        visible = min(misses.region.bottom, footer_top) - misses.region.y
        assert visible >= 4, misses.region  # the header line and at least three misses
        assert app.query_one("#recall-figures").region.height >= 5  # recall@1, @5, MRR…


async def test_compare_at_80x24_shows_the_whole_zero_hit_reason():
    """4, /, a query latest refuses, Enter, c at 80x24 on seed-demo: latest's reason was cut
    after three lines ("…with enough of the"), in the engine's words ("rarest-token gate")."""
    app = ToolSearchApp(["seed-demo"], clock=FakeClock(), wall_clock=FakeClock(step=1.0),
                        exact=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("4", "slash", *"who mentioned me on X today", "enter", "c")
        await settle(pilot)
        head = app.query_one("#hits-head-latest", Static)
        shown = " ".join("".join(s.text for s in strip).strip() for strip in head.render_lines(
            Region(0, 0, head.size.width, head.size.height)))
        assert "zero hits" in shown and shown.endswith("named exactly like the query.")
        assert "gate" not in shown


async def test_under_latest_a_core_tool_is_not_said_to_be_beyond_any_config(make_app):
    """--profile latest, 2, /terminal, Enter: "Why: … core never defers, and no config can
    change that", though latest's defer list is checked first and would defer it."""
    app = make_app(profile="latest")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2", "slash", *"terminal", "enter")
        await settle(pilot)
        text = " ".join(str(app.query_one("#tool-explain").content).split())
        assert "unless named in tools.tool_search.defer" in text
        assert "no config can change that" not in text


async def test_the_key_map_lists_the_dialogs_keys_in_words(make_app):
    """?: the Activity detail's walk and copy, the Call dialog's send and the save dialog's
    y / n were in no section (only on each dialog once open)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        text = str(app.screen.query_one("#help-text").render())
        for words in ("Activity detail", "\u2190 / p", "Copy JSON", "Call dialog",
                      "Ctrl+Enter / Ctrl+J", "Save dialog", "y / Enter",
                      "on a miss: try its query in Search"):
            assert words in text, words
        assert "ENTER" not in text and "\n   1  " not in text


async def test_the_listing_footer_at_80_columns_shows_copy_and_export(make_app):
    """3 at 80x24: the footer showed "home Top  end Bottom" and dropped Copy and Export Sent,
    the Listing's own keys."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        footer = app.query_one("KeyFooter")
        line = "".join(s.text for s in footer.render_line(0)._segments)
        assert " c Copy " in line and " e Export Sent " in line, line
        assert "Quit" in line and "Keys" in line


async def test_the_search_hits_show_the_sort_on_their_narrow_columns(make_app):
    """4, /scrape web, Enter, S: sorted by # (then Score) the header showed no ▲ at all:
    "# ▲" and "Score ▲" were cropped to their columns' two and six cells."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("4", "slash", *"scrape web", "enter", "S")
        await settle(pilot)
        table = app.focused
        assert table.id == "hits-table-seed"
        assert table.render_line(0).text.lstrip().startswith("#\u25b2")
        await pilot.press("S")
        await settle(pilot)
        assert "Score\u25b2" in table.render_line(0).text


async def test_the_palette_names_every_compared_profile_and_turns_compare_off(make_app):
    """Ctrl+P "compare": the command read "compare seed and latest" though bm25f is compared
    too, and the same command turns compare off again."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for on in (True, False):
            await pilot.press("ctrl+p", *"compare every profile")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert app.query_one("#search-compare").value is on
        from tui.commands import palette_entries
        title, _, help_text = next(e for e in palette_entries(app)
                                   if e[1] == "compare_profiles")
        assert "seed and latest" not in title and "seed, latest and bm25f" in help_text
