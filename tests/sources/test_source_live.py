"""Live MCP servers through the SDK: stdio, streamable HTTP, paging, failures, cleanup."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from source_helpers import (
    HTTP_TOKEN,
    bench_server,
    processes_with,
    script_server,
    wait_until,
)

from toolsearch.sources import load_sources_async
from toolsearch.sources.live import (
    ServerConfig,
    SkippedTool,
    list_server,
    list_servers,
    skipped_warnings,
)
from toolsearch.toolsets import ToolsetStatus

pytestmark = pytest.mark.live


async def test_stdio_server_lists_its_tools(marker: str) -> None:
    listing = await list_server(script_server("demo", "demo_server", marker=marker))
    ts = listing.toolset
    assert ts.status is ToolsetStatus.CONNECTED, ts.error
    assert [t.name for t in ts.tools] == ["add", "echo", "explode", "has_env"]
    assert ts.server_version == "3.1.4"
    add = ts.tools[0]
    assert add.description == "Add two integers and return the sum."
    assert set(add.input_schema["properties"]) == {"a", "b"}
    assert ts.defs[0]["function"]["name"] == "mcp__demo__add"
    assert wait_until(lambda: not processes_with(marker), 5)


async def test_streamable_http_server(http_url: str) -> None:
    listing = await list_server(ServerConfig("web", transport="http", url=http_url))
    assert listing.toolset.status is ToolsetStatus.CONNECTED, listing.toolset.error
    assert [t.name for t in listing.toolset.tools] == ["add", "echo", "explode", "has_env"]


async def test_http_headers_are_sent_and_never_shown(http_auth_url: str) -> None:
    good = ServerConfig("auth", transport="http", url=http_auth_url,
                        headers={"Authorization": HTTP_TOKEN})
    bad = ServerConfig("noauth", transport="http", url=http_auth_url,
                       headers={"Authorization": "Bearer wrong-SECRET-0000"})
    ok, refused = await list_servers([good, bad], timeout=10)
    assert ok.toolset.status is ToolsetStatus.CONNECTED, ok.toolset.error
    assert refused.toolset.status is ToolsetStatus.ERROR
    assert refused.toolset.error
    for listing, secret in ((ok, HTTP_TOKEN), (refused, "wrong-SECRET-0000")):
        ts = listing.toolset
        for text in (ts.error, ts.origin, repr(ts), *listing.warnings):
            assert secret not in text and secret.split()[-1] not in text


async def test_paging_follows_next_cursor_over_every_page(marker: str) -> None:
    listing = await list_server(bench_server("pages", "--tools", "95", "--page-size", "10",
                                             marker=marker))
    assert listing.toolset.status is ToolsetStatus.CONNECTED, listing.toolset.error
    names = [t.name for t in listing.toolset.tools]
    assert len(names) == 95 and len(set(names)) == 95
    assert names[0].endswith("_0000") and names[-1].endswith("_0094")


async def test_an_sdk_without_the_private_listing_parts_still_lists_every_page(
        marker: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-tool listing uses SDK-private parts; another ``mcp`` release without them
    falls back to the SDK's own strict listing instead of failing every server."""
    from toolsearch.sources import live

    checked: list[bool] = []
    real = live.lenient_listing_supported
    monkeypatch.setattr(live, "lenient_listing_supported",
                        lambda client: checked.append(real(client)) or real(client))
    listing = await list_server(bench_server("pages", "--tools", "25", "--page-size", "10",
                                             marker=marker))
    assert checked == [True]  # the installed SDK has them
    monkeypatch.setattr(live, "PRIVATE_LISTING_PARTS",
                        (*live.PRIVATE_LISTING_PARTS, ("session", "_gone_in_a_later_release")))
    listing = await list_server(bench_server("pages", "--tools", "25", "--page-size", "10",
                                             marker=marker))
    assert checked == [True, False]
    assert listing.toolset.status is ToolsetStatus.CONNECTED, listing.toolset.error
    assert len({t.name for t in listing.toolset.tools}) == 25


async def test_include_exclude_filters(marker: str) -> None:
    config = script_server("demo", "demo_server", marker=marker, exclude=("explode",))
    listing = await list_server(config)
    assert [t.name for t in listing.toolset.tools] == ["add", "echo", "has_env"]
    only = script_server("demo", "demo_server", marker=marker, include=("echo",))
    assert [t.name for t in (await list_server(only)).toolset.tools] == ["echo"]


async def test_failures_are_per_server_and_the_rest_still_load(marker: str) -> None:
    configs = [
        script_server("good", "demo_server", marker=marker),
        script_server("crash", "crash_server", marker=marker),
        script_server("hang", "hang_server", marker=marker),
        script_server("garbage", "garbage_server", marker=marker),
        script_server("badschema", "bad_schema_server", marker=marker),
        ServerConfig("missing", command="/no/such/mcp-server-binary"),
        bench_server("paged", "--tools", "30", marker=marker),
    ]
    # Seven interpreters start at once on a 2-core machine: 6 s leaves the good ones room.
    started = time.monotonic()
    listings = {r.toolset.name: r for r in await list_servers(configs, timeout=6)}
    results = {name: r.toolset for name, r in listings.items()}
    elapsed = time.monotonic() - started
    assert results["good"].status is ToolsetStatus.CONNECTED
    # a tool the SDK rejects is skipped with a warning, not the whole server (SPEC §8)
    assert [t.name for t in results["badschema"].tools] == ["fine"], results["badschema"]
    assert listings["badschema"].warnings == (
        "server badschema: tools/list.tools[1] (badschema/broken): skipped: inputSchema: "
        "Input should be a valid dictionary or instance of InputSchema",)
    assert len(results["paged"].tools) == 30
    errors = {name: ts.error for name, ts in results.items()
              if ts.status is ToolsetStatus.ERROR}
    assert set(errors) == {"crash", "hang", "garbage", "missing"}
    assert "closed the connection" in errors["crash"] and "fatal" in errors["crash"]
    assert errors["hang"] == "no answer within 6 s"
    assert "non-MCP output" in errors["garbage"] and "Welcome" in errors["garbage"]
    assert "command not found" in errors["missing"]
    for reason in errors.values():
        assert "\n" not in reason and len(reason) <= 240
    # In parallel: bounded by the timeout plus the SDK's shutdown grace, not by the sum.
    assert elapsed < 6 + 2 + 3
    assert wait_until(lambda: not processes_with(marker), 5), processes_with(marker)


