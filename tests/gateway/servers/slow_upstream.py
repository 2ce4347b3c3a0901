"""An upstream MCPServer (the official SDK) that answers its handshake only after ``--delay``
seconds: over stdio it reads nothing until then; over streamable HTTP (``--port``) its
``initialize`` request waits that long."""

from __future__ import annotations

import argparse
import time

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer

parser = argparse.ArgumentParser()
parser.add_argument("--delay", type=float, required=True)
parser.add_argument("--port", type=int, default=0)
OPTS = parser.parse_args()

server = MCPServer("sleepy", version="0.1")


@server.tool(description="Answer with a greeting from the slow server.")
def hello(who: str) -> str:
    return f"hello {who} from sleepy"


if not OPTS.port:
    time.sleep(OPTS.delay)
    server.run("stdio")
else:
    inner = server.streamable_http_app()
    woke = anyio.Event()

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "http" and not woke.is_set():
            await anyio.sleep(OPTS.delay)  # the first request (initialize) waits
            woke.set()
        await inner(scope, receive, send)

    uvicorn.run(app, host="127.0.0.1", port=OPTS.port, log_level="warning", lifespan="on")
