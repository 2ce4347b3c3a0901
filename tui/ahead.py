"""The session states one key away, worked out while the operator is idle.

With the cursor resting on a server, the next key is often ``a`` (attach/detach) or ``s``
(scope in/out). The engine's work for such a state is what a key waits for: about 20 ms at
4,900 tools the first time a state is seen (classification, budget, listing), 3-5 ms once its
content-keyed caches know it. :class:`StatesAhead` works out both states of the highlighted
server once nothing has happened for :data:`IDLE_S`, one state per step, and hands the very
state object to the key, its assembly done. A key that comes during a step waits for that one
step at most; the states of the session before a change are dropped with it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from toolsearch.session import SessionState

from .view import gauge_figures

IDLE_S = 0.15
"""Seconds without a key, mouse event or new session before a state is worked out."""
STEP_S = 0.05
"""Seconds between steps (each works out one state)."""
KINDS = ("attach", "scope")
HELD = 8
"""At most this many states are held (the cursor visits rows: only the recent ones)."""


def next_state(session: SessionState, kind: str, name: str) -> SessionState:
    return session.toggled(name) if kind == "attach" else session.scope_toggled(name)


class StatesAhead:
    """The attach and scope states of the highlighted server, worked out ahead."""

    def __init__(self, app: Any, last_input: Callable[[], float]) -> None:
        self.app = app
        self.last_input = last_input
        self.wanted: str | None = None
        self._for: SessionState | None = None
        self._held: dict[tuple[str, str], SessionState] = {}
        self._timer: Any = None
        self.worked_out = 0  # states worked out ahead (for tests and benchmarks)

    def state(self, session: SessionState, kind: str, name: str) -> SessionState:
        """The state *kind* (``attach`` or ``scope``) of *name* makes from *session*: the one
        worked out ahead when there is one."""
        held = self._held.get((kind, name)) if self._for is session else None
        return held if held is not None else next_state(session, kind, name)

    def want(self, name: str | None) -> None:
        """The cursor is on server *name*: work out its states once the operator is idle."""
        self.wanted = name
        if name is not None and self._timer is None:
            self._timer = self.app.set_timer(STEP_S, self._step)

    def _step(self) -> None:
        self._timer = None
        app, name, session = self.app, self.wanted, self.app.session
        if name is None or session is None or app._exit or not app.screen_stack:
            return
        if self._for is not session:
            self._for, self._held = session, {}
        todo = [kind for kind in KINDS if (kind, name) not in self._held]
        if not todo:
            return
        if time.monotonic() - self.last_input() < IDLE_S:
            self._timer = app.set_timer(STEP_S, self._step)  # busy: later
            return
        state = next_state(session, todo[0], name)
        gauge_figures(state)  # the engine's work for that key (its assembly), and the sums
        # of its defs the gauges show (remembered by tuple: the key's state is this object)
        if len(self._held) >= HELD:
            self._held.clear()
        self._held[(todo[0], name)] = state
        self.worked_out += 1
        if len(todo) > 1:
            self._timer = app.set_timer(STEP_S, self._step)
