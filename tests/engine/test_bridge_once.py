"""A bridge computes what depends only on its session once (issue #12: a tool_call at 4,932
tools re-classified the whole session on every call), and a new bridge (a new assembly,
config or scope) computes it afresh."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest
from reference_impl import fdef

import toolsearch.bridge as bridge_module
from toolsearch.bridge import Bridge, ExecutionResult
from toolsearch.config import ToolSearchConfig

REGISTRY = {f"mcp__srv__t{i}": "mcp-srv" for i in range(40)}
SESSION = [fdef(f"mcp__srv__t{i}", f"Tool number {i} does thing {i}.",
                {"x": {"type": "string"}}, ["x"]) for i in range(40)]


class Recorder:
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def execute(self, tool_name: str, arguments: Mapping[str, Any]) -> ExecutionResult:
        self.calls.append(tool_name)
        return ExecutionResult(True, {"ran": tool_name})


@pytest.fixture
def classify_count(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    count = [0]
    real = bridge_module.classify_tools

    def counting(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(bridge_module, "classify_tools", counting)
    return count


@pytest.mark.parametrize("profile", ["seed", "bm25f", "latest"])
def test_calls_searches_and_describes_classify_once(classify_count: list[int],
                                                    profile: str) -> None:
    recorder = Recorder()
    bridge = Bridge.create(SESSION, REGISTRY, ToolSearchConfig.from_raw({}, profile=profile),
                           recorder)
    call = ({"calls": [{"name": "mcp__srv__t3", "arguments": {"x": "1"}}]}
            if profile == "latest" else {"name": "mcp__srv__t3", "arguments": {"x": "1"}})
    search = {"queries": ["thing 7"]} if profile == "latest" else {"query": "thing 7"}
    describe = {"names": ["mcp__srv__t5"]} if profile == "latest" else {"name": "mcp__srv__t5"}

    async def many() -> None:
        for _ in range(5):
            assert (await bridge.dispatch("tool_call", call)).activity.outcome == "ok"
            assert (await bridge.dispatch("tool_search", search)).hits
            assert (await bridge.dispatch("tool_describe", describe)).activity.outcome == "ok"

    asyncio.run(many())
    assert recorder.calls == ["mcp__srv__t3"] * 5
    assert classify_count[0] == 1
    assert bridge.catalog is bridge.catalog
    assert bridge.scoped_names() is bridge.scoped_names()


def test_a_new_bridge_sees_the_new_session() -> None:
    config = ToolSearchConfig.from_raw({}, profile="bm25f")
    first = Bridge.create(SESSION, REGISTRY, config, Recorder())
    assert "mcp__srv__t39" in first.scoped_names()
    second = Bridge.create(SESSION[:10], REGISTRY, config, Recorder())
    assert "mcp__srv__t39" not in second.scoped_names()
    assert len(second.catalog) == 10 and len(first.catalog) == 40
    reply = asyncio.run(second.dispatch("tool_call", {"name": "mcp__srv__t39",
                                                      "arguments": {"x": "1"}}))
    assert reply.activity.outcome == "out_of_scope"
    missing = asyncio.run(first.dispatch("tool_call", {"name": "mcp__srv__t2", "arguments": {}}))
    assert missing.activity.outcome == "missing_args"
