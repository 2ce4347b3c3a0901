"""What the screen shows after a key equals the screen drawn again from scratch.

The app repaints as little as it can after a change: a table repaints only the lines whose
row changed, panes do not repaint themselves (their parts do), a new header title is not laid
out again, and a deferred tool's advice comes a moment after its explanation. Each test here
drives the app by keys only and compares the lines the screen holds (every widget's last drawn
lines) with the same screen drawn again with every cache dropped: a line left stale by a
skipped repaint makes them differ.
"""

from __future__ import annotations

from typing import Any

from textual._compositor import ChopsUpdate, Compositor
from textual.widgets import Static
from tui_helpers import settle

from tui.banding import BandedCompositor, bands
from tui.widgets.bigtable import BigTable
from tui.widgets.tools import PENDING, ToolsPane

Line = tuple[tuple[str, Any], ...]


def _lines(app: Any) -> list[Line]:
    """The screen's lines as drawn: text and style of each run of characters."""
    return [tuple((seg.text, seg.style) for seg in strip.simplify())
            for strip in app.screen._compositor.render_strips()]


def _redrawn(app: Any) -> list[Line]:
    """The same screen with every widget drawn again from scratch (no cached line)."""
    for widget in app.screen.walk_children(with_self=True):
        if isinstance(widget, BigTable):
            widget._lines.clear()
        widget.refresh()
    return _lines(app)


def _text(lines: list[Line]) -> list[str]:
    return ["".join(text for text, _ in line) for line in lines]


async def _check(pilot: Any) -> list[str]:
    """Settle; the screen as drawn must equal the screen drawn again (its text returned)."""
    await settle(pilot)
    drawn = _lines(pilot.app)
    again = _redrawn(pilot.app)
    assert _text(drawn) == _text(again)
    assert drawn == again  # styles too: the cursor's line, a detached row's muted colour
    await settle(pilot)
    return _text(drawn)


def _line_of(lines: list[str], *words: str) -> str:
    return next(line for line in lines if all(w in line for w in words))


def _row(lines: list[str], name: str) -> str:
    """The table line of *name* (its cell stands between runs of spaces)."""
    return next(line for line in lines if f"  {name}  " in line)


async def test_attach_and_scope_keys_repaint_what_changed(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await _check(pilot)
        await pilot.press("down", "a")  # firecrawl detached
        screen = await _check(pilot)
        assert "firecrawl" in app.session.detached
        assert "\u2013 detached" in _row(screen, "firecrawl")
        assert "(8 tools)" in _line_of(screen, "Schemas", "deferred")
        await pilot.press("down", "s")  # xactions out of scope
        screen = await _check(pilot)
        assert "\u2298 out" in _row(screen, "xactions")
        await pilot.press("up", "a", "down", "s")  # both back
        screen = await _check(pilot)
        assert "\u2714 attached" in _row(screen, "firecrawl")
        assert "(14 tools)" in _line_of(screen, "Schemas", "deferred")
        await pilot.press("S", "S")  # sorted by status: the header's glyph moves
        screen = await _check(pilot)
        assert "Server \u25b2" in "".join(screen)
        await pilot.press("2")  # the Tools pane caught up while hidden
        screen = await _check(pilot)
        assert "\u25c7 deferred" in _row(screen, "mcp__firecrawl__scrape")


async def test_a_change_that_moves_the_tier_retitles_the_header(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _check(pilot)
        assert "tier 1" in screen[0]
        # the threshold_pct field: Tab from the pane's first control (enabled, listing, it)
        await pilot.press("6", "tab", "tab", "tab", "ctrl+u", *"0.01")
        screen = await _check(pilot)
        assert app.session.assembly.tier == 2
        assert "tier 2" in screen[0] and "Tier 2" in "".join(screen)
        await pilot.press("escape", "1")
        screen = await _check(pilot)
        assert "tier 2" in screen[0]


def _advice(text: str) -> str:
    return text.partition("What would change it: ")[2]


async def test_a_deferred_tools_advice_follows_each_change(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2", "slash", *"firecrawl scrape", "enter")
        await _check(pilot)
        tools = app.query_one(ToolsPane)
        box = tools.query_one("#tool-explain", Static)
        name = tools.highlighted_name()
        assert name == "mcp__firecrawl__scrape"

        def wanted() -> str:
            found = app.session.explain(name).advice
            return " \u00b7 ".join(found.sentences()) if found else ""

        before = _advice(str(box.content))
        assert before and before == wanted()  # worked out once the change rested
        await pilot.press("1", "down", "down", "a")  # xactions detached: fewer deferred tokens
        await settle(pilot)
        await pilot.press("2")
        shown = _advice(str(box.content))
        assert shown in (PENDING, wanted())  # never the advice of the state before
        await _check(pilot)
        after = _advice(str(box.content))
        assert after == wanted() and after != before
        await pilot.press("escape", "down")  # the next tool of that server: advice at once
        assert tools.highlighted_name() == "mcp__firecrawl__crawl"
        assert _advice(str(box.content)) == wanted()


async def test_a_banded_frame_sends_what_a_whole_box_frame_sends(make_app, monkeypatch):
    """Every partial frame drawn band by band (tui/banding.py) sends the terminal the same
    segments as Textual's own frame over the box around every change."""
    sent: list[tuple[int, bool]] = []
    banded = BandedCompositor.render_partial_update

    def both(self: BandedCompositor) -> ChopsUpdate | None:
        dirty = set(self._dirty_regions)
        ours = banded(self)
        self._dirty_regions.update(dirty)
        textual_own = Compositor.render_partial_update(self)
        console = app.console
        assert (ours is None) == (textual_own is None)
        if ours is not None and textual_own is not None:
            mine = list(ours.__rich_console__(console, console.options))
            theirs = list(textual_own.__rich_console__(console, console.options))
            assert mine == theirs
            sent.append((len(bands(dirty)), bool(mine)))
        return ours

    monkeypatch.setattr(BandedCompositor, "render_partial_update", both)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("down", "a", "down", "s", "S")
        await settle(pilot)
        await pilot.press("6", "tab", "tab", "tab", "tab", "end", "0", "backspace", "escape")
        await settle(pilot)
        await pilot.press("2", "down", "down", "1", "up", "a")
        await settle(pilot)
    assert any(count >= 2 for count, _ in sent)  # frames of several bands were compared
