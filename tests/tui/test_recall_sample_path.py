"""Recall's query file, pre-filled for the bundled sample however it was named."""

from __future__ import annotations

import pytest
from tui_helpers import FakeClock, loaded, settle

from toolsearch.sources.samples import sample_path
from tui.app import ToolSearchApp
from tui.recall_view import default_query_file
from tui.widgets.recall import RecallPane


@pytest.mark.parametrize("spelling", ["absolute", "relative", "name"])
async def test_recall_prefills_the_bundled_queries_for_a_path_to_a_bundled_sample(
        spelling, tmp_path, monkeypatch):
    """Opened on ``sample_catalogs/five-servers.yaml`` (or its absolute path), Recall's query
    file was blank: only the sample's name was matched. A copy of the file elsewhere is not
    the bundled sample and gets none."""
    bundled = sample_path("five-servers")
    assert bundled is not None
    monkeypatch.chdir(bundled.parent.parent)
    source = {"absolute": str(bundled), "relative": f"{bundled.parent.name}/{bundled.name}",
              "name": "five-servers"}[spelling]
    app = ToolSearchApp([source], clock=FakeClock(), wall_clock=FakeClock(step=1.0),
                        exact=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        app.action_show_tab("recall")
        await settle(pilot)
        assert app.query_one(RecallPane).path.endswith("five-servers.jsonl")
    copy = tmp_path / "five-servers.yaml"
    copy.write_bytes(bundled.read_bytes())
    assert default_query_file([str(copy)]) is None
