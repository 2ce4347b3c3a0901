"""Activity feed: every bridge call as the underlying tool, with outcome and duration.

Entries arrive through the app's ``activity`` reactive; new ones are buffered and written in
one batch shortly after (STYLE §8: never one write per message). Durations come from the
bridge's clock, which the app takes as a parameter so tests and snapshots are stable.
"""

from __future__ import annotations

from rich.style import Style as RichStyle
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import RichLog, Static

from toolsearch.textsafe import shown

from ..activity import ActivityEntry, outcome_label, since_start
from .render_style import StyleOncePerRender
from .scrollbars import SteadyScrollbars

MAX_LINES = 2000
WHEN_WIDTH = 21
"""``MM:SS.s`` and the duration: the columns before an entry's outcome."""
LABEL_WIDTH = 18
FLUSH_DELAY = 0.1
UNSIZED = 10_000
"""The width entries are written at before the log has one (never wrapped)."""
REDRAW_DELAY = 0.15
"""Seconds after the last resize (or theme change) before the entries are drawn again."""
HEAD = ("Calls, as the tool they reach \u00b7 Ctrl+T call \u00b7 Ctrl+G demo "
        "(Space pause, n step) \u00b7 Enter details \u00b7 c copy")
HEAD_NARROW = "Enter details \u00b7 c copy \u00b7 Ctrl+T call \u00b7 Ctrl+G demo: Space pause, n step"
"""The head where the full one does not fit (at 80 columns it stopped at "(Space pause, n",
and the keys for a detail and a copy never showed)."""


class FeedLog(StyleOncePerRender, SteadyScrollbars, RichLog):
    """The feed's log: a ``RichLog`` whose style is worked out once per render."""


