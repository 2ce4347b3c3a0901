"""Hostile tool names through the gateway: an upstream offering a tool named with 10,000
characters or with terminal escapes (both skipped at listing) and a client naming them
anyway. The gateway's error replies echoed the whole name back (10 kB per reply) and the
events file's line held it whole, with its escapes; now a name is clipped to 200 characters
in the gateway's words and 400 in the events file (``…`` marks the cut), escapes shown as
text and known secrets masked. A tool whose own name is long still runs by it: only what is shown or
recorded is clipped."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from gateway_helpers import (
    events_when,
    sdk_client,
    start_http_gateway,
    stop,
    text_of,
    write_config,
)

from toolsearch.tooldefs import mcp_tool_name

pytestmark = pytest.mark.live

SECRET = "qx7-name-s3cret-4242"
LONG_OWN = "l" * 250  # within the listing's 256-character limit: a real tool
ESCAPED = "bell\x07\x1b[2Jname\x9b31m"

NAMES_SERVER = textwrap.dedent("""
    import json, sys
    from mcp.server.mcpserver import MCPServer

    names = json.loads(sys.argv[1])
    server = MCPServer("names", version="1.0")

    def ran() -> str:
        return "long ok"

    def echo(text: str) -> str:
        return text

    server.add_tool(echo, name="echo", description="Echo the text back.")
    server.add_tool(ran, name=names["long"], description="A tool with a long name.")
    server.add_tool(ran, name=names["huge"], description="A name of 10,000 characters.")
    server.add_tool(ran, name=names["escaped"], description="A name with escapes.")
    server.run("stdio")
""")

UNSAFE = ("\x07", "\x1b", "\x9b")


def _record(records: list[dict[str, Any]], match: Any) -> dict[str, Any]:
    found = [r for r in records if r.get("type") == "call" and match(r)]
    assert len(found) == 1, json.dumps(records)[:3000]
    return found[0]


async def test_hostile_tool_names_are_clipped_in_replies_and_events(tmp_path: Path) -> None:
    server = tmp_path / "names_server.py"
    server.write_text(NAMES_SERVER)
    names = {"long": LONG_OWN, "huge": "n" * 10_000, "escaped": ESCAPED}
    config = write_config(tmp_path / "servers.json", {
        "h": {"command": sys.executable, "args": [str(server), json.dumps(names)],
              "env": {"H_API_TOKEN": SECRET}}})
    events = tmp_path / "events.jsonl"
    proc, url = start_http_gateway([str(config)], "--events", str(events), "--set",
                                   "threshold_pct=0")  # every tool deferred
    huge = "mcp__h__" + "n" * 10_000
    escaped = "mcp__h__" + ESCAPED
    long = mcp_tool_name("h", LONG_OWN)  # cut to 64 characters, with a hash: what routes
    replies: dict[str, str] = {}
    try:
        async with sdk_client(url, "pytest-names") as c:
            for key, tool, args in (
                    ("call huge", "tool_call", {"name": huge, "arguments": {}}),
                    ("describe huge", "tool_describe", {"name": huge}),
                    ("direct huge", huge, {}),
                    ("call escaped", "tool_call", {"name": escaped, "arguments": {}}),
                    ("direct escaped", escaped, {}),
                    ("call secret", "tool_call", {"name": "mcp__h__" + SECRET,
                                                  "arguments": {}}),
                    ("call long", "tool_call", {"name": long, "arguments": {}})):
                replies[key] = text_of(await c.call_tool(tool, args))
        records = await events_when(events, lambda rs: sum(
            r.get("type") == "call" for r in rs) >= len(replies))
    finally:
        stop(proc)
    # the real tool whose own name has 250 characters runs (the upstream is called by that
    # name, never a clipped one), and is recorded under the name the client used
    assert replies["call long"] == "long ok", replies["call long"]
    assert _record(records, lambda r: r.get("tool") == long and r["outcome"] == "ok")
    # each reply of the gateway's own words: short, no escape left, the name clipped
    for key, text in replies.items():
        assert len(text) < 1500, (key, len(text))
        assert not any(c in text for c in UNSAFE), (key, text)
        assert "n" * 201 not in text, key
    for key in ("call huge", "describe huge", "direct huge"):
        assert "mcp__h__" + "n" * 150 in replies[key] and "…" in replies[key], replies[key]
    assert "\\x1b[2J" in replies["direct escaped"], replies["direct escaped"]
    # the events file: the name clipped to 400 with the marker, escapes as text, secrets masked
    for match in (lambda r: r["bridge"] == "tool_call" and r["tool"].startswith("mcp__h__nn"),
                  lambda r: r["bridge"] == "tool_describe" and (r["tool"] or "").startswith(
                      "mcp__h__nn"),
                  lambda r: r["bridge"].startswith("mcp__h__nn")):
        record = _record(records, match)
        clipped = record["tool"] if record["bridge"] in ("tool_call", "tool_describe") \
            else record["bridge"]
        assert len(clipped) == 400 and clipped.endswith("…"), len(clipped)
        assert len(json.dumps(record)) < 3000, len(json.dumps(record))
    shown = _record(records, lambda r: r["bridge"] == "tool_call" and "bell" in (r["tool"] or ""))
    assert shown["tool"].startswith("mcp__h__bell\\x07\\x1b[2Jname"), shown["tool"]
    for record in records:
        line = json.dumps(record, ensure_ascii=False)
        assert SECRET not in line, line[:300]
        for field in ("tool", "bridge", "summary", "client"):
            assert not any(c in (record.get(field) or "") for c in UNSAFE), (field, record)
