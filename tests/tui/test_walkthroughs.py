"""The README's three walk-throughs, by keyboard alone from launch, at 120×40 and 80×24:
why deferred (cloudflare-scale), tune and save (cloudflare-scale + a Hermes config), the demo.
"""

from __future__ import annotations

import pytest
import yaml
from textual.widgets import Static
from tui_helpers import FakeClock, burst, loaded, play_demo, settle

from tui.app import ToolSearchApp
from tui.screens.activity_detail import ActivityDetailScreen
from tui.screens.confirm_save import ConfirmSaveScreen
from tui.widgets.gauges import GaugesPane
from tui.widgets.servers import ServersPane
from tui.widgets.tools import ToolsPane

SIZES = [(120, 40), (80, 24)]
TOOL = "mcp__cloudflare__zone_holds_list"
HERMES_CONFIG = """\
# my hermes config
model: gpt-4o  # keep me
tools:
  tool_search:
    enabled: auto
mcp_servers: {}
"""


def _app(sources: list[str], **kwargs: object) -> ToolSearchApp:
    return ToolSearchApp(sources, clock=FakeClock(), wall_clock=FakeClock(step=1.0),
                         exact=False, **kwargs)  # type: ignore[arg-type]


TYPING = ["key by key", "in one burst"]
"""Pilot's press waits for the app after each key; a burst queues them all at once, as a fast
typist, a paste or `tmux send-keys` does."""


async def _type(pilot, typing: str, *keys: str) -> None:
    if typing == "in one burst":
        burst(pilot.app, list(keys))
    else:
        await pilot.press(*keys)


def _detail(app: ToolSearchApp) -> str:
    return str(app.query_one("#server-detail", Static).content)


@pytest.mark.parametrize("typing", TYPING)
@pytest.mark.parametrize("size", SIZES)
async def test_walkthrough_1_why_deferred(size, typing):
    app = _app(["cloudflare-scale"])
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        servers = app.query_one(ServersPane)
        assert app.focused is servers.table  # the cursor is in 1 Servers
        gauge = app.query_one("#gauge-text", Static)  # no blank lines under the gauges
        assert gauge.size.height == len(gauge.content.wrap(gauge.content_region.width))
        assert servers.table.size.height >= 5  # the header and the servers on screen
        for _ in range(len(servers.table.rows)):
            if servers.highlighted() == "cloudflare":
                break
            await pilot.press("down")
        await settle(pilot)
        assert servers.highlighted() == "cloudflare"
        assert servers.table.get_cell("cloudflare", "form").plain == "summary"
        detail = _detail(app)
        assert "What would change it" in detail and "33,269" in detail
        assert "threshold_pct \u2265 16.64" in detail
        await _type(pilot, typing, "2", "slash", *"zone_holds_list", "enter")
        await settle(pilot)
        tools = app.query_one(ToolsPane)
        assert app.focused is tools.table  # back in the table, on the tool
        assert tools.highlighted_name() == TOOL
        text = str(tools.query_one("#tool-explain", Static).content)
        assert "rule mcp-toolset" in text and "Listing line:" in text
        assert "What would change it" in text and "enabled: off" in text
        box = tools.query_one("#tool-explain", Static)  # on screen, not cut off (80x24)
        shown_lines = [strip.text for strip in box.render_lines(box.size.region)]
        assert "enabled: off" in " ".join(shown_lines)
        filtered = tools.table.row_count
        await pilot.press("escape")  # clears the filter
        await settle(pilot)
        assert tools.table.row_count > filtered
        assert tools.query_one("#tools-filter").value == ""


@pytest.mark.parametrize("typing", TYPING)
@pytest.mark.parametrize("size", SIZES)
async def test_walkthrough_2_tune_and_save(size, typing, tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(HERMES_CONFIG)
    app = _app(["cloudflare-scale", str(config)])
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        assert app.save_target == str(config)
        await _type(pilot, typing, "6", "tab", "tab", "tab", "ctrl+u", "1", "7", "enter")
        await settle(pilot)
        assert app.session.config.threshold_pct == 17
        assert app.focused is not None and app.focused.id == "tuning"  # left the field
        await _type(pilot, typing, "tab", "ctrl+u", *"34000", "enter")  # the next field
        await settle(pilot)
        assert app.session.config.listing_max_tokens == 34000
        figures = app.query_one(GaugesPane).figures
        assert figures is not None and figures.listing_form == "names"
        assert (figures.listing_tokens, figures.budget) == (33_269, 34_000)
        gauge = str(app.query_one("#gauge-text", Static).content)
        assert "33,269" in gauge and "34,000" in gauge and "\u2714 fits" in gauge
        await pilot.press("1")  # Servers catches up when shown: cloudflare keeps its names
        await settle(pilot)
        assert app.query_one(ServersPane).table.get_cell("cloudflare", "form").plain == "names"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmSaveScreen)
        diff = str(app.screen.query_one("#confirm-diff", Static).content)
        assert "threshold_pct: 17" in diff and "listing_max_tokens: 34000" in diff
        assert "enabled" not in diff and "search_default_limit" not in diff
        assert config.read_text() == HERMES_CONFIG
        await pilot.press("y")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmSaveScreen)
        assert (tmp_path / "config.yaml.bak").read_text() == HERMES_CONFIG
    saved = yaml.safe_load(config.read_text())
    assert saved["tools"]["tool_search"] == {"enabled": "auto", "threshold_pct": 17,
                                             "listing_max_tokens": 34000}
    assert saved["model"] == "gpt-4o" and "# keep me" in config.read_text()


@pytest.mark.parametrize("size", SIZES)
async def test_walkthrough_3_the_demo(size, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = _app(["seed-demo"], demo_delay=0.0)
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        await play_demo(pilot)
        assert not app.demo_running and len(app.activity) >= 6
        assert app.query_one("#main-tabs").active == "tab-activity"
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ActivityDetailScreen)
        assert screen.index == len(app.activity) - 1
        await pilot.press("left")
        assert screen.index == len(app.activity) - 2
        await pilot.press("right", "c")
        await settle(pilot)
        assert '"request"' in app.clipboard
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ActivityDetailScreen)
        await pilot.press("3", "right_square_bracket", "right_square_bracket",
                          "right_square_bracket")
        await settle(pilot)
        assert app.query_one("#listing-tabs").active == "listing-sent"
        await pilot.press("c")
        await settle(pilot)
        assert app.clipboard.startswith(app.query_one("#listing").text_of("sent")[:40])
        await pilot.press("e")
        await settle(pilot)
        written = tmp_path / "tool_search-description.txt"
        assert written.read_text().rstrip("\n") == app.query_one("#listing").text_of("sent")
