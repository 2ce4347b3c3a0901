"""The floor of ``toolsearch bench gateway``: an empty pass-through made of the ``mcp`` SDK only.

A lowlevel SDK ``Server`` over the SDK's own ``stdio_server`` whose ``tools/call`` forwards
the call, as is, to an upstream through one SDK ``Client`` (stdio, the same protocol mode as
the gateway's upstream connections) and returns its reply: no engine, no events, no guards. What it adds over calling the upstream directly is what
the SDK itself costs on the two hops a gateway has; the gateway cannot do much better.

Usage: ``python gateway_floor.py UPSTREAM_SCRIPT``.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio


async def main(upstream: str) -> None:
    import mcp_types as types
    from mcp import Client, StdioServerParameters
    from mcp.server import Server
    from mcp.server.stdio import stdio_server

    params = StdioServerParameters(command=sys.executable, args=[upstream])
    # the protocol mode the gateway's own upstream connections use (the SDK's default, auto:
    # the 2026 wire when the server offers it)
    async with Client(params, cache=None) as up:
        listed = (await up.list_tools()).tools

        async def on_list_tools(ctx: Any, params: Any) -> Any:
            return types.ListToolsResult(tools=listed)

        async def on_call_tool(ctx: Any, params: Any) -> Any:
            return await up.call_tool(params.name, params.arguments or {})

        server = Server("floor", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])
