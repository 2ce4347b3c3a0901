"""A streamable-HTTP MCP server written by hand (plain ASGI, JSON replies) whose tool
``cut`` answers with a string cut mid-emoji: a lone UTF-16 surrogate escape (``\\ud83d``) in
its JSON text, as a JavaScript server slicing a string can send. The SDK's servers never
emit one, hence the JSON written here."""

from __future__ import annotations

import argparse
import json
from typing import Any

import uvicorn

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
OPTS = parser.parse_args()

TOOL = {"name": "cut", "description": "Answer with a string cut in the middle of an emoji.",
        "inputSchema": {"type": "object", "properties": {}}}
CUT_TEXT = '"smile \\ud83d"'  # the JSON text of the string: a high surrogate, no low one


def answer(request: dict[str, Any]) -> str | None:
    method, rid = request.get("method"), request.get("id")
    if rid is None:
        return None  # a notification
    if method == "initialize":
        version = request.get("params", {}).get("protocolVersion", "2025-06-18")
        result = json.dumps({"protocolVersion": version, "capabilities": {"tools": {}},
                             "serverInfo": {"name": "half-emoji", "version": "1"}})
    elif method == "tools/list":
        result = json.dumps({"tools": [TOOL]})
    elif method == "tools/call":
        result = '{"content": [{"type": "text", "text": ' + CUT_TEXT + '}]}'
    elif method == "ping":
        result = "{}"
    else:
        return json.dumps({"jsonrpc": "2.0", "id": rid,
                           "error": {"code": -32601, "message": f"no method {method}"}})
    return '{"jsonrpc": "2.0", "id": ' + json.dumps(rid) + ', "result": ' + result + '}'


async def app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    reply = answer(json.loads(body)) if scope["method"] == "POST" and body else None
    if scope["method"] != "POST":
        status, payload, kind = 405, b"", b"text/plain"
    elif reply is None:
        status, payload, kind = 202, b"", b"text/plain"
    else:
        status, payload, kind = 200, reply.encode(), b"application/json"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind)]})
    await send({"type": "http.response.body", "body": payload})


uvicorn.run(app, host="127.0.0.1", port=OPTS.port, log_level="warning")
