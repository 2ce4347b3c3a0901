"""The Recall tab: a query file's figures per profile, the misses, reach, and bad input."""

from __future__ import annotations

import json

import pytest
from textual.widgets import DataTable, Static
from tui_helpers import FakeClock, settle, wait_until

from toolsearch.profiles import PROFILE_NAMES
from toolsearch.recall import load_queries, run_reach, run_recall
from toolsearch.sources.samples import load_sample
from tui import recall_view
from tui.app import ToolSearchApp
from tui.commands import palette_entries
from tui.recall_view import default_query_file
from tui.widgets.recall import REACH_FIGURES, RECALL_FIGURES, RecallPane, reach_cell, recall_cell

QUERIES = [
    {"query": "scrape a web page as markdown", "gold": ["mcp__firecrawl__scrape"]},
    {"query": "crawl a whole website", "gold": ["mcp__firecrawl__crawl"]},
    {"query": "post a tweet", "gold": ["mcp__xactions__post_tweet"]},
    {"query": "zzqx unknown words", "gold": ["mcp__firecrawl__map"]},
    {"query": "gold nobody has", "gold": ["mcp__nowhere__nothing"]},
]


def _seed_demo_app(**kwargs: object) -> ToolSearchApp:
    kwargs.setdefault("workspace", load_sample("seed-demo"))
    return ToolSearchApp(clock=FakeClock(), exact=False, **kwargs)  # type: ignore[arg-type]


def _write(tmp_path, lines: list[str]):
    path = tmp_path / "queries.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _figures(app: ToolSearchApp) -> DataTable:
    return app.query_one("#recall-figures", DataTable)


def _status(app: ToolSearchApp) -> str:
    return str(app.query_one("#recall-status", Static).content)


async def _run(pilot, pane: RecallPane, path: str, choice: str = "both") -> None:
    pane.set_path(path)
    pane.set_profiles(choice)
    await pilot.pause()
    await pilot.click("#recall-run")
    await settle(pilot)


async def test_figures_shown_equal_run_recall_for_every_profile(tmp_path):
    path = _write(tmp_path, [json.dumps(q) for q in QUERIES])
    app = _seed_demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        pane = app.query_one(RecallPane)
        await _run(pilot, pane, str(path))
        queries = load_queries(path)
        table = _figures(app)
        misses = 0
        for profile in PROFILE_NAMES:
            expected = run_recall(app.session, queries, profile)
            misses += len(expected.misses)
            for key, _label in RECALL_FIGURES:
                if key == "seconds":
                    continue
                assert str(table.get_cell(key, profile)) == recall_cell(expected, key)
            assert str(table.get_cell("recall_at_1", profile)) == f"{expected.recall_at_1:.3f}"
            assert str(table.get_cell("n", profile)) == "4"  # the unknown gold is skipped
        assert app.query_one("#recall-misses", DataTable).row_count == misses >= 1
        assert "5 queries from" in _status(app) and "error" not in _status(app)
        assert not app.query_one("#recall-progress").display


async def test_selecting_a_miss_tries_it_in_search(tmp_path):
    path = _write(tmp_path, [json.dumps(QUERIES[3])])
    app = _seed_demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_show_tab("recall")
        await settle(pilot)
        await _run(pilot, app.query_one(RecallPane), str(path), "seed")
        table = app.query_one("#recall-misses", DataTable)
        assert table.row_count == 1
        table.focus()
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert app.query_one("#main-tabs").active == "tab-search"
        assert app.query_one("#search-query").value == "zzqx unknown words"


@pytest.mark.parametrize("lines, words", [
    (None, "No such file"),
    (['{"query": "ok", "gold": ["x"]}', "{not json"], "queries.jsonl:2:"),
    (['{"gold": ["x"]}'], "no 'query'"),
    (["# only a comment", ""], "No queries in"),
])
async def test_bad_query_files_show_one_line_of_error(tmp_path, lines, words):
    path = tmp_path / "missing.jsonl" if lines is None else _write(tmp_path, lines)
    app = _seed_demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_show_tab("recall")
        await settle(pilot)
        await _run(pilot, app.query_one(RecallPane), str(path))
        status = _status(app)
        assert status.startswith("\u2716 error") and words in status
        assert "\n" not in status
        assert _figures(app).row_count == 0
        assert app.recall is not None and app.recall.error


async def test_reach_lists_figures_per_profile():
    app = _seed_demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_run_reach()  # the palette's "Recall: check the reach ..." entry
        await settle(pilot)
        assert app.query_one("#main-tabs").active == "tab-recall"
        table = _figures(app)
        for profile in PROFILE_NAMES:
            expected = run_reach(app.session, profile)
            for key, _label in REACH_FIGURES:
                if key != "seconds":
                    assert str(table.get_cell(key, profile)) == reach_cell(expected, key)
        assert "reach" in _status(app)


async def test_the_bundled_query_set_is_the_default_for_a_sample():
    app = _seed_demo_app(sources=["seed-demo"])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_show_tab("recall")
        await settle(pilot)
        path = app.query_one(RecallPane).path
        assert path.endswith("seed-demo.jsonl") and load_queries(path)
        titles = [title for title, _, _ in palette_entries(app)]
        assert "Recall: run a query file" in titles
        assert "View: show 7 Recall" in titles


def test_no_default_query_file_without_a_sample_or_the_bundled_sets(monkeypatch):
    assert default_query_file([]) is None
    assert default_query_file(["/some/hermes/config.yaml"]) is None

    def missing(name: str):
        raise FileNotFoundError(name)

    monkeypatch.setattr(recall_view, "data_dir", missing)  # a wheel without queries/
    assert default_query_file(["seed-demo"]) is None


