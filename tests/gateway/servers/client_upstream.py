"""An upstream MCPServer (stdio, the official SDK) for the gateway tests that use the gateway as
a client would: audio, an embedded resource and a resource link, structured content with an
output schema, progress and log messages during a long call, a call that notes being
cancelled, a slow start, and a tool set read from a file at start (a restart can change it)."""

from __future__ import annotations

import argparse
import base64
import os
import sys
import time
from pathlib import Path

import anyio
import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="rich")
parser.add_argument("--start-delay", type=float, default=0.0,
                    help="seconds to sleep before speaking MCP")
parser.add_argument("--exit-at-start", type=int, default=None,
                    help="exit at once with this status (after a line on stderr)")
parser.add_argument("--extra-tools", default="",
                    help="file: each line names an extra tool this run offers (read at start)")
parser.add_argument("--notes", default="", help="append what happened (cancelled, ...) here")
parser.add_argument("--once", default="",
                    help="file: `vanish` creates it, and a start that finds it fails")
OPTS = parser.parse_args()

if OPTS.once and os.path.exists(OPTS.once):
    print(f"{OPTS.name}: cannot start again: {OPTS.once} exists", file=sys.stderr)
    sys.exit(2)
if OPTS.exit_at_start is not None:
    print(f"{OPTS.name}: cannot start (status {OPTS.exit_at_start})", file=sys.stderr)
    sys.exit(OPTS.exit_at_start)
if OPTS.start_delay:
    time.sleep(OPTS.start_delay)

server = MCPServer(OPTS.name, version="2.0.0")
WAV = base64.b64encode(b"RIFF\x24\x00\x00\x00WAVEfmt ").decode()


def note(text: str) -> None:
    if OPTS.notes:
        with open(OPTS.notes, "a") as handle:
            handle.write(text + "\n")


class Reading(BaseModel):
    sensor: str
    value: float


@server.tool(description="Return a short audio clip.")
def clip() -> types.CallToolResult:
    return types.CallToolResult(content=[
        types.TextContent(type="text", text="a clip"),
        types.AudioContent(type="audio", data=WAV, mime_type="audio/wav"),
    ])


@server.tool(description="Return a document as an embedded resource and a link to another.")
def document() -> types.CallToolResult:
    return types.CallToolResult(content=[
        types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
            uri="file:///notes/a.txt", mime_type="text/plain", text="the notes")),
        types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
            uri="file:///notes/b.bin", mime_type="application/octet-stream",
            blob=base64.b64encode(b"\x00\x01\x02").decode())),
        types.ResourceLink(type="resource_link", uri="file:///notes/c.txt", name="c.txt",
                           mime_type="text/plain", description="the other notes"),
    ])


@server.tool(description="Read a sensor, as structured content with an output schema.",
             title="Sensor reader",
             annotations=types.ToolAnnotations(read_only_hint=True, destructive_hint=False))
def sensor(sensor: str) -> Reading:
    return Reading(sensor=sensor, value=3.25)


@server.tool(description="Fail with isError set and structured details.")
def refuse() -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text="refused: no")],
                                is_error=True)


@server.tool(description="Fail with an error that quotes this server's token.")
def leak() -> str:
    raise ToolError(f"the token {os.environ.get('CLIENT_UPSTREAM_TOKEN', '')} was refused")


@server.tool(description="Work in steps, reporting progress and logging each step.")
async def work(ctx: Context, steps: int = 3) -> str:
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
        await ctx.info(f"working: step {step}")
        await anyio.sleep(0.1)
    return f"worked {steps} steps"


@server.tool(description="Wait a long time; note whether the wait was cancelled.")
async def wait(seconds: float = 60.0) -> str:
    note("wait started")
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        note("wait cancelled")
        raise
    note("wait finished")
    return "waited"


@server.tool(description="Exit this server process in the middle of the call.")
async def vanish(ctx: Context) -> str:
    await anyio.sleep(0.2)
    if OPTS.once:
        open(OPTS.once, "w").close()
    print(f"{OPTS.name}: fatal error: the disk is on fire", file=sys.stderr, flush=True)
    os._exit(4)


def _extra(name: str) -> None:
    def run() -> str:
        return f"{name} ran"

    server.add_tool(run, name=name, description=f"The extra tool {name}, offered this run.")


if OPTS.extra_tools and Path(OPTS.extra_tools).exists():
    for line in Path(OPTS.extra_tools).read_text().split():
        _extra(line)

if __name__ == "__main__":
    server.run()
