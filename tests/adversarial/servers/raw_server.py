"""A raw stdio "MCP server" that misbehaves on purpose (no SDK: it needs to write things an
SDK server never would). ``--mode`` picks the misbehaviour; ``--marker`` only tags the
command line so tests can find leftover processes.

Modes:
  rpc-error     answers initialize with a JSON-RPC error (-32000 license expired ...)
  garbage       writes non-JSON lines on stdout (one holds $API_TOKEN), then goes silent
  silent        reads stdin, never answers
  ignore-term   never answers and ignores SIGTERM
  slow-list     initializes, then never answers tools/list
  hang-call     initializes, lists one tool ``wait``, never answers tools/call
  tools-json    initializes and lists the tools in the JSON file given with --tools
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def requests():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "id" in message and "method" in message:
            yield message


def initialized(request: dict, name: str = "raw") -> None:
    send({"jsonrpc": "2.0", "id": request["id"], "result": {
        "protocolVersion": request.get("params", {}).get("protocolVersion", "2025-06-18"),
        "capabilities": {"tools": {}},
        "serverInfo": {"name": name, "version": "1.0"}}})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    parser.add_argument("--marker", default="")
    parser.add_argument("--tools", default="")
    args = parser.parse_args()
    mode = args.mode
    if mode == "ignore-term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if mode == "garbage":
        token = os.environ.get("API_TOKEN", "")
        for i in range(200):
            sys.stdout.write(f"debug: using token {token} (line {i})\n")
        sys.stdout.flush()
    if mode in ("silent", "ignore-term", "garbage"):
        while True:
            time.sleep(1)
    tools = json.load(open(args.tools)) if args.tools else [
        {"name": "wait", "description": "Waits.", "inputSchema": {"type": "object"}}]
    for request in requests():
        answer(request, mode, tools)


def answer(request: dict, mode: str, tools: list) -> None:
    method = request["method"]
    if mode == "rpc-error":
        send({"jsonrpc": "2.0", "id": request["id"],
              "error": {"code": -32000, "message": "license expired for org acme"}})
    elif method == "initialize":
        initialized(request)
    elif method == "tools/list":
        if mode != "slow-list":
            send({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": tools}})
    elif method == "tools/call":
        if mode != "hang-call":
            send({"jsonrpc": "2.0", "id": request["id"], "result": {
                "content": [{"type": "text", "text": json.dumps(request["params"])}]}})
    else:
        send({"jsonrpc": "2.0", "id": request["id"], "result": {}})


if __name__ == "__main__":
    main()
