"""Tab panes that mount after the first frame (STYLE §8: wrap heavy TabPane contents)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App
from textual.lazy import Lazy
from textual.widget import Widget

if TYPE_CHECKING:
    from rich.console import RenderableType

    _Base = App[None]
else:
    _Base = object


HOLD_MAX_S = 2.0
"""The longest a quit waits for a tab pane's mount (one takes tens of milliseconds)."""


class QuitAfterMounts(_Base):
    """Mixin for the app (before ``App`` in the bases): a quit waits while a tab pane is half
    mounted. A quit in the first half second can land during a :class:`LazyPane`'s mount;
    Textual then prunes the pane before it composes, and the pane's start-up work (and a
    ``Select``'s inside it) found no children: a NoMatches traceback and exit code 1."""

    panes_mounting: int = 0
    exit_held: tuple[None, int, RenderableType | None] | None = None

    def exit(self, result: None = None, return_code: int = 0,
             message: RenderableType | None = None) -> None:
        if self.panes_mounting:
            if self.exit_held is None:  # a mount that never ends must not keep the app open
                self.set_timer(HOLD_MAX_S, self._exit_held)
            self.exit_held = (result, return_code, message)  # carried out by pane_mounted
            return
        super().exit(result, return_code, message)

    def pane_mounted(self) -> None:
        """A tab pane finished mounting: carry out a quit held meanwhile."""
        self.panes_mounting -= 1
        if not self.panes_mounting:
            self._exit_held()

    def _exit_held(self) -> None:
        if self.exit_held is not None:
            held, self.exit_held = self.exit_held, None
            super().exit(*held)


class LazyPane(Lazy):
    """``textual.lazy.Lazy`` that waits for its tab pane to be mounted, and gives up quietly
    when the app is quitting: a slow or failed load could otherwise run the deferred mount
    before the pane was mounted (a ``MountError`` on quit). A quit during the mount waits
    for its end (:class:`QuitAfterMounts`)."""

    async def mount_composed_widgets(self, widgets: list[Widget]) -> None:
        parent = self.parent
        if not isinstance(parent, Widget):
            return

        async def mount() -> None:
            app = self.app
            holds = app if isinstance(app, QuitAfterMounts) else None
            if (not (self.is_attached and parent.is_attached) or app._exit
                    or (holds is not None and holds.exit_held is not None)):
                return  # removed meanwhile: the app is closing
            if not parent.is_mounted:
                self.call_after_refresh(mount)
                return
            if holds is not None:
                holds.panes_mounting += 1
            try:
                await parent.mount(self._replace_widget, after=self)
                await self.remove()
            finally:
                if holds is not None:
                    holds.pane_mounted()

        self.call_after_refresh(mount)