async def test_timeout_kills_a_server_that_ignores_sigterm(marker: str) -> None:
    config = script_server("stubborn", "hang_server", "--ignore-term", marker=marker)
    listing = await list_server(config, timeout=1)
    assert listing.toolset.error == "no answer within 1 s"
    assert wait_until(lambda: not processes_with(marker), 5), processes_with(marker)


async def test_connect_timeout_from_config_wins(marker: str) -> None:
    config = script_server("slow", "hang_server", marker=marker, connect_timeout=0.5)
    listing = await list_server(config, timeout=30)
    assert listing.toolset.error == "no answer within 0.5 s"


def test_ctrl_c_stops_every_server(tmp_path: Path, marker: str) -> None:
    config = tmp_path / "config.yaml"
    servers = Path(__file__).parent / "servers"
    config.write_text(textwrap.dedent(f"""\
        mcp_servers:
          hang:
            command: {sys.executable}
            args: ["{servers / 'hang_server.py'}", "--marker", "{marker}"]
          demo:
            command: {sys.executable}
            args: ["{servers / 'demo_server.py'}", "--marker", "{marker}"]
        """))
    code = f"from toolsearch.sources import load_sources; load_sources([{str(config)!r}], timeout=60)"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        assert wait_until(lambda: len(processes_with(marker)) >= 2, 20), "servers never started"
        time.sleep(0.5)
        os.kill(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends to the CLI
        _, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert b"KeyboardInterrupt" in err
    assert wait_until(lambda: not processes_with(marker), 5), processes_with(marker)


async def test_hermes_config_mixes_good_and_bad_servers(tmp_path: Path, marker: str) -> None:
    servers = Path(__file__).parent / "servers"
    config = tmp_path / "config.yaml"
    config.write_text(textwrap.dedent(f"""\
        mcp_servers:
          demo:
            command: {sys.executable}
            args: ["{servers / 'demo_server.py'}", "--marker", "{marker}"]
            env: {{API_TOKEN: "sk-hermes-SECRET-99887766"}}
          broken:
            command: {sys.executable}
            args: ["{servers / 'crash_server.py'}", "--marker", "{marker}"]
            env: {{API_TOKEN: "sk-hermes-SECRET-99887766"}}
          skipped:
            command: /bin/false
            enabled: false
        tools:
          tool_search: {{threshold_pct: 3}}
        """))
    ws = await load_sources_async([str(config)], timeout=10)
    assert [(t.name, t.status.value) for t in ws.toolsets] == [
        ("demo", "connected"), ("broken", "error")]
    assert dict(ws.tool_search or {}) == {"threshold_pct": 3}
    assert ws.origins == (str(config),)
    broken = ws.toolsets[1]
    assert "could not authenticate" in broken.error
    assert "sk-hermes-SECRET-99887766" not in broken.error + broken.origin
    assert "API_TOKEN=***" in broken.origin


def test_attach_bench_smoke() -> None:
    from benchmarks.attach import run_attach_bench

    lines: list[str] = []
    steps: list[str] = []
    result = run_attach_bench(lines.append, servers=3, tools=120, page_size=50, runs=1,
                              step=steps.append)
    assert result["paged_tools"] == 120 and result["pages"] == 3
    assert result["parallel_s"] > 0 and result["slowest_alone_s"] > 0
    assert any(line.startswith("paging:") for line in lines)
    # each stage is announced before it runs (`bench attach` shows them on a terminal; it
    # was silent for half a minute)
    assert steps == [
        "minimal servers: the slowest alone, then all 3 together",
        "SDK servers (for information): the slowest alone, then all 3 together",
        "SDK servers, no latency (CPU-bound, for information): the slowest alone, then all 3 "
        "together",
        "paging: 120 tools over pages of 50"]


def test_a_skipped_tool_the_config_excludes_is_not_warned_about() -> None:
    """A malformed tool the operator filtered out anyway is no news; one without a string
    name is named by its index; a name with control characters is shown escaped."""
    skipped = [SkippedTool(0, "hidden", "inputSchema: bad"), SkippedTool(1, None, "name: bad"),
               SkippedTool(2, "odd\x1b[2J", "inputSchema: bad")]
    config = ServerConfig("s", command="x", exclude=("hidden",))
    assert skipped_warnings(config, skipped) == (
        "server s: tools/list.tools[1] (s): skipped: name: bad",
        "server s: tools/list.tools[2] (s/odd\\x1b[2J): skipped: inputSchema: bad")
