"""An upstream MCPServer over streamable HTTP (the official SDK, uvicorn) whose every HTTP
answer a file can spoil: ``ok`` (or no file), ``401``, ``500``, or ``close`` (a 200 event
stream that ends with no message in it)."""

from __future__ import annotations

import argparse
from pathlib import Path

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--mode-file", required=True)
OPTS = parser.parse_args()
MODE = Path(OPTS.mode_file)

server = MCPServer("webby", version="1.2.3")


@server.tool(description="Add two integers and return the sum.")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Sleep for some seconds, then answer.")
async def nap(seconds: float) -> str:
    await anyio.sleep(seconds)
    return f"slept {seconds}"


inner = server.streamable_http_app()


async def app(scope, receive, send):  # type: ignore[no-untyped-def]
    mode = MODE.read_text().strip() if MODE.exists() else "ok"
    if scope["type"] != "http" or mode == "ok":
        await inner(scope, receive, send)
        return
    if mode == "close":
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        await send({"type": "http.response.body", "body": b""})
        return
    status = int(mode)
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": f"status {status} on purpose".encode()})


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=OPTS.port, log_level="warning")
