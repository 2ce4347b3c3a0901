"""The activity feed wraps an entry under its own text (hanging indents), never at column 0."""

from __future__ import annotations

import re

from textual.widgets import RichLog
from tui_helpers import play_demo, settle

from tui.widgets.feed import LABEL_WIDTH, WHEN_WIDTH, ActivityFeed

ENTRY_START = re.compile(r"^\d\d:\d\d\.\d ")


async def test_wrapped_lines_hang_under_the_entry_text_at_80x24(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await play_demo(pilot)  # the demo: long search queries and notes
        await settle(pilot)
        lines = [line.text.rstrip() for line in
                 app.query_one(ActivityFeed).query_one(RichLog).lines]
        entries = [line for line in lines if ENTRY_START.match(line)]
        assert len(entries) == len(app.activity) >= 5
        rest = [line for line in lines if line and not ENTRY_START.match(line)]
        assert rest, "nothing wrapped at 80 columns"
        indent = [len(line) - len(line.lstrip(" ")) for line in rest]
        assert min(indent) >= WHEN_WIDTH  # never under the time column, let alone column 0
        note_start = [line for line in rest if line.lstrip().startswith("\u21b3 ")]
        assert all(len(line) - len(line.lstrip()) == WHEN_WIDTH for line in note_start)
        # a wrapped headline continues under the headline, a wrapped note under its text
        assert WHEN_WIDTH + LABEL_WIDTH in indent
        assert WHEN_WIDTH + 2 in indent
        assert set(indent) <= {WHEN_WIDTH, WHEN_WIDTH + 2, WHEN_WIDTH + LABEL_WIDTH}


async def test_no_line_runs_under_the_scrollbar_at_80x24(make_app):
    """RichLog renders at least 78 columns (its min_width): at 80 columns the view beside the
    scrollbar is 77, so the last character of every full line was hidden ("in thi",
    "'tool_search" without its closing quote)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await play_demo(pilot)
        await settle(pilot)
        log = app.query_one(ActivityFeed).query_one(RichLog)
        assert log.show_vertical_scrollbar, "the demo did not overflow the feed"
        width = log.scrollable_content_region.width
        longest = max(len(line.text.rstrip()) for line in log.lines)
        assert longest <= width, f"a line of {longest} columns under a {width}-column view"


async def test_entries_wrap_again_when_the_terminal_is_resized(make_app):
    """A log keeps each entry as drawn: after 120x40 -> 80x24 the demo's entries ran off the
    right edge behind a horizontal scrollbar, and back at 160 columns they stayed wrapped at
    the narrower width."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await play_demo(pilot)
        await settle(pilot)
        log = app.query_one(ActivityFeed).query_one(RichLog)
        for size in ((80, 24), (60, 20), (160, 40)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            width = log.scrollable_content_region.width
            texts = [line.text.rstrip() for line in log.lines]
            longest = max(map(len, texts))
            assert longest <= width, f"{size}: a line of {longest} columns under {width}"
            assert not log.show_horizontal_scrollbar, size
            assert longest > width - 25, f"{size}: lines stop at {longest} of {width} columns"
            entries = [t for t in texts if ENTRY_START.match(t)]
            assert len(entries) == len(app.activity), size  # every entry, once


async def test_entries_take_the_new_theme_colours(make_app):
    """After a theme switch from the palette the entries already shown kept the old theme's
    colours (ops-dark's greys on ops-light's background)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await play_demo(pilot)
        await settle(pilot)
        log = app.query_one(ActivityFeed).query_one(RichLog)

        def colours() -> set[str]:
            return {seg.style.color.triplet.hex for line in log.lines for seg in line
                    if seg.style and seg.style.color and seg.style.color.triplet}

        muted_dark = app.stylesheet.parse_style("$muted").rich_style.color.triplet.hex
        assert muted_dark in colours()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"theme")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press(*"ops-light")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.theme == "ops-light"
        muted_light = app.stylesheet.parse_style("$muted").rich_style.color.triplet.hex
        assert muted_light != muted_dark
        assert muted_light in colours() and muted_dark not in colours()
