"""Live tool_call execution on real servers (our SDK servers and the reference servers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from source_helpers import processes_with, script_server, wait_until

from toolsearch.sources.executor import ExecutionResult, LiveExecutor, live_executor
from toolsearch.sources.live import ServerConfig, list_servers
from toolsearch.toolsets import Workspace

pytestmark = pytest.mark.live


async def _executor_for(*configs: ServerConfig) -> LiveExecutor:
    listings = await list_servers(configs)
    ws = Workspace(toolsets=tuple(listing.toolset for listing in listings))
    return LiveExecutor.for_workspace(ws, configs)


async def test_call_returns_structured_content(marker: str) -> None:
    executor = await _executor_for(script_server("demo", "demo_server", marker=marker))
    result = await executor.execute("mcp__demo__add", {"a": 2, "b": 40})
    assert result == ExecutionResult(True, {"result": 42})
    assert (await executor.execute("mcp__demo__echo", {"message": "hé"})).content == {"result": "hé"}
    assert wait_until(lambda: not processes_with(marker), 5)


async def test_tool_error_is_not_ok_with_its_text(marker: str) -> None:
    executor = await _executor_for(script_server("demo", "demo_server", marker=marker))
    result = await executor.execute("mcp__demo__explode", {"reason": "kaput"})
    assert not result.ok and "exploded: kaput" in result.error


async def test_a_reply_carrying_a_configured_secret_is_masked_and_nothing_else(
        marker: str) -> None:
    """A tool can echo a server's own secret (the reference `everything` server's get-env
    returns its environment). The app's feed and `toolsearch call` show replies, so every
    configured secret is masked there, in every printed form; the rest of the reply (URLs,
    `key=value` text, token-shaped words) is the tool's data and stays as it was."""
    import json

    secret = "sk-live-Pl41nSecretValue"  # under a harmless env name, found by its shape
    other = "Zq9-other-server-token-77"
    executor = await _executor_for(
        script_server("demo", "demo_server", marker=marker, env={"MY_VAR": secret}),
        script_server("other", "demo_server", marker=marker, env={"OTHER_TOKEN": other}))
    data = ("https://example.com/files/a1b2c3d4e5f6g7h8i9/x password=hunter2 "
            "ghp_abcdefgh12345678")
    message = f"{secret} {json.dumps(secret)} {other} {data}"
    result = await executor.execute("mcp__demo__echo", {"message": message})
    shown = json.dumps(result.content)
    assert result.ok
    assert secret not in shown and other not in shown
    assert result.content == {"result": f"*** \"***\" *** {data}"}
    plain = await executor.execute("mcp__demo__echo", {"message": data})
    assert plain.content == {"result": data}


async def test_unknown_names_are_errors_not_exceptions(marker: str) -> None:
    executor = await _executor_for(script_server("demo", "demo_server", marker=marker))
    missing_tool = await executor.execute("mcp__demo__nope", {})
    assert not missing_tool.ok and "nope" in missing_tool.error
    no_server = await executor.execute("mcp__elsewhere__x", {})
    assert not no_server.ok and "no live server" in no_server.error
    assert not executor.can_execute("mcp__elsewhere__x")


async def test_names_are_discovered_without_a_workspace(marker: str) -> None:
    executor = LiveExecutor([script_server("demo", "demo_server", marker=marker)])
    assert executor.can_execute("mcp__demo__add")
    assert (await executor.execute("mcp__demo__add", {"a": 1, "b": 1})).content == {"result": 2}


async def test_call_over_streamable_http(http_url: str) -> None:
    executor = LiveExecutor([ServerConfig("web", transport="http", url=http_url)])
    assert (await executor.execute("mcp__web__add", {"a": 5, "b": 6})).content == {"result": 11}


async def test_env_reaches_the_server_but_not_the_output(marker: str) -> None:
    config = script_server("demo", "demo_server", marker=marker,
                           env={"SERVICE_TOKEN": "tok-EXEC-SECRET-42"})
    executor = LiveExecutor([config])
    result = await executor.execute("mcp__demo__has_env", {"name": "SERVICE_TOKEN"})
    assert result.content == {"result": "set"}


async def test_call_timeout(marker: str) -> None:
    executor = LiveExecutor([script_server("hang", "hang_server", marker=marker)], timeout=1)
    result = await executor.execute("mcp__hang__anything", {})
    assert not result.ok and result.error == "no answer within 1 s"
    assert wait_until(lambda: not processes_with(marker), 5)


def test_sync_helper_from_cli_code(tmp_path: Path, marker: str) -> None:
    import json
    import sys

    servers = Path(__file__).parent / "servers"
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"demo": {
        "command": sys.executable, "args": [str(servers / "demo_server.py"), "--marker", marker]}}}))
    executor = live_executor([str(config)])
    assert executor.server_names == ("demo",)
    assert executor.execute_sync("mcp__demo__add", {"a": 1, "b": 2}).content == {"result": 3}


# --------------------------------------------------------------------- reference servers


async def test_reference_servers_list_and_call(reference_bin, tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hi there")
    configs = [
        ServerConfig("everything", command=str(reference_bin("mcp-server-everything"))),
        ServerConfig("filesystem", command=str(reference_bin("mcp-server-filesystem")),
                     args=(str(tmp_path),)),
        ServerConfig("time", command=str(reference_bin("mcp-server-time"))),
    ]
    listings = await list_servers(configs, timeout=30)
    by_name = {listing.toolset.name: listing.toolset for listing in listings}
    for ts in by_name.values():
        assert ts.status.value == "connected", ts.error
        assert ts.server_version
    assert "echo" in {t.name for t in by_name["everything"].tools}
    assert {"read_text_file", "list_directory"} <= {t.name for t in by_name["filesystem"].tools}
    assert {t.name for t in by_name["time"].tools} == {"get_current_time", "convert_time"}

    ws = Workspace(toolsets=tuple(by_name.values()))
    executor = LiveExecutor.for_workspace(ws, configs, timeout=30)
    echo = await executor.execute("mcp__everything__echo", {"message": "ping"})
    assert echo.ok and "ping" in str(echo.content)
    listing = await executor.execute("mcp__filesystem__list_directory", {"path": str(tmp_path)})
    assert listing.ok and "hello.txt" in str(listing.content)
    now = await executor.execute("mcp__time__get_current_time", {"timezone": "UTC"})
    assert now.ok and now.content["timezone"] == "UTC"
    bad = await executor.execute("mcp__time__get_current_time", {"timezone": "Nowhere/Land"})
    assert not bad.ok and "Nowhere/Land" in bad.error
