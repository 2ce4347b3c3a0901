"""Messages that cross panes or come from workers (STYLE §4): noun + past participle.

A pane's own events live on the pane (``ServersPane.AttachToggled``); requests end in
``Requested``.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message
from textual.widget import Widget

from toolsearch.bridge import ActivityEvent, BridgeReply
from toolsearch.toolsets import Workspace

from .recall_view import RecallStep, RecallView
from .search_view import SearchView
from .view import ExactCounts


@dataclass
class PaneMessage(Message):
    """Base of a pane's own events: ``control`` is the pane, so ``@on(Msg, "#id")`` works."""

    pane: Widget

    @property
    def control(self) -> Widget:
        return self.pane


@dataclass
class WorkspaceLoaded(Message):
    """A loader worker finished: the merged workspace of every SOURCE."""

    workspace: Workspace


@dataclass
class WorkspaceFailed(Message):
    """A loader worker failed: one line saying why."""

    error: str


@dataclass
class ExactCountsReady(Message):
    """Exact (cl100k_base) token counts for the session with ``counts.session_key``."""

    counts: ExactCounts

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ExactCountsReady)


@dataclass
class SearchCompleted(Message):
    """A search worker finished (seed, and latest when comparing)."""

    result: SearchView

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SearchCompleted)


@dataclass
class RecallProgressed(Message):
    """A recall or reach worker moved on to its next profile."""

    step: RecallStep

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RecallProgressed)


@dataclass
class RecallCompleted(Message):
    """A recall or reach worker finished: reports per profile, or one line of error."""

    view: RecallView


@dataclass
class ActivityLogged(Message):
    """One bridge call resolved to its underlying tool, with the reply the model got."""

    event: ActivityEvent
    reply: BridgeReply | None = None
    note: str = ""
    earlier: bool = False
    """A call made before the app opened (a followed gateway's history): no time of the app's."""


@dataclass
class SaveRequested(Message):
    """Save the tuning into a Hermes config (``path`` None: the loaded config, or ask)."""

    path: str | None = None