class ActivityFeed(Vertical):
    DEFAULT_CSS = """
    ActivityFeed { height: 1fr; }
    ActivityFeed #feed-head { height: 1; padding: 0 1; }
    ActivityFeed RichLog { height: 1fr; }
    """

    BINDINGS = [
        Binding("enter", "app.activity_detail", "Details", id="feed.details"),
        Binding("space", "app.demo_pause", "Pause/resume demo", id="demo.pause"),
        Binding("n", "app.demo_step", "Step demo", id="demo.step"),
        Binding("c,y", "app.copy_activity", "Copy last", id="feed.copy"),
    ]

    activity: reactive[tuple[ActivityEntry, ...]] = reactive((), init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._last_seq = 0
        self._buffer: list[ActivityEntry] = []
        self._flush_pending = False
        self.lines_written = 0
        self._drawn_for: tuple[int, str] | None = None  # (width, theme) the log was drawn at
        self._redraw_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(HEAD, id="feed-head", markup=False)
        # min_width: RichLog renders at least 78 columns, wider than the view below 81 columns
        yield FeedLog(id="feed-log", max_lines=MAX_LINES, wrap=True, markup=False, min_width=1)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw_later())

    def on_resize(self) -> None:
        head = self.query_one("#feed-head", Static)
        width = self.content_size.width - 2  # the head's padding: 0 1
        text = HEAD if not width or len(HEAD) <= width else HEAD_NARROW
        if str(head.content) != text:
            head.update(text, layout=False)  # one line either way
        self._redraw_later()

    def _drawing_for(self) -> tuple[int, str]:
        return self.query_one(RichLog).scrollable_content_region.width, self.app.theme

    def _redraw_later(self) -> None:
        """Draw the entries again once the size (or theme) settles: a log keeps each entry as
        drawn, so after a resize the entries written wider ran off the right edge (behind a
        horizontal scrollbar) and those written narrower stayed narrow; after a theme change
        they kept the old theme's colours (dark greys on the light theme)."""
        if self._drawn_for is None or not self.is_mounted:
            return  # nothing drawn yet
        if self._redraw_timer is not None:
            self._redraw_timer.stop()
        self._redraw_timer = self.set_timer(REDRAW_DELAY, self._redraw)

    def _redraw(self) -> None:
        self._redraw_timer = None
        drawing_for = self._drawing_for()
        if self._drawn_for is None or drawing_for == self._drawn_for or drawing_for[0] <= 0:
            return
        log = self.query_one(RichLog)
        at_end = log.is_vertical_scroll_end
        top = log.scroll_y
        waiting = {e.seq for e in self._buffer}
        written = [e for e in self.activity if e.seq <= self._last_seq and e.seq not in waiting]
        log.clear()
        self._drawn_for = None
        if written:
            self._write(log, written, drawing_for[0], scroll_end=at_end)
            self._drawn_for = drawing_for
            if not at_end:
                log.scroll_to(y=top, animate=False, immediate=True)

    def watch_activity(self, entries: tuple[ActivityEntry, ...]) -> None:
        if entries and entries[-1].seq < self._last_seq:  # cleared
            self._last_seq = 0
            self._buffer.clear()
            if self.is_mounted:
                self.query_one(RichLog).clear()
                self._drawn_for = None
        fresh = [e for e in entries if e.seq > self._last_seq]
        if not fresh:
            if not entries and self.is_mounted:
                self.query_one(RichLog).clear()
                self._drawn_for = None
                self._last_seq = 0
            return
        self._last_seq = fresh[-1].seq
        self._buffer.extend(fresh)
        if not self._flush_pending:
            self._flush_pending = True
            self.set_timer(FLUSH_DELAY, self.flush)

    def _style(self, variable: str) -> RichStyle:
        try:
            return self.app.stylesheet.parse_style(variable).rich_style
        except Exception:
            return RichStyle()

    def _parts(self, entry: ActivityEntry) -> tuple[Text, Text, Text, Text | None]:
        """(time and duration, outcome, headline, note) of one entry."""
        event = entry.event
        label, style = outcome_label(event.outcome)
        label = shown(label, one_line=True)  # an unknown outcome is a followed file's text
        muted = self._style("$muted")
        when = Text("earlier " if entry.earlier else f"{since_start(entry.at)} ", muted)
        when.append(f"{event.ms:8.1f} ms  ", muted)
        outcome = Text(f"{label:<18}", self._style(style) if style else RichStyle())
        # the tool and arguments come from the caller (a live client's model, a paste):
        # escapes shown, never sent to the terminal
        headline = Text(shown(event.headline(), one_line=True), RichStyle(bold=True))
        note = Text(shown(entry.note, one_line=True), muted) if entry.note else None
        return when, outcome, headline, note

    def render_entry(self, entry: ActivityEntry) -> Text:
        """The entry as one text (what it says; the feed draws it with hanging indents)."""
        when, outcome, headline, note = self._parts(entry)
        line = Text.assemble(when, outcome, headline)
        if note is not None:
            line.append("\n" + " " * WHEN_WIDTH + "\u21b3 ")
            line.append_text(note)
        return line

    def entry_text(self, entry: ActivityEntry, width: int) -> Text:
        """The entry as the feed draws it at *width* columns: a wrapped headline continues
        under the headline's first character, a wrapped note under the note's (hanging
        indents). Wrapped here, line by line: a Rich grid per entry took ~9 ms, 4.9 s to draw
        500 entries again after a resize."""
        when, outcome, headline, note = self._parts(entry)
        console = self.app.console
        lines: list[Text] = []
        for n, part in enumerate(headline.wrap(console, max(width - WHEN_WIDTH - LABEL_WIDTH,
                                                            1))):
            lead = Text.assemble(when, outcome) if n == 0 else \
                Text(" " * (WHEN_WIDTH + LABEL_WIDTH))
            lines.append(lead + part)
        if note is not None:
            for n, part in enumerate(note.wrap(console, max(width - WHEN_WIDTH - 2, 1))):
                lead = " " * WHEN_WIDTH + ("\u21b3 " if n == 0 else "  ")
                lines.append(Text(lead) + part)
        return Text("\n").join(lines)

    def _write(self, log: RichLog, entries: list[ActivityEntry], width: int,
               scroll_end: bool | None = None) -> None:
        """Write *entries* wrapped at *width*; unwrapped while the log has no width yet (its
        tab not shown): they are drawn again at the log's width once it has one."""
        text = Text("\n").join(self.entry_text(e, width if width > 0 else UNSIZED)
                               for e in entries)
        text.no_wrap = True  # wrapped already: the log only splits it into lines
        log.write(text, width=width if width > 0 else None, scroll_end=scroll_end)

    def flush(self) -> None:
        self._flush_pending = False
        if not self._buffer or not self.is_mounted:
            return
        log = self.query_one(RichLog)
        batch, self._buffer = self._buffer, []
        drawing_for = self._drawing_for()
        if self._drawn_for is not None and self._drawn_for != drawing_for:
            self._buffer = batch  # the older entries are drawn again first, then these
            self._redraw()
            batch, self._buffer = self._buffer, []
        self._write(log, batch, drawing_for[0])
        self._drawn_for = drawing_for
        self.lines_written += len(batch)
