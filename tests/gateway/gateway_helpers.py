"""Helpers for the gateway tests: upstream configs, the gateway as a subprocess (stdio or
HTTP), and the MCP Inspector CLI as a real stdio client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from tests.sources.source_helpers import free_port, listening
from tests.sources.source_helpers import stop as stop_process

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
UPSTREAM = HERE / "servers" / "upstream_server.py"
REFERENCE_DIR = Path(os.environ.get("TOOLSEARCH_TEST_SERVERS_DIR",
                                    REPO / ".ci" / ".work" / "mcp-servers"))
INSTALL_HINT = "run .ci/install-test-servers.sh (installs the MCP Inspector CLI and servers)"


def env() -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = str(REPO) + os.pathsep + out.get("PYTHONPATH", "")
    return out


def upstream_entry(name: str, *args: str, marker: str = "") -> dict[str, Any]:
    extra = ["--marker", marker] if marker else []
    return {"command": sys.executable, "args": [str(UPSTREAM), "--name", name, *args, *extra]}


def write_config(path: Path, servers: dict[str, dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def serve_argv(sources: Sequence[str], *extra: str) -> list[str]:
    return [sys.executable, "-m", "toolsearch", "serve", *sources, *extra]




def send_json(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    """One JSON-RPC message to the stdio gateway *proc*, as one line."""
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def tool_call_message(request_id: int, tool: str,
                      arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``tools/call`` of the bridge's ``tool_call`` for *tool*."""
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
        "name": "tool_call", "arguments": {"name": tool, "arguments": arguments or {}}}}


@contextmanager
def stdio_gateway(config: Path, events: Path,
                  client: str = "pytest") -> Iterator[subprocess.Popen[bytes]]:
    """``toolsearch serve CONFIG`` over stdio (all three pipes), initialized as *client*
    (request id 1); killed on the way out if the test left it running. Its stderr is read
    after the block."""
    proc = subprocess.Popen(serve_argv([str(config)], "--events", str(events)), env=env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None
    try:
        send_json(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": client, "version": "1"}}})
        assert b'"id":1' in proc.stdout.readline()
        send_json(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def start_http_gateway(sources: Sequence[str], *extra: str,
                       extra_env: dict[str, str] | None = None,
                       preexec_fn: Callable[[], Any] | None = None
                       ) -> tuple[subprocess.Popen[bytes], str]:
    """The HTTP gateway on a free port, once it listens; *preexec_fn* runs in the child
    before it starts (a resource limit)."""
    port = free_port()
    proc = subprocess.Popen(serve_argv(sources, "--transport", "http", "--port", str(port),
                                       *extra),
                            env={**env(), **(extra_env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=preexec_fn)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not listening(port):
        time.sleep(0.05)
    if proc.poll() is not None or not listening(port):
        proc.kill()
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise RuntimeError(f"the gateway did not start: {err}")
    return proc, f"http://127.0.0.1:{port}/mcp"


def stop(proc: subprocess.Popen[bytes]) -> str:
    """Stop the process; its stderr (shown by pytest when a test failed)."""
    stop_process(proc, grace=10)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    print(err[-4000:])
    return err


def inspector_bin() -> Path | None:
    path = REFERENCE_DIR / "node_modules" / ".bin" / "mcp-inspector"
    return path if path.exists() else None


def inspector(sources: Sequence[str], *method_args: str, serve_args: Sequence[str] = (),
              timeout: float = 120) -> Any:
    """Run ``mcp-inspector --cli <gateway over stdio> --method ...`` and parse its JSON."""
    binary = inspector_bin()
    assert binary is not None
    argv = [str(binary), "--cli", sys.executable, "-e", f"PYTHONPATH={REPO}",
            "-m", "toolsearch", "serve", *sources, *serve_args, *method_args]
    done = subprocess.run(argv, cwd=REFERENCE_DIR, capture_output=True, text=True,
                          timeout=timeout, env=env())
    assert done.returncode == 0, f"inspector failed: {done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)


def text_of(result: Any) -> str:
    """Joined text blocks of a tool result (an SDK model or the Inspector's JSON)."""
    blocks = result["content"] if isinstance(result, dict) else result.content
    out = []
    for block in blocks:
        kind = block["type"] if isinstance(block, dict) else block.type
        if kind == "text":
            out.append(block["text"] if isinstance(block, dict) else block.text)
    return "\n".join(out)


def read_events(path: Path) -> list[dict[str, Any]]:
    """The events file's complete lines, read as the app follows it: a line the gateway is
    still writing is left out, never half-parsed."""
    data = path.read_bytes() if path.exists() else b""
    whole = data[: data.rfind(b"\n") + 1]
    return [json.loads(line) for line in whole.splitlines() if line.strip()]


async def until(predicate: Callable[[], Any], seconds: float = 15.0) -> None:
    """Wait for *predicate* to hold (polled every 50 ms)."""
    with anyio.fail_after(seconds):
        while not predicate():
            await anyio.sleep(0.05)


async def events_when(path: Path, done: Callable[[list[dict[str, Any]]], Any],
                      seconds: float = 15.0) -> list[dict[str, Any]]:
    """The events file's records once *done* holds for them: a running gateway writes a
    call's record just after its reply, so a test reading at once could be early."""
    await until(lambda: done(read_events(path)), seconds)
    return read_events(path)


def sdk_client(url: Any, name: str, **kw: Any) -> Client:
    """The ``mcp`` SDK's client of a gateway over streamable HTTP, named *name* (the events
    file's ``client``)."""
    return Client(url, mode="legacy", cache=None,
                  client_info=types.Implementation(name=name, version="1"), **kw)
