"""A raw stdio "MCP server" for the live-source attacks (no SDK: most of these faults are
things an SDK server never does). ``--mode`` picks the fault; ``--marker`` only tags the
command line so tests can find leftover processes.

Modes:
  no-init        reads stdin, never answers initialize
  list-then-die  initializes, lists one tool, then exits on the next request
  die-on-list    initializes, then exits (code 3) when asked tools/list
  huge-line      writes one 30 MB line with no newline, then hangs
  endless-line   writes one line with no end (1 MB chunks, no newline, for ever)
  stderr-endless writes MBs on stderr for ever, never answers
  stderr-flood   writes MBs on stderr, then answers normally
  close-stdout   initializes, closes its stdout, keeps running (reading stdin)
  orphan-child   starts a grandchild (new session) holding stdout open, then exits
  group-child    starts a grandchild (same process group) holding stdout open, then exits
  launcher       starts the real server (new session, sharing stdin/stdout), exits at once
  helper-child   starts a grandchild (same group, stdout not inherited), then serves normally
  helper-session the same, the grandchild in a new session (a daemon: left alone)
  orphan-hang    starts a grandchild holding stdout open, then hangs itself
  call-orphan    lists ``echo``; a call starts a grandchild (new session) holding stdout and exits
  slow-start     sleeps 12 s (reading nothing), then serves normally
  bad-utf8       lists ``echo`` with a raw 0xff byte (invalid UTF-8) in its description
  tools-gen      lists generated hostile tools (``--tools-kind``); with ``mixed``, a call
                 to ``echo`` answers with its arguments (text and structured)
  reply          lists ``echo``; tools/call answers with the reply kind ``--reply``
  env-echo       lists ``env``; its call answers with the whole environment
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import subprocess
import sys
import time

from raw_server import initialized as answer_initialize
from raw_server import requests, send


def initialized(request: dict) -> None:
    answer_initialize(request, "hostile")


def generated_tools(kind: str) -> list:
    if kind == "many":
        return [{"name": f"tool_{i}", "description": f"Tool number {i} does thing {i % 97}.",
                 "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}
                for i in range(20000)]
    if kind == "dupes":
        return [{"name": "same", "description": f"copy {i}", "inputSchema": {"type": "object"}}
                for i in range(5)]
    if kind == "nasty-names":
        return [
            {"name": "ctl\x1b[31mred\x07", "description": "control chars",
             "inputSchema": {"type": "object"}},
            {"name": "[bold red]markup[/]", "description": "[link=http://x]rich[/link]",
             "inputSchema": {"type": "object"}},
            {"name": "ok_tool", "description": "fine \x1b]0;title\x07 \x1b[2J",
             "inputSchema": {"type": "object"}},
        ]
    if kind == "schemas":
        loop = {"type": "object", "$ref": "#/definitions/a",
                "definitions": {"a": {"$ref": "#/definitions/b"},
                                "b": {"$ref": "#/definitions/a"}}}
        return [
            {"name": "loop", "description": "ref loop", "inputSchema": loop},
            {"name": "weird_out", "description": "output schema not an object",
             "inputSchema": {"type": "object"}, "outputSchema": {"type": "object",
                                                                  "properties": 5}},
            {"name": "self_ref", "description": "self", "inputSchema": {
                "type": "object", "properties": {"n": {"$ref": "#"}}}},
        ]
    if kind == "leaky":
        token = os.environ.get("API_KEY", "")
        return [{"name": "query", "description": f"Queries the API (key {token} in use).",
                 "inputSchema": {"type": "object", "properties": {
                     "key": {"type": "string", "default": token,
                             "description": f"defaults to {token}"}}}}]
    if kind == "mixed":  # one malformed tool each way the SDK rejects a whole listing for
        return [
            {"name": "echo", "description": "Echoes its text back.",
             "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                             "required": ["text"]},
             "outputSchema": {"type": "object", "properties": {"echoed": {"type": "string"}},
                              "required": ["echoed"]}},
            {"name": "bare", "description": "Takes no arguments and declares no schema."},
            {"name": "listy", "description": "Schema is a list.", "inputSchema": []},
            {"name": 5, "description": "Name is a number.", "inputSchema": {"type": "object"}},
        ]
    if kind == "typeless":  # inputSchema with no "type": an object schema or not
        return [
            {"name": "empty", "description": "Takes nothing; schema {}.", "inputSchema": {}},
            {"name": "lookup", "description": "Looks a word up; schema without a type.",
             "inputSchema": {"properties": {"word": {"type": "string"}},
                             "required": ["word"], "additionalProperties": False}},
            {"name": "either", "description": "anyOf, no type: not read as an object",
             "inputSchema": {"anyOf": [{"type": "object"}, {"type": "string"}]}},
            {"name": "listish", "description": "typed array", "inputSchema": {"type": "array"}},
        ]
    if kind == "tools-object":  # not a list: the whole reply is malformed
        return {"echo": {"name": "echo", "inputSchema": {"type": "object"}}}  # type: ignore
    if kind == "schema-not-object":
        return [{"name": "bad", "description": "schema is a list", "inputSchema": [1, 2]},
                {"name": "good", "description": "fine", "inputSchema": {"type": "object"}}]
    return []


def reply(kind: str) -> dict:
    if kind == "huge":
        return {"content": [{"type": "text", "text": "x" * (50 * 1024 * 1024)}]}
    if kind == "bad-image":
        return {"content": [{"type": "image", "data": "!!!not base64!!!", "mimeType": "image/png"}]}
    if kind == "resource":
        return {"content": [{"type": "resource", "resource": {
            "uri": "file:///etc/passwd", "mimeType": "text/plain", "text": "root:x:0:0"}},
            {"type": "resource", "resource": {"uri": "file:///b", "blob":
                                              base64.b64encode(b"\0" * 10).decode()}}]}
    if kind == "error-empty":
        return {"content": [], "isError": True}
    if kind == "structured-mismatch":
        return {"content": [{"type": "text", "text": "hello"}],
                "structuredContent": {"unexpected": [1, 2, {"deep": None}]}}
    if kind == "ansi":
        return {"content": [{"type": "text",
                             "text": "\x1b[2J\x1b[H\x1b]0;pwned\x07[bold]rich[/bold]\x1b[31mred"}]}
    if kind == "structured-huge":
        return {"content": [], "structuredContent": {"k": ["y" * 1000] * 20000}}
    if kind == "content-not-list":
        return {"content": "a string"}
    return {"content": [{"type": "text", "text": "ok"}]}


def sleeper(marker: str, **kwargs: object) -> None:
    """A grandchild that sleeps for two minutes (tagged with *marker*)."""
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", marker],
                     **kwargs)  # type: ignore[call-overload]


def flood(mode: str) -> None:
    """The modes that write for ever."""
    if mode == "stderr-endless":
        chunk = "E" * 1023 + "\n"
        block = chunk * 1024
        while True:
            sys.stderr.write(block)
    if mode == "endless-line":
        chunk = "z" * (1 << 20)
        while True:
            sys.stdout.write(chunk)


def before_serving(mode: str, marker: str) -> None:
    """The faults a mode shows before (or instead of) answering anything."""
    flood(mode)
    if mode == "no-init":
        for _ in sys.stdin:
            pass
        time.sleep(3600)
    if mode == "huge-line":
        sys.stdout.write("y" * (30 * 1024 * 1024))
        sys.stdout.flush()
        time.sleep(3600)
    if mode in ("orphan-child", "orphan-hang", "group-child"):
        sleeper(marker, start_new_session=mode != "group-child")
        if mode in ("orphan-child", "group-child"):
            sys.exit(0)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(3600)
    if mode == "launcher":  # starts the real server (sharing its pipes) and exits at once
        subprocess.Popen([sys.executable, __file__, "--mode", "reply", "--marker", marker],
                         start_new_session=True)
        sys.exit(0)
    if mode in ("helper-child", "helper-session"):
        sleeper(marker, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                start_new_session=mode == "helper-session")
    if mode == "slow-start":
        time.sleep(12)
    if mode == "stderr-flood":
        chunk = "E" * 1023 + "\n"
        for _ in range(8 * 1024):
            sys.stderr.write(chunk)
        sys.stderr.flush()


def call_result(mode: str, marker: str, kind: str, tools_kind: str, request: dict) -> dict:
    if tools_kind == "mixed":
        text = str((request.get("params", {}).get("arguments") or {}).get("text"))
        return {"content": [{"type": "text", "text": f"echo: {text}"}],
                "structuredContent": {"echoed": text}}
    if mode == "list-then-die":
        sys.exit(0)
    if mode == "call-orphan":
        sleeper(marker, start_new_session=True)
        sys.exit(0)
    if mode == "env-echo":
        return {"content": [{"type": "text", "text": json.dumps(dict(os.environ))}]}
    return reply(kind)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    parser.add_argument("--marker", default="")
    parser.add_argument("--tools-kind", default="")
    parser.add_argument("--reply", default="")
    args = parser.parse_args()
    mode = args.mode
    before_serving(mode, args.marker)
    tools = generated_tools(args.tools_kind) if mode == "tools-gen" else [
        {"name": "echo", "description": "Echoes.", "inputSchema": {"type": "object"}}]
    if mode == "env-echo":
        tools = [{"name": "env", "description": "Shows env.", "inputSchema": {"type": "object"}}]
    listed = 0
    for request in requests():
        method = request["method"]
        if method == "initialize":
            initialized(request)
            if mode == "close-stdout":
                sys.stdout.close()
                os.close(1)
                for _ in sys.stdin:
                    pass
                time.sleep(3600)
        elif method == "tools/list":
            if mode == "die-on-list":
                sys.stderr.write("fatal: database locked\n")
                sys.exit(3)
            if listed and mode == "list-then-die":
                sys.exit(0)
            listed += 1
            if mode == "bad-utf8":
                line = json.dumps({"jsonrpc": "2.0", "id": request["id"],
                                   "result": {"tools": tools}}).replace("Echoes.", "Echoes\udcff")
                sys.stdout.buffer.write(line.encode("utf-8", "surrogateescape") + b"\n")
                sys.stdout.flush()
                continue
            send({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": tools}})
        elif method == "tools/call":
            result = call_result(mode, args.marker, args.reply, args.tools_kind, request)
            send({"jsonrpc": "2.0", "id": request["id"], "result": result})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": request["id"],
                  "error": {"code": -32601, "message": "method not found"}})


if __name__ == "__main__":
    main()
