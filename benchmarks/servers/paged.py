"""A lowlevel MCP server that lists N generated tools over pages of a fixed size.

Usage: ``python paged.py [--tools N] [--page-size P]
[--name NAME] [--delay SECONDS] [--http PORT]``. ``--delay`` sleeps before serving
(a slow start); ``--http`` serves streamable HTTP on 127.0.0.1:PORT instead of stdio.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.server import Server
    from mcp.server.context import ServerRequestContext

VERBS = ("get", "list", "create", "update", "delete", "search", "sync", "export")
NOUNS = ("issue", "page", "record", "invoice", "ticket", "user", "file", "report", "job")


def make_tools(count: int) -> list[types.Tool]:
    import mcp_types as types

    tools = []
    for i in range(count):
        verb, noun = VERBS[i % len(VERBS)], NOUNS[(i // len(VERBS)) % len(NOUNS)]
        tools.append(
            types.Tool(
                name=f"{verb}_{noun}_{i:04d}",
                description=f"{verb.title()} one {noun} (generated tool number {i}).",
                input_schema={
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": f"The {noun} id."},
                        "limit": {"type": "integer", "minimum": 1},
                    },
                    "required": ["id"],
                },
            )
        )
    return tools


def build_server(name: str, count: int, page_size: int) -> Server[Any]:
    import mcp_types as types
    from mcp.server import Server

    tools = make_tools(count)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + page_size
        next_cursor = str(end) if end < len(tools) else None
        return types.ListToolsResult(tools=tools[start:end], next_cursor=next_cursor)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        args = params.arguments or {}
        if "id" not in args:
            return types.CallToolResult(
                content=[types.TextContent(text="missing required argument: id")], is_error=True
            )
        text = f"{params.name} ran with id={args['id']}"
        return types.CallToolResult(content=[types.TextContent(text=text)])

    return Server(name, version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=30)
    parser.add_argument("--page-size", type=int, default=10)
    parser.add_argument("--name", default="paged")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--http", type=int, default=0)
    parser.add_argument("--marker", default="", help="ignored; lets tests find the process")
    opts = parser.parse_args(argv)
    if opts.delay:
        time.sleep(opts.delay)  # a slow start (auth, network, cold cache), before any import
    server = build_server(opts.name, opts.tools, opts.page_size)
    if opts.http:
        import uvicorn

        app = server.streamable_http_app()
        uvicorn.run(app, host="127.0.0.1", port=opts.http, log_level="warning")
        return

    import anyio
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main()
