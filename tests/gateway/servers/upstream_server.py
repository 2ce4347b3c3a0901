"""An upstream MCPServer for the gateway tests (stdio): plain, image and structured replies,
a tool error, a slow tool, a tool that kills the server, and one that adds a tool at run time
and announces it with ``notifications/tools/list_changed``."""

from __future__ import annotations

import argparse
import base64
import os
import time

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from pydantic import BaseModel

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="upstream")
parser.add_argument("--marker", default="")
parser.add_argument("--state", default="", help="file whose existence means 'grown'")
OPTS = parser.parse_args()

server = MCPServer(OPTS.name, version="1.0.0")
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


class Forecast(BaseModel):
    city: str
    celsius: float


@server.tool(description="Add two integers and return the sum.")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Echo a message back, unchanged.")
def echo(message: str, api_key: str = "") -> str:
    return message


@server.tool(description="Measure a text: its length in characters.")
def measure(text: str) -> int:
    return len(text)


@server.tool(description="Return a one-pixel PNG image with a caption.")
def pixel() -> list:
    return ["one red pixel", Image(data=PNG, format="png")]


@server.tool(description="Weather forecast for a city, as structured content.")
def forecast(city: str) -> Forecast:
    return Forecast(city=city, celsius=21.5)


@server.tool(description="Always fails with a tool error.")
def explode(reason: str = "boom") -> str:
    raise ToolError(f"exploded: {reason}")


@server.tool(description="Sleep for some seconds, then answer.")
async def nap(seconds: float) -> str:
    await anyio.sleep(seconds)
    return f"slept {seconds}"


@server.tool(description="Terminate this server process at once.")
def die() -> str:
    os._exit(3)


def _wave(greeting: str = "hello") -> str:
    return f"{greeting} from a tool that appeared later"


@server.tool(description="Add the wave_hand tool to this server and announce it.")
async def grow(ctx: Context) -> str:
    if OPTS.state:
        open(OPTS.state, "w").close()
    _add_wave()
    await ctx.notify_tools_changed()
    try:
        await ctx.request_context.session.send_tool_list_changed()
    except Exception:  # noqa: BLE001 - the 2026 wire has no standalone channel
        pass
    return "grown"


def _add_wave() -> None:
    server.add_tool(_wave, name="wave_hand",
                    description="Wave a hand at someone with a greeting (added at run time).")


if OPTS.state and os.path.exists(OPTS.state):
    _add_wave()  # a restarted server keeps what it grew

if __name__ == "__main__":
    time.sleep(0)
    server.run()
