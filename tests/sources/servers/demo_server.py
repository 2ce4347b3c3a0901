"""A small MCPServer with a few tools, over stdio or (``--http PORT``) streamable HTTP.

``--require-header NAME=VALUE`` makes the HTTP app answer 401 unless that header is sent.
"""

from __future__ import annotations

import argparse
import os

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("demo", version="3.1.4")


@server.tool(description="Add two integers and return the sum.")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Echo a message back, unchanged.")
def echo(message: str) -> str:
    return message


@server.tool(description="Always fails with a tool error.")
def explode(reason: str = "boom") -> str:
    raise ToolError(f"exploded: {reason}")


@server.tool(description="Report whether an environment variable is set (never its value).")
def has_env(name: str) -> str:
    return "set" if os.environ.get(name) else "unset"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=0)
    parser.add_argument("--require-header", default="")
    parser.add_argument("--marker", default="")
    opts = parser.parse_args()
    if not opts.http:
        server.run()
        return
    import uvicorn

    app = server.streamable_http_app()
    if opts.require_header:
        name, _, value = opts.require_header.partition("=")
        inner = app

        async def app(scope, receive, send):  # type: ignore[no-redef]
            if scope["type"] == "http":
                headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
                if headers.get(name.lower()) != value:
                    await send({"type": "http.response.start", "status": 401,
                                "headers": [(b"content-type", b"text/plain")]})
                    await send({"type": "http.response.body", "body": b"unauthorized"})
                    return
            await inner(scope, receive, send)

    uvicorn.run(app, host="127.0.0.1", port=opts.http, log_level="warning")


if __name__ == "__main__":
    main()
