"""Fixtures for the app tests: fixed data, a fake clock, no cursor blink, no network."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Input, TextArea
from tui_helpers import FakeClock, fixture_workspace

from toolsearch.toolsets import Workspace
from tui.app import ToolSearchApp


@pytest.fixture
def workspace() -> Workspace:
    return fixture_workspace()


@pytest.fixture
def make_app(workspace: Workspace) -> Callable[..., ToolSearchApp]:
    def factory(**kwargs: object) -> ToolSearchApp:
        kwargs.setdefault("workspace", workspace)
        kwargs.setdefault("clock", FakeClock())
        kwargs.setdefault("wall_clock", FakeClock(step=1.0))
        kwargs.setdefault("demo_delay", 0.0)
        kwargs.setdefault("exact", True)
        kwargs.setdefault("exact_delay", 0.0)
        return ToolSearchApp(**kwargs)  # type: ignore[arg-type]

    return factory


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None, raising=False)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None,
                        raising=False)
