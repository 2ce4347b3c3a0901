"""A hostile but protocol-correct upstream MCPServer for the gateway tests (stdio, the official
SDK): it floods ``notifications/tools/list_changed``, answers with huge replies, lists many
tools or huge descriptions, and offers tools with awkward names and schemas."""

from __future__ import annotations

import argparse
import os

import anyio
from mcp.server.mcpserver import Context, MCPServer

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="hostile")
parser.add_argument("--marker", default="")
parser.add_argument("--many-tools", type=int, default=0, help="add this many filler tools")
parser.add_argument("--long-description", type=int, default=0,
                    help="one tool whose description has this many characters")
parser.add_argument("--odd-names", action="store_true",
                    help="tools named 'get.item' and 'get_item', one with control characters, "
                         "one of 10,000 characters, an odd schema and one 80 levels deep")
parser.add_argument("--relists", default="", help="append a line to this file on each tools/list")
parser.add_argument("--slow-list", type=float, default=0.0,
                    help="seconds each tools/list takes to answer")
OPTS = parser.parse_args()

server = MCPServer(OPTS.name, version="6.6.6")


@server.tool(description="Add two integers and return the sum.")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Say which server this is (its --name).")
def whoami() -> str:
    return OPTS.name


@server.tool(description="Reply with a text of this many megabytes.")
def huge_text(megabytes: float) -> str:
    return "x" * int(megabytes * 1_000_000)


@server.tool(description="Reply with this many text content items.")
def many_items(count: int) -> list:
    return [f"item {i}" for i in range(count)]


async def _announce(ctx: Context) -> None:
    await ctx.notify_tools_changed()
    try:
        await ctx.request_context.session.send_tool_list_changed()
    except Exception:  # noqa: BLE001 - the 2026 wire has no standalone channel
        pass


@server.tool(description="Announce tools/list_changed this many times, as fast as it can.")
async def flood(ctx: Context, count: int) -> str:
    for _ in range(count):
        await _announce(ctx)
    return f"flooded {count}"


@server.tool(description="Announce tools/list_changed for this many seconds without a pause.")
async def flood_for(ctx: Context, seconds: float) -> str:
    sent = 0
    with anyio.move_on_after(seconds):
        while True:
            await _announce(ctx)
            sent += 1
            await anyio.sleep(0)
    return f"flooded {sent}"


@server.tool(description="For this many seconds, add or remove a tool and announce it, again "
                         "and again without a pause.")
async def churn(ctx: Context, seconds: float) -> str:
    changes = 0
    with anyio.move_on_after(seconds):
        while True:
            if changes % 2:
                server.remove_tool("churned")
            else:
                server.add_tool(_filler, name="churned", description="Comes and goes.")
            changes += 1
            await _announce(ctx)
            await anyio.sleep(0)
    if changes % 2:
        server.remove_tool("churned")
    return f"changed {changes}"


@server.tool(description="A tool that remove_ephemeral takes away without a word.")
def ephemeral() -> str:
    return "still here"


@server.tool(description="Remove the ephemeral tool, announcing nothing.")
def remove_ephemeral() -> str:
    server.remove_tool("ephemeral")
    return "removed"


def _filler() -> str:
    return "filler"


def _add_copies() -> None:
    tools = server._tool_manager._tools  # noqa: SLF001 - thousands of tools, added quickly
    server.add_tool(_filler, name="filler_0", description="Filler tool number 0.")
    first = tools["filler_0"]
    for i in range(1, OPTS.many_tools):
        name = f"filler_{i}"
        tools[name] = first.model_copy(update={"name": name,
                                               "description": f"Filler tool number {i}."})


if OPTS.many_tools:
    _add_copies()

if OPTS.long_description:
    server.add_tool(_filler, name="verbose", description="word " * (OPTS.long_description // 5))

if OPTS.odd_names:
    def _dot() -> str:
        return "dot"

    def _underscore() -> str:
        return "underscore"

    server.add_tool(_dot, name="get.item", description="Get one item (dot).")
    server.add_tool(_underscore, name="get_item", description="Get one item (underscore).")
    server.add_tool(_filler, name="bell\x07\x1b[2Jname", description="A name with escapes.")
    server.add_tool(_filler, name="n" * 10_000, description="A name of 10,000 characters.")
    tools = server._tool_manager._tools  # noqa: SLF001 - schemas no function would give
    server.add_tool(_filler, name="oddschema", description="Requires a property it lacks.")
    tools["oddschema"].parameters = {"type": "object", "properties": {"a": {"type": "string"}},
                                     "required": ["zzz"], "additionalProperties": 7}
    deep: dict = {"type": "string"}
    for _ in range(40):
        deep = {"type": "object", "properties": {"x": deep}}
    server.add_tool(_filler, name="deepschema", description="A schema 80 levels deep.")
    tools["deepschema"].parameters = deep

if OPTS.relists:
    _list = server.list_tools

    async def _counted() -> list:
        with open(OPTS.relists, "a", encoding="utf-8") as handle:
            handle.write("list\n")
        await anyio.sleep(OPTS.slow_list)
        return await _list()

    server.list_tools = _counted  # type: ignore[method-assign]

if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    server.run()
