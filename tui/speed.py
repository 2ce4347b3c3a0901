"""Textual hot paths made cheaper for this app (each measured with ``toolsearch bench tui``).

* Textual looks the current theme up on every line it draws (``App.ansi_theme`` →
  ``App.current_theme`` → ``App.get_theme``), and each look-up copies the dict of registered
  themes twice: about a tenth of the time a frame takes to draw a freshly shown pane at 4,900
  tools. :class:`ThemeLookup` remembers the answer until the theme or the registered themes
  change.
* CPython's full garbage collections (every ~10th middle-generation one) took 30-120 ms each
  at 4,900 tools and landed inside keys: five in the benchmark's 54-key tour.
  :class:`IdleCollector` runs them while the app is idle instead (no key or mouse event and
  no new session state for :data:`IDLE_S`), and lets CPython run one by itself only after
  ten times its usual interval (memory stays bounded while the operator keeps typing).
  The young collections went the same way: at CPython's threshold (700 new objects) a tab
  switch ran 5-15 of them and usually a middle-generation one too (2-8 ms of the key's CPU).
  While the app runs a young collection comes after :data:`YOUNG` new objects, and each
  one takes the middle generation with it (so no pass ever walks more than about twice
  that: a threshold of 50,000 with CPython's middle one left 200,000 objects to a single
  50 ms pass after a search); the young and middle generations are also collected once a
  key's work is over (:data:`QUIET_S` without input), so a key starts with an empty young
  generation and rarely runs a collection (1-3 ms, between keys).
* The default screen draws a key's follow-up frame as soon as an interval has passed since
  the last one, not two grid slots later (:mod:`tui.pacing`).
"""

from __future__ import annotations

import gc
import time
from typing import TYPE_CHECKING

from textual import events
from textual.app import App
from textual.screen import Screen
from textual.theme import Theme

from .pacing import PacedScreen
from .restyle import HiddenRestyles

IDLE_S = 1.0
"""Seconds without a key or mouse event or a new session state before a due full collection
runs."""
DUE = 10
"""A full collection is due after this many middle-generation ones (CPython's default; one
per 10,000 new objects here, one per 7,000 at CPython's thresholds)."""
FORCED = 10 * DUE
"""CPython itself runs one after this many, busy or not."""
TICK_S = 0.25
YOUNG = 10_000
"""CPython's young-generation threshold while the app runs (its own: 700; a tab switch at
4,900 tools leaves about 9,000 new objects)."""
QUIET_S = 0.1
"""Seconds without a key or mouse event or a new session state before the young and middle
generations are collected."""
YOUNG_DUE = 1_000
"""New objects since the last collection that make a quiet moment's young collection due."""

if TYPE_CHECKING:
    _Base = App[None]
else:
    _Base = object


class ThemeLookup(_Base):
    """Mixin for the app (before ``App`` in the bases): ``current_theme``, remembered."""

    _theme_held: tuple[str, Theme] | None = None

    @property
    def current_theme(self) -> Theme:
        name = self.theme
        held = self._theme_held
        if held is not None and held[0] == name:
            return held[1]
        theme = App.current_theme.fget(self)  # type: ignore[attr-defined]
        self._theme_held = (name, theme)
        return theme

    def register_theme(self, theme: Theme) -> None:
        self._theme_held = None
        super().register_theme(theme)

    def unregister_theme(self, theme_name: str) -> None:
        self._theme_held = None
        super().unregister_theme(theme_name)


class IdleCollector:
    """Full garbage collections while the operator is idle (see the module's docstring)."""

    def __init__(self) -> None:
        self.input_at = time.monotonic()
        self._saved: tuple[int, ...] | None = None
        self.collections = 0

    def start(self, app: App[object]) -> None:
        if self._saved is None:
            self._saved = gc.get_threshold()
            gc.set_threshold(YOUNG, 1, FORCED)  # every collection takes the middle generation
        app.set_interval(TICK_S, self.tick, name="idle collector")

    def active(self) -> None:
        self.input_at = time.monotonic()

    def stop(self) -> None:
        """CPython's own thresholds again (the process outlives the app in tests)."""
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    def tick(self) -> None:
        young, _, middles = gc.get_count()
        idle = time.monotonic() - self.input_at
        if middles >= DUE and idle >= IDLE_S:
            gc.collect()
            self.collections += 1
        elif young >= YOUNG_DUE and idle >= QUIET_S:
            gc.collect(1)


class AppSpeedups(HiddenRestyles, ThemeLookup):
    """Mixin for the app (before ``App`` in the bases): the theme look-up remembered, garbage
    collections moved to idle moments, frames paced without skipping a slot, and restyles of
    hidden widgets left until they are shown (:mod:`tui.restyle`)."""

    _collector: IdleCollector | None = None

    def get_default_screen(self) -> Screen[object]:
        return PacedScreen(id="_default")

    def _on_mount(self, event: events.Mount) -> None:  # Textual also runs the app's on_mount
        self._collector = IdleCollector()
        self._collector.start(self)
        if "session" in self._reactives:  # a change (a key's, or the demo's) is activity too
            self.watch(self, "session", self._collector.active, init=False)

    def _on_unmount(self, event: events.Unmount) -> None:
        if self._collector is not None:
            self._collector.stop()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent) and self._collector is not None:
            self._collector.active()
        await super().on_event(event)