async def test_figures_say_when_the_session_changed_after_the_run(make_app):
    """Reach run, then a server detached: the figures still counted its tools (3,310
    deferred on cloudflare-scale while the gauges said 24) and nothing said so."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:  # where the status line is tight
        await settle(pilot)
        await pilot.press("7", "f6")
        await settle(pilot)

        def status() -> str:
            return str(app.query_one("#recall-status", Static).render())

        assert "reach" in status() and "before" not in status()
        await pilot.press("1", "down", "a")  # detach firecrawl
        await settle(pilot)
        assert "firecrawl" in app.session.detached
        await pilot.press("7")
        await settle(pilot)
        assert "before the last change" in status()
        await pilot.press("1", "a")  # attached again: the figures hold again
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        assert "before the last change" not in status()
        await pilot.press("6", "tab", "tab", "tab", "ctrl+u", *"2", "enter")  # threshold only
        await settle(pilot)
        assert "before the last change" not in status()


def _misses_head(app: ToolSearchApp) -> str:
    return str(app.query_one("#recall-misses-head", Static).content)


async def test_a_file_whose_gold_names_are_all_unknown_is_not_a_pass(tmp_path):
    """Nothing measured is no ✔ and no "every query found a gold tool"; typed by keys."""
    path = _write(tmp_path, [json.dumps(QUERIES[4])])
    app = _seed_demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("7", "ctrl+o", "ctrl+u", *str(path), "enter")
        await settle(pilot)
        status = _status(app)
        assert status.startswith("\u26a0 recall") and "none could be scored" in status
        assert "\u2714" not in status
        head = _misses_head(app)
        assert "no query was scored (1 skipped" in head and "every query" not in head


async def test_skipped_queries_are_counted_beside_no_misses(tmp_path):
    path = _write(tmp_path, [json.dumps(QUERIES[0]), json.dumps(QUERIES[4])])
    app = _seed_demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("7", "ctrl+o", "ctrl+u", *str(path), "enter")
        await settle(pilot)
        assert _status(app).startswith("\u2714 recall")
        assert app.query_one("#recall-misses", DataTable).row_count == 0
        assert _misses_head(app) == ("Misses: none, every scored query found a gold tool in the "
                                     "top 5 (1 skipped: gold names not deferred tools here)")


async def test_slash_then_a_path_and_enter_runs_it_and_leaves_the_field(tmp_path):
    """`/` reaches the query file as in Tools and Search; Enter runs it and puts the cursor
    on the misses, so the digit after it switches tabs (it was typed into the path)."""
    path = _write(tmp_path, [json.dumps(q) for q in QUERIES])
    app = _seed_demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("7", "slash", "ctrl+u", *str(path), "enter")
        for _ in range(40):
            await settle(pilot)
            if "5 queries from" in _status(app):
                break
        assert "5 queries from" in _status(app)
        assert app.focused is app.query_one("#recall-misses")
        await pilot.press("2")
        await settle(pilot)
        assert app.query_one("#main-tabs").active == "tab-tools"
        assert app.query_one("#recall-path").value == str(path)


async def test_a_run_asked_for_while_one_is_going_says_it_was_not_started(tmp_path, monkeypatch):
    """Keys only: Enter on another file (or F5, F6) while a run was going was dropped without
    a word, and the figures then shown were the first file's."""
    import threading

    first = _write(tmp_path, [json.dumps(q) for q in QUERIES])
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(QUERIES[0]) + "\n", encoding="utf-8")
    release = threading.Event()
    real = recall_view.recall_run

    def slow(*args, **kwargs):
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr("tui.actions.recall_run", slow)
    app = _seed_demo_app()
    notes: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app, "notify", lambda message, **kw: notes.append(message))
        await pilot.press("7", "slash", "ctrl+u", *str(first), "enter")
        await wait_until(pilot, lambda: app.recall_running, "the first run going")
        await pilot.press("slash", "ctrl+u", *str(other), "enter", "f6")
        await wait_until(pilot, lambda: len(notes) >= 2, "two notices")
        release.set()
        await settle(pilot)
        assert any("other.jsonl was not started" in n for n in notes), notes
        assert any("Reach was not started" in n for n in notes), notes
        assert str(first) in _status(app)


def test_a_cancelled_run_stops_within_a_profile_and_the_bar_moves_inside_it(tmp_path):
    """A quit mid-run waited for the profile's end (3 s at 10,000 queries); the bar sat at
    0 % through the whole first profile."""
    from toolsearch.session import SessionState
    from toolsearch.sources import load_sources
    from tui.recall_view import recall_run

    session = SessionState.from_workspace(load_sources(["seed-demo"]))
    path = tmp_path / "q.jsonl"
    path.write_text("".join('{"query": "scrape a page", "gold": ["mcp__firecrawl__scrape"]}\n'
                            for _ in range(500)))
    steps = []
    asked = []

    def cancelled() -> bool:
        asked.append(1)
        return any(s.part >= 0.5 for s in steps)

    view = recall_run(session, str(path), ("seed", "bm25f"), steps.append, cancelled)
    parts = [s.part for s in steps if s.done == 0]
    assert 0 < parts[1] < parts[-1] <= 0.5  # moves within the first profile
    assert 250 <= len(asked) < 270  # stopped mid-profile, at the first check past half way
    assert view.recall == ()  # a profile cut short is not reported as if whole
    assert not any(s.label.startswith("bm25f") for s in steps)  # never ran the second


async def test_the_query_files_name_shows_at_80_columns():
    """The path field is about 16 columns wide at 80: it showed the path's first folders and
    never the file's name."""
    app = _seed_demo_app(sources=["seed-demo"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        pane = app.query_one(RecallPane)
        assert len(pane.path) > 30
        shown = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert "seed-demo.jsonl" in shown
