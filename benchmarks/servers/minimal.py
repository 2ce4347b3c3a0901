"""A standard-library-only MCP stdio server, for benchmarking the *client*.

A server built on the SDK spends about a second of CPU importing it; ten of them starting at
once on a small machine measure the machine, not the client. This one starts in a few
milliseconds, so what the attach benchmark measures is our side: spawning, handshaking and
listing in parallel. It speaks the handshake-era protocol (``initialize``), lists generated
tools over pages, answers ``ping`` and ``tools/call``, and refuses anything else with
"method not found" (which is how an SDK client in ``auto`` mode learns to fall back).

Usage: ``python minimal.py [--tools N] [--page-size P] [--name NAME] [--delay SECONDS]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")


def make_tools(count: int) -> list[dict[str, Any]]:
    return [
        {
            "name": f"tool_{i:04d}",
            "description": f"Generated tool number {i}: fetches one record by id.",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}},
                            "required": ["id"]},
        }
        for i in range(count)
    ]


def answer(method: str, params: dict[str, Any], tools: list[dict[str, Any]], page_size: int,
           name: str) -> dict[str, Any]:
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {"result": {
            "protocolVersion": asked if asked in VERSIONS else VERSIONS[0],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": name, "version": "0.0.1"},
        }}
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        start = int(params.get("cursor") or 0)
        end = start + page_size
        result: dict[str, Any] = {"tools": tools[start:end]}
        if end < len(tools):
            result["nextCursor"] = str(end)
        return {"result": result}
    if method == "tools/call":
        text = f"{params.get('name')} called with {json.dumps(params.get('arguments') or {})}"
        return {"result": {"content": [{"type": "text", "text": text}], "isError": False}}
    return {"error": {"code": -32601, "message": f"Method not found: {method}"}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=20)
    parser.add_argument("--page-size", type=int, default=50)
    parser.add_argument("--name", default="minimal")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--marker", default="")
    opts = parser.parse_args(argv)
    if opts.delay:
        time.sleep(opts.delay)
    tools = make_tools(opts.tools)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue  # notifications and responses need no answer
        params = message.get("params") or {}
        reply = {"jsonrpc": "2.0", "id": message["id"],
                 **answer(message["method"], params, tools, opts.page_size, opts.name)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
