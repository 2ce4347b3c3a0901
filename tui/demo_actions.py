"""The app's scripted demo: Ctrl+G plays it, Space pauses it, n plays one call.

A mixin of :class:`tui.app.ToolSearchApp`, beside :mod:`tui.actions`. The demo's calls go
through the bridge with a dry-run executor: nothing is called for real.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from toolsearch.bridge import DryRunExecutor

from .activity import clip
from .demo import demo_note, plan_demo
from .messages import ActivityLogged

if TYPE_CHECKING:
    from .app import ToolSearchApp

    _Base = ToolSearchApp
else:
    _Base = object


class DemoActions(_Base):
    """Demo actions of the app (mixed into ToolSearchApp)."""

    def action_demo(self) -> None:
        if self.demo_running or self.session is None:
            return
        self.demo_running = True
        self.demo_paused, self._demo_credit = False, 0
        self.action_show_tab("activity")
        self.run_worker(self._play_demo, group="demo", exclusive=True, exit_on_error=False,
                        description="scripted demo")

    async def _play_demo(self) -> None:
        session = self.session
        steps = plan_demo(session) if session is not None else ()
        if session is None or not steps:
            self.notify("Nothing is deferred in this session, so there is nothing to demo.",
                        severity="warning")
            self.demo_running = False
            return
        executor = DryRunExecutor()
        try:
            for number, step in enumerate(steps, start=1):
                await self._demo_gate()
                state = session if step.scope is None else session.with_scope(step.scope)
                reply = await self.bridge(state, executor).dispatch(step.bridge, dict(step.args))
                note = f"demo {number}/{len(steps)}: {step.title} \u2014 " \
                       f"{demo_note(session, reply, clip(reply.activity.summary))}"
                self.post_message(ActivityLogged(reply.activity, reply, note))
                await asyncio.sleep(self.demo_delay)
        finally:
            self.demo_running = False
        # said, so that `n` stepping past the last call is not a silent restart from call 1
        self.notify(f"Demo finished: {len(steps)} calls. Ctrl+G plays it again (n: one call at "
                    "a time).", timeout=6)

    demo_paused: bool = False
    _demo_credit: int = 0

    async def _demo_gate(self) -> None:
        """Hold the demo while paused; ``n`` lets exactly one call through."""
        while self.demo_paused and self._demo_credit == 0:
            await asyncio.sleep(0.05)
        if self._demo_credit:
            self._demo_credit -= 1

    def action_demo_pause(self) -> None:
        if not self.demo_running:
            self.notify("No demo is playing (Ctrl+G plays it).", timeout=3)
            return
        self.demo_paused = not self.demo_paused
        self.notify("Demo paused: n plays the next call, Space resumes." if self.demo_paused
                    else "Demo resumed.", timeout=3)

    def action_demo_step(self) -> None:
        if not self.demo_running:
            self.action_demo()
            self.demo_paused, self._demo_credit = True, 1  # started by n: one call at a time
            return
        self.demo_paused = True
        self._demo_credit += 1
