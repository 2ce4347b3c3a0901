"""Search pane, the Call dialog, the activity feed and the scripted demo."""

from __future__ import annotations

import json
from typing import Any

from textual.geometry import Region
from textual.widgets import DataTable, Input, Static, TextArea
from tui_helpers import settle

from tui.screens.call import CallScreen, build_args
from tui.widgets.feed import ActivityFeed
from tui.widgets.search import SearchPane


async def _search(app, pilot, query: str, compare: bool = False) -> SearchPane:
    app.action_show_tab("search")
    pane = app.query_one(SearchPane)
    if compare != pane.compare:
        pane.action_toggle_compare()
    pane.set_query(query)
    await settle(pilot)
    return pane


async def test_search_shows_scores_and_token_contributions(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = await _search(app, pilot, "scrape url")
        table = pane.query_one("#hits-table-seed", DataTable)
        assert table.row_count >= 1
        assert str(table.get_cell("1", "name")) == "mcp__firecrawl__scrape"
        score = float(str(table.get_cell("1", "score")))
        assert score > 0
        terms = str(table.get_cell("1", "terms"))
        assert "scrape " in terms and "url " in terms
        head = str(pane.query_one("#hits-head-seed", Static).content)
        assert "seed" in head and "scrape (in" in head


async def test_fallback_is_marked_and_zero_hits_are_explained(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = await _search(app, pilot, "twee")  # a name fragment: substring fallback
        table = pane.query_one("#hits-table-seed", DataTable)
        assert table.row_count >= 1
        assert str(table.get_cell("1", "note")) == "\u2691 fallback"
        assert str(table.get_cell("1", "score")) == "0.10"
        assert "substring fallback" in str(pane.query_one("#hits-head-seed", Static).content)
        pane = await _search(app, pilot, "zzzqqq")
        assert pane.query_one("#hits-table-seed", DataTable).row_count == 0
        head = str(pane.query_one("#hits-head-seed", Static).content)
        assert "zero hits" in head and "no tool name contains 'zzzqqq'" in head
        pane = await _search(app, pilot, "!!!")
        head = str(pane.query_one("#hits-head-seed", Static).content)
        assert "no searchable tokens" in head


async def test_seed_and_latest_side_by_side(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = await _search(app, pilot, "twee", compare=True)
        assert pane.query_one("#hits-latest").display
        assert app.search.profile("latest") is not None
        seed = pane.query_one("#hits-table-seed", DataTable)
        latest = pane.query_one("#hits-table-latest", DataTable)
        assert seed.row_count >= 1  # the seed fallback finds the fragment...
        assert latest.row_count == 0  # ...the latest profile has no fallback
        assert "no substring fallback" in str(
            pane.query_one("#hits-head-latest", Static).content)


async def test_search_follows_tuning(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = await _search(app, pilot, "tweet post search")
        assert pane.query_one("#hits-table-seed", DataTable).row_count == 5
        app.change(app.session.with_config(search_default_limit=2))
        await settle(pilot)
        assert pane.query_one("#hits-table-seed", DataTable).row_count == 2


async def test_a_call_lands_in_the_feed_as_the_underlying_tool(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        reply = await app.dispatch("tool_call", {"name": "mcp__firecrawl__scrape",
                                                 "arguments": {"url": "https://x.test"}})
        await settle(pilot)
        assert reply.activity.outcome == "ok"
        entry = app.activity[-1]
        assert entry.event.headline().startswith("tool_call \u2192 mcp__firecrawl__scrape {")
        assert entry.event.ms == 12.5
        feed = app.query_one(ActivityFeed)
        assert feed.lines_written == 1
        rendered = feed.render_entry(entry).plain
        assert "\u2714 ok" in rendered and "12.5 ms" in rendered
        assert "dry run" in rendered


async def _call_dialog(app: Any, pilot: Any) -> CallScreen:
    """Ctrl+T from launch: the Call dialog."""
    await settle(pilot)
    await pilot.press("ctrl+t")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, CallScreen)
    return screen


async def test_call_dialog_sends_by_hand_and_shows_the_reply(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _call_dialog(app, pilot)
        screen.fill("tool_call", "mcp__xactions__send_dm", '{"handle": "nous"}')
        screen.action_send()
        await settle(pilot)
        assert screen.last_reply is not None
        assert screen.last_reply.activity.outcome == "missing_args"
        result = json.loads(screen.query_one("#call-result", TextArea).text)
        assert "missing required argument(s): text" in result["error"]
        assert "parameters" in result
        await pilot.press("escape")
        await settle(pilot)
        assert app.activity[-1].event.tool == "mcp__xactions__send_dm"
        assert app.activity[-1].event.outcome == "missing_args"


def test_build_args_for_each_bridge():
    assert build_args("tool_search", "scrape", "", "3") == {"query": "scrape", "limit": 3}
    assert build_args("tool_describe", "x", "", "") == {"name": "x"}
    assert build_args("tool_call", "x", '{"a": 1}', "") == {"name": "x", "arguments": {"a": 1}}


async def test_call_dialog_refuses_hostile_arguments_in_one_line(make_app):
    """Arguments nested 100,000 deep raised RecursionError out of the dialog (the app ended
    with a traceback); NaN went to the tool; a 5,000-digit limit printed Python's message."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _call_dialog(app, pilot)
        for bridge, arguments, limit, said in (
                ("tool_call", "[" * 100_000 + "]" * 100_000, "", "nested too deeply"),
                ("tool_call", '{"a": NaN}', "", "non-finite numbers are refused"),
                ("tool_search", "", "9" * 5000, "limit must be a whole number")):
            screen.fill(bridge, "mcp__xactions__send_dm", arguments)
            screen.query_one("#call-limit", Input).value = limit
            screen.action_send()
            await settle(pilot)
            status = str(screen.query_one("#call-status", Static).render())
            assert status.startswith("\u2716 not sent:") and said in status, status
        assert app.activity == ()  # nothing was sent
        await pilot.press("escape")
        await settle(pilot)
    assert app.return_code in (0, None)


async def test_demo_plays_every_step_through_the_feed(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
        outcomes = [(e.event.bridge, e.event.outcome) for e in app.activity]
        assert outcomes == [
            ("tool_search", "ok"), ("tool_describe", "ok"), ("tool_call", "missing_args"),
            ("tool_call", "ok"), ("tool_call", "out_of_scope"), ("tool_call", "recursion"),
            ("tool_call", "ok"),
        ]
        # the demo searches with the tool's first sentence, as a model paraphrases a need,
        # and the tool it then describes is among the hits
        assert app.activity[0].event.arguments == {
            "query": "Scrape one URL and return its content as markdown"}
        hits = [m["name"] for m in app.activity[0].result["matches"]]
        assert "mcp__firecrawl__scrape" in hits
        assert app.activity[1].event.tool == "mcp__firecrawl__scrape"
        assert app.activity[2].event.tool == "mcp__firecrawl__scrape"
        assert app.activity[4].event.tool.startswith("mcp__xactions__")
        assert "demo 5/7" in app.activity[4].note
        assert app.query_one("#main-tabs").active == "tab-activity"
        assert not app.demo_running
        assert app.query_one(ActivityFeed).lines_written == 7


async def test_the_app_uses_the_sessions_bridge_and_the_feed_its_summary(make_app, workspace):
    """One bridge (SessionState.bridge): under latest a zero-hit group names the unavailable
    server; the feed shows the reply's own summary, not a re-reading of seed-shaped replies."""
    from dataclasses import replace

    from toolsearch.toolsets import Toolset, ToolsetStatus

    down = Toolset("down", "mcp", status=ToolsetStatus.ERROR, error="connection refused")
    app = make_app(workspace=replace(workspace, toolsets=(*workspace.toolsets, down)),
                   profile="latest")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.bridge().unavailable == app.session.unavailable != ()
        reply = await app.dispatch("tool_search", {"queries": ["zzzqqq"]})
        await settle(pilot)
        assert app.session.config.profile.name == "latest", reply.result
        sources = reply.result["results"][0]["available_sources"]
        assert any(s["name"] == "down" and "unavailable" in s for s in sources)
        assert app.activity[-1].note == "0 match(es) for 'zzzqqq'"
        reply = await app.dispatch("tool_search", {"queries": ["scrape"]})
        await settle(pilot)
        assert app.activity[-1].note == ("2 match(es) for 'scrape': mcp__firecrawl__scrape, "
                                         "mcp__firecrawl__search")
        reply = await app.dispatch("tool_describe", {"names": ["mcp__firecrawl__scrape"]})
        await settle(pilot)
        assert app.activity[-1].note == "1 described, 0 not found, 0 rejected"


async def test_the_query_is_searched_again_after_a_tuning_key(make_app):
    """A key that changes the session searches the shown query again once the change rests
    (not inside the key): the hits follow search_default_limit typed in Tuning."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("4", "slash", *"tweet post search", "enter")
        await settle(pilot)
        pane = app.query_one(SearchPane)
        assert pane.query_one("#hits-table-seed", DataTable).row_count == 5
        # search_default_limit: the fifth field from the pane's first control
        await pilot.press("escape", "6", *["tab"] * 5, "ctrl+u", "2", "escape", "4")
        await settle(pilot)
        assert app.session.config.search_default_limit == 2
        assert pane.query_one("#hits-table-seed", DataTable).row_count == 2


async def _compare(pilot, query: str) -> SearchPane:
    """From launch, keys only: Search, compare on, *query* run; the Search pane."""
    await settle(pilot)
    await pilot.press("4", "c", "slash", *query, "enter")
    await settle(pilot)
    return pilot.app.query_one(SearchPane)


async def test_compare_at_80x24_shows_a_hit_in_every_profile_table(make_app):
    """Keys only: with compare on in an 80x24 terminal the three tables are stacked; each must
    have room for a hit below its header (a horizontal scrollbar once took the seed's)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await _compare(pilot, "scrape a web page")
        assert pane.compare
        for profile in ("seed", "latest", "bm25f"):
            table = pane.query_one(f"#hits-table-{profile}", DataTable)
            assert table.display and table.row_count >= 1, profile
            rows_shown = table.scrollable_content_region.height - table.header_height
            assert rows_shown >= 1, (profile, table.size, table.scrollable_content_region)
            head = pane.query_one(f"#hits-head-{profile}", Static)
            assert head.size.height == 1, profile


async def test_the_call_dialog_reopens_as_it_was_left_for_the_same_tool(make_app):
    """Esc threw away typed arguments; Ctrl+T again (same tool highlighted) brings them back,
    and another tool highlighted gets a fresh dialog describing it."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "slash", *"send_dm", "enter", "ctrl+t")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CallScreen)
        name = screen.query_one("#call-name", Input).value
        assert name.endswith("send_dm")
        await pilot.press("tab", *'{"handle": "nous"}', "escape")  # into the arguments
        await settle(pilot)
        assert not isinstance(app.screen, CallScreen)
        await pilot.press("ctrl+t")
        await settle(pilot)
        again = app.screen
        assert isinstance(again, CallScreen)
        assert again.query_one("#call-args", TextArea).text == '{"handle": "nous"}'
        assert again.query_one("#call-name", Input).value == name
        await pilot.press("escape", "escape", "down", "ctrl+t")  # another tool: fresh
        await settle(pilot)
        fresh = app.screen
        assert isinstance(fresh, CallScreen)
        assert fresh.query_one("#call-args", TextArea).text == ""
        assert fresh.query_one("#call-name", Input).value != name


async def test_compare_at_80x24_says_why_each_profile_has_zero_hits(make_app):
    """Keys only: with compare on at 80x24 each profile's head was cut to one line (its
    tokens), so a query nothing matches showed three empty tables and no reason."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await _compare(pilot, "zzzqqq")
        for profile in ("seed", "latest", "bm25f"):
            head = pane.query_one(f"#hits-head-{profile}", Static)
            shown = " ".join("".join(s.text for s in strip) for strip in head.render_lines(
                Region(0, 0, head.size.width, head.size.height)))
            assert "zero hits" in shown and "deferred tools" in shown, (profile, shown)
        # a query with hits keeps the one-line heads that leave the tables their rows
        await pilot.press("slash", "ctrl+u", *"scrape a web page", "enter")
        await settle(pilot)
        for profile in ("seed", "latest", "bm25f"):
            assert pane.query_one(f"#hits-head-{profile}", Static).size.height == 1, profile
