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
