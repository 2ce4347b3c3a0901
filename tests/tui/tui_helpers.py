"""Shared test data and helpers for the app tests (fixed data, a fake clock, settling)."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from textual.worker import WorkerCancelled

from toolsearch.toolsets import Toolset, ToolsetStatus, ToolSpec, Workspace
from tui.widgets.bigtable import BigTable


def _obj(required: list[str], **props: str) -> dict[str, object]:
    return {"type": "object", "properties": {k: {"type": v} for k, v in props.items()},
            "required": required}


def fixture_workspace() -> Workspace:
    """A small, fixed workspace: core tools, two MCP servers and one that failed."""
    core = Toolset("hermes-core", "core", (
        ToolSpec("terminal", "Run a shell command and return its output.",
                 _obj(["command"], command="string")),
        ToolSpec("read_file", "Read a text file from the workspace.",
                 _obj(["path"], path="string")),
        ToolSpec("web_search", "Search the web and return the top results.",
                 _obj(["query"], query="string")),
    ))
    firecrawl = Toolset("firecrawl", "mcp", (
        ToolSpec("scrape", "Scrape one URL and return its content as markdown.",
                 _obj(["url"], url="string", formats="array")),
        ToolSpec("crawl", "Crawl a website starting from a URL, following links.",
                 _obj(["url"], url="string", limit="integer")),
        ToolSpec("map", "Map every URL of a site without fetching the pages.",
                 _obj(["url"], url="string")),
        ToolSpec("search", "Search the web and scrape the result pages.",
                 _obj(["query"], query="string", limit="integer")),
        ToolSpec("extract", "Extract structured data from pages with a prompt.",
                 _obj(["urls", "prompt"], urls="array", prompt="string")),
        ToolSpec("check_crawl_status", "Check the status of a crawl job by its id.",
                 _obj(["id"], id="string")),
    ), status=ToolsetStatus.SNAPSHOT)
    xactions = Toolset("xactions", "mcp", tuple(
        ToolSpec(name, desc, _obj(req, **props)) for name, desc, req, props in (
            ("post_tweet", "Publish a post on X with optional media.", ["text"],
             {"text": "string", "media_ids": "array"}),
            ("delete_tweet", "Delete one of your posts by id.", ["tweet_id"],
             {"tweet_id": "string"}),
            ("like_tweet", "Like a post by id.", ["tweet_id"], {"tweet_id": "string"}),
            ("follow_user", "Follow an account by handle.", ["handle"], {"handle": "string"}),
            ("get_timeline", "Read your home timeline, newest first.", [],
             {"count": "integer"}),
            ("search_tweets", "Search recent posts matching a query.", ["query"],
             {"query": "string", "count": "integer"}),
            ("send_dm", "Send a direct message to an account.", ["handle", "text"],
             {"handle": "string", "text": "string"}),
            ("get_profile", "Read an account's profile and counters.", ["handle"],
             {"handle": "string"}),
        )
    ))
    broken = Toolset("weather", "mcp", (), status=ToolsetStatus.ERROR,
                     error="connection refused: could not start 'weather-mcp' (exit 127)")
    return Workspace(name="fixture", toolsets=(core, firecrawl, xactions, broken),
                     context_length=200_000)


class FakeClock:
    """Each reading advances 12.5 ms, so every bridge call lasts exactly 12.5 ms."""

    def __init__(self, step: float = 0.0125) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


#: A small Hermes config.yaml with a comment and a key outside tool_search (save tests).
HERMES_CONFIG = """\
# my hermes config
model: gpt-4o  # keep me
tools:
  tool_search:
    enabled: auto
    threshold_pct: 5
mcp_servers: {}
"""


async def settle(pilot: object) -> None:
    """Wait for workers (a superseded exclusive worker is fine) and let the UI catch up."""
    app = pilot.app  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    for _ in range(2):
        await pilot.pause(0.05)  # type: ignore[attr-defined]
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
        await pilot.pause(0.15)  # type: ignore[attr-defined]


async def panes_mounted(pilot: Any, seconds: float = 20.0) -> None:
    """Wait until every tab pane has mounted: run_test's teardown, unlike a quit, does not
    wait for a pane mounting (a Select inside it then raised NoMatches on its mount)."""
    from tui.widgets.lazy_pane import LazyPane

    app = pilot.app
    with anyio.fail_after(seconds):
        while app.query(LazyPane) or getattr(app, "panes_mounting", 0):
            await pilot.pause(0.05)
    await pilot.pause()


async def loaded(pilot: object) -> None:
    """Wait until the app's sources have loaded (at most 40 settles)."""
    app = pilot.app  # type: ignore[attr-defined]
    for _ in range(40):
        await settle(pilot)
        if app.session is not None and app.session.workspace.toolsets:
            return
    raise AssertionError("the sources did not load")


