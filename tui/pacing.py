"""When a screen draws its next frame (measured with ``toolsearch bench tui``).

Textual draws a screen's frames from one timer per screen, on a fixed grid of 1/60 s, and a
frame that ran past its slot makes that timer skip to the slot *after* the next one: when a
frame took 20-30 ms (a tab switch at 4,900 tools), the follow-up frame (the tab underline
moved after the refresh, scrollbars sized by the layout, the shown table's focus style) waited
another 33-50 ms although nothing else was running. A key's answer was only complete after it.

:class:`FramePacer` keeps Textual's rule, at most one frame per interval, but counts the
interval from the start of the previous frame: the next frame is drawn as soon as the screen
asks for one and an interval has passed. Screens get it from :class:`PacedFrames` (the
app's default screen is a :class:`PacedScreen`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual import events
from textual._time import get_time, sleep
from textual.constants import MAX_FPS
from textual.reactive import Reactive
from textual.screen import Screen
from textual.timer import EventTargetGone, Timer
from textual.widget import Widget
from textual.widgets import TabbedContent
from textual.widgets._tabbed_content import ContentTabs
from textual.widgets._tabs import Underline

from .banding import BandedCompositor

FRAME_S = 1 / MAX_FPS
"""The shortest time between the starts of two frames (Textual's own: ``TEXTUAL_FPS``)."""

SETTLE_TURNS = 8
"""At most this many turns of the event loop are left to the messages in flight before a
frame is drawn."""

if TYPE_CHECKING:
    _Base = Screen[object]
else:
    _Base = object


async def settle() -> None:
    """Let the messages already in flight be handled (a key's Highlighted reaching the pane
    that shows the row's detail, the shown table's Focus…) so their refreshes land in the
    coming frame, not in a second one: yield until nothing else is ready to run, at most
    :data:`SETTLE_TURNS` times."""
    ready = getattr(asyncio.get_running_loop(), "_ready", None)  # CPython's ready callbacks
    for _ in range(SETTLE_TURNS):
        if ready is not None and not ready:
            return
        await asyncio.sleep(0)


class FramePacer(Timer):
    """A screen's frame timer: a tick once the timer is resumed (the screen has something to
    draw) and at least one interval after the previous tick began."""

    async def _run(self) -> None:
        last = float("-inf")
        count = 0
        while True:
            await self._active.wait()
            await settle()
            wait = last + self._interval - get_time()
            if wait > 0:
                await sleep(wait)
                await self._active.wait()
            last = get_time()
            count += 1
            try:
                await self._tick(next_timer=last, count=count)
            except EventTargetGone:
                break


class PacedFrames(_Base):
    """Mixin for a screen (before ``Screen`` in the bases): frames paced by a
    :class:`FramePacer` instead of Textual's skipping grid, and moving the cursor does not
    repaint the whole screen: Textual's ``Screen.focused`` repaints it on every change (5-8 ms
    at 120x40, as a frame of its own after a tab switch's layout), though what shows focus
    belongs to the widgets that gain or lose it, and they repaint themselves (their styles
    change)."""

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    _pacer: FramePacer | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._compositor = BandedCompositor()  # frames draw the changed bands (tui/banding.py)

    def _refresh_layout(self, size: Any = None, scroll: bool = False) -> None:
        """Lay out a frame, after the restyles that waited while their widgets were hidden
        (tui/restyle.py): a widget shown since then is laid out and drawn with its present
        look."""
        restyle = getattr(self.app, "restyle_shown", None)
        if restyle is not None:
            restyle()
        super()._refresh_layout(size, scroll)

    def _compositor_refresh(self) -> None:
        """Draw a frame, with the widgets that asked for a repaint since the frame's changes
        were collected: a layout gives the shown widgets their sizes, and a scrollable
        widget whose size changed repaints its scrollbars then. Textual would draw those
        in a frame of its own, an interval later (3-5 ms after a tab switch's first frame,
        which already showed them as they are); here they join this frame, and a change
        made after it asks for a repaint again."""
        app = self.app
        if self is app.screen and not app.is_inline:
            late = {widget for widget in self._compositor.visible_widgets
                    if widget._repaint_required}
            if late:
                for widget in late:
                    widget._repaint_required = False
                self._compositor.update_widgets(late)
        super()._compositor_refresh()

    @property
    def _update_timer(self) -> Timer:
        pacer = self._pacer
        if pacer is None:
            pacer = FramePacer(self, FRAME_S, name="screen_update",
                               callback=self._on_timer_update, pause=True)
            pacer._start()
            self._timers.add(pacer)
            self._pacer = pacer
        return pacer


class PacedScreen(PacedFrames, Screen[object]):
    """The app's default screen."""

    # a widget maximized from the palette keeps the footer: the keys, and how to quit
    ALLOW_IN_MAXIMIZED_VIEW = "Footer,KeyFooter"

    def on_resize(self, event: events.Resize) -> None:
        """The screen is sent the terminal's size at launch and after every resize (the
        app's own resize handler ran at launch only): the app's width-dependent layout
        (``fit_width``) follows it."""
        fit = getattr(self.app, "fit_width", None)
        if fit is not None:
            fit(event.size.width, self, event.size.height)


def underline_now(tabs: TabbedContent) -> None:
    """Put the tab bar's underline under the active tab at once, when it does not slide
    (``TEXTUAL_ANIMATIONS=none``): Textual moves it after the next refresh, which takes a
    frame of its own after the one that shows the new pane. The tabs' labels never change, so
    the active tab's place is already known; Textual's own move then finds it done."""
    if tabs.app.animation_level != "none":
        return
    bar = tabs.get_child_by_type(ContentTabs)
    active = bar.query("#tabs-list > Tab.-active")
    if not active:
        return
    start, end = active.first().virtual_region.shrink(active.first().styles.gutter).column_span
    underline = bar.query_one(Underline)
    underline.highlight_start = start
    underline.highlight_end = end
