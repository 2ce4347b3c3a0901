"""Tab panes that mount after the first frame (STYLE §8: wrap heavy TabPane contents)."""

from __future__ import annotations

from textual.lazy import Lazy
from textual.widget import Widget


class LazyPane(Lazy):
    """``textual.lazy.Lazy`` that waits for its tab pane to be mounted, and gives up quietly
    when the app is quitting: a slow or failed load could otherwise run the deferred mount
    before the pane was mounted (a ``MountError`` on quit)."""

    async def mount_composed_widgets(self, widgets: list[Widget]) -> None:
        parent = self.parent
        if not isinstance(parent, Widget):
            return

        async def mount() -> None:
            if not (self.is_attached and parent.is_attached) or self.app._exit:
                return  # removed meanwhile: the app is closing
            if not parent.is_mounted:
                self.call_after_refresh(mount)
                return
            await parent.mount(self._replace_widget, after=self)
            await self.remove()

        self.call_after_refresh(mount)
