"""The upstream server of ``toolsearch bench gateway`` (stdio): a fast tool and a 50 ms one."""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import MCPServer

server = MCPServer("benchup", version="1.0.0")


@server.tool(description="Add two integers and return the sum.")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Wait 50 milliseconds, then answer.")
async def wait50() -> str:
    await anyio.sleep(0.05)
    return "done"


if __name__ == "__main__":
    server.run()
