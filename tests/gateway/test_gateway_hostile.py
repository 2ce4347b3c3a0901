"""The gateway against a hostile upstream and a hostile client: real gateway processes, real
upstream MCP servers (the official SDK, ``servers/hostile_upstream.py``), the SDK's client.
No protocol mocks."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from gateway_helpers import (
    HERE,
    events_when,
    start_http_gateway,
    stop,
    text_of,
    write_config,
)
from mcp import Client

pytestmark = pytest.mark.live

HOSTILE = HERE / "servers" / "hostile_upstream.py"


def hostile(name: str, *args: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(HOSTILE), "--name", name, *args]}


def client(url: str, **kw: Any) -> Client:
    return Client(url, mode="legacy", cache=None,
                  client_info=types.Implementation(name="pytest-hostile", version="1"), **kw)


async def call(c: Client, name: str, arguments: dict[str, Any] | None = None) -> Any:
    return await c.call_tool("tool_call", {"name": name, "arguments": arguments or {}})


async def test_bad_upstream_entries_are_skipped_and_each_name_runs_the_tool_it_shows(
        tmp_path: Path) -> None:
    """The gateway listed a live server's tools without the entry checks every other listing
    gets: a name with control characters, a 10,000-character name, a 300 kB description and
    a schema 80 levels deep were all offered (the description came back whole from
    tool_describe), and of two tools whose names collide once sanitised (``get.item``,
    ``get_item``; servers ``a.b`` and ``a_b``) the listing showed the first while tool_call
    ran the second."""
    config = write_config(tmp_path / "servers.json", {
        "h": hostile("h", "--odd-names", "--long-description", "300000"),
        "a.b": hostile("first"),
        "a_b": hostile("second"),
    })
    events = tmp_path / "events.jsonl"
    proc, url = start_http_gateway([str(config)], "--events", str(events))
    try:
        async with client(url) as c:
            tools = (await c.list_tools()).tools
            listing = next(t for t in tools if t.name == "tool_search").description or ""
            described = json.loads(text_of(await c.call_tool(
                "tool_describe", {"name": "mcp__h__get_item"})))
            assert described["description"] == "Get one item (dot)."
            assert text_of(await call(c, "mcp__h__get_item")) == "dot"
            assert text_of(await call(c, "mcp__a_b__whoami")) == "first"
            for hidden in ("mcp__h__deepschema", "mcp__h__verbose"):
                reply = await c.call_tool("tool_describe", {"name": hidden})
                assert reply.is_error and len(text_of(reply)) < 1000
        assert "bell" not in listing and "nnnnnnnnnn" not in listing
        assert "mcp__h__oddschema" in listing  # odd but usable: offered
        await events_when(events, lambda rs: any(e.get("tool") == "mcp__a_b__whoami"
                                                 for e in rs))
    finally:
        err = stop(proc)
    for why in ("exposed name 'mcp__h__get_item' already belongs", "control characters",
                "name is too long", "nested too deeply", "description is too large",
                "exposed name 'mcp__a_b__whoami' already belongs"):
        assert why in err, why
