"""A lowlevel server whose tools/list reply carries a schema the SDK *client* rejects.

The server's own models would refuse to serialise a bad schema, so the reply is corrupted on
its way out: a relay between the server and the stdio transport rewrites the second tool's
``inputSchema`` into a string.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage


async def list_tools(ctx: ServerRequestContext[Any],
                     params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[
        types.Tool(name="fine", description="ok", input_schema={"type": "object"}),
        types.Tool(name="broken", description="gets corrupted", input_schema={"type": "object"}),
    ])


server = Server("bad-schema", version="0.0.1", on_list_tools=list_tools)


def corrupt(message: SessionMessage) -> SessionMessage:
    result = getattr(message.message, "result", None)
    if isinstance(result, dict) and isinstance(result.get("tools"), list):
        for tool in result["tools"]:
            if tool.get("name") == "broken":
                tool["inputSchema"] = "not a schema"
    return message


async def main() -> None:
    async with stdio_server() as (read, write):
        relay_in, relay_out = anyio.create_memory_object_stream[SessionMessage](0)

        async def relay() -> None:
            async with relay_out:
                async for message in relay_out:
                    await write.send(corrupt(message))

        async with anyio.create_task_group() as tg:
            tg.start_soon(relay)
            async with relay_in:
                await server.run(read, relay_in, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