async def play_demo(pilot: object, rounds: int = 20) -> None:
    """Ctrl+G, then wait (at most *rounds* settles) until the demo has played to its end."""
    app = pilot.app  # type: ignore[attr-defined]
    await pilot.press("ctrl+g")  # type: ignore[attr-defined]
    for _ in range(rounds):
        await settle(pilot)
        if not app.demo_running:
            break


async def wait_until(pilot: object, condition: Callable[[], object], what: str,
                     seconds: float = 30.0) -> None:
    """Pause until *condition()* holds: work the app does when idle takes a few tenths of a
    second alone, seconds on a loaded machine (a fixed pause once fell short in CI)."""
    for _ in range(int(seconds / 0.1)):
        if condition():
            return
        await pilot.pause(0.1)  # type: ignore[attr-defined]
    raise AssertionError(f"{what}: not within {seconds} s")


def burst(app: object, keys: str | list[str]) -> None:
    """Send *keys* as one read from a terminal delivers them (a fast typist, a paste, or
    `tmux send-keys`): every key event is queued before the first is handled. Pilot's
    ``press`` waits for the app to go idle after each key, which hides races between a key
    and the focus move an earlier key asked for."""
    import unicodedata

    from textual import events
    from textual.app import REPLACED_KEYS
    from textual.keys import _character_to_key, _get_unicode_name_from_key

    driver = app._driver  # type: ignore[attr-defined]
    for key in keys:
        if len(key) == 1 and not key.isalnum():
            key = _character_to_key(key)
        try:
            char: str | None = unicodedata.lookup(
                _get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
        except KeyError:
            char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)  # type: ignore[arg-type]
        driver.send_message(event)


def terminal_read(app: object, data: str) -> None:
    """Hand *data* to the app as one read from the terminal, through Textual's own input
    parser (the one the Linux driver runs), then let its escape delay run out as the driver's
    clock would: Esc and a key in one read become the keys that parser makes of them."""
    import time

    from textual import constants
    from textual._xterm_parser import XTermParser

    parser = XTermParser()
    messages = list(parser.feed(data))
    time.sleep(constants.ESCAPE_DELAY + 0.02)
    messages += list(parser.tick())
    driver = app._driver  # type: ignore[attr-defined]
    for message in messages:
        message.set_sender(app)  # type: ignore[arg-type]
        driver.send_message(message)


def active_tab(app: object) -> str:
    """The main tab showing (``tools``, ``listing``, ...)."""
    from textual.widgets import TabbedContent

    tabs = app.query_one("#main-tabs", TabbedContent)  # type: ignore[attr-defined]
    return str(tabs.active).removeprefix("tab-")


# -- a real gateway's upstreams (tui --follow / --serve tests) ---------------------------

SERVERS = Path(__file__).resolve().parents[1] / "gateway" / "servers"
UPSTREAM = SERVERS / "upstream_server.py"
GATED = """\
import os, runpy, sys, time
gate, target = sys.argv[1], sys.argv[2]
while not os.path.exists(gate):  # no answer to the handshake until the test opens the gate
    time.sleep(0.05)
if target == "fail":
    sys.exit("gated server: refused to start")
sys.argv = [target, *sys.argv[3:]]
runpy.run_path(target, run_name="__main__")
"""


def servers_config(tmp_path: Path) -> tuple[Path, Path]:
    """Three stdio servers: ``up`` at once, ``sleepy`` and ``broken`` once the gate file
    exists (``sleepy`` then serves, ``broken`` exits). (config path, gate path)"""
    script = tmp_path / "gated.py"
    script.write_text(GATED)
    gate = tmp_path / "gate"

    def gated(target: str, *args: str) -> dict[str, Any]:
        return {"command": sys.executable, "args": [str(script), str(gate), target, *args]}

    servers = {
        "up": {"command": sys.executable, "args": [str(UPSTREAM), "--name", "up"]},
        "sleepy": gated(str(UPSTREAM), "--name", "sleepy"),
        "broken": gated("fail"),
    }
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    return config, gate


def status(app: Any, name: str) -> str:
    """The Servers tab's status cell of *name* ("" when it has no row)."""
    table = app.query_one("#servers-table", BigTable)
    return table.get_cell(name, "status").plain if table.index_of(name) is not None else ""


def statuses(app: Any) -> dict[str, str]:
    return {name: status(app, name) for name in ("up", "sleepy", "broken")}


async def wait_for(pilot: Any, predicate: Callable[[], bool], seconds: float = 40.0) -> None:
    try:
        with anyio.fail_after(seconds):
            while not predicate():
                await pilot.pause(0.1)
    except TimeoutError:
        raise AssertionError(f"waited {seconds} s; rows: {statuses(pilot.app)}, "
                             f"starting: {sorted(getattr(pilot.app, 'starting', ()))}") from None
