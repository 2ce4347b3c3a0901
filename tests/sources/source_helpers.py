"""Helpers for the source tests: our SDK test servers, the installed reference servers,
HTTP servers on free ports, and a leak check for child processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.servers import server_command
from toolsearch.sources.live import ServerConfig

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
REPO = HERE.parents[1]
REFERENCE_DIR = Path(os.environ.get("TOOLSEARCH_TEST_SERVERS_DIR",
                                    REPO / ".ci" / ".work" / "mcp-servers"))
REAL_DUMPS = REPO.parent / "shared" / "catalogs" / "real"
INSTALL_HINT = "run .ci/install-test-servers.sh to install the reference MCP servers"


def script_server(name: str, script: str, *args: str, marker: str = "",
                  **kw: object) -> ServerConfig:
    """A stdio ServerConfig running ``tests/sources/servers/<script>.py``."""
    extra = ("--marker", marker) if marker else ()
    return ServerConfig(name=name, command=sys.executable,
                        args=(str(SERVERS / f"{script}.py"), *args, *extra), **kw)  # type: ignore[arg-type]


def bench_server(name: str, *args: str, marker: str = "") -> ServerConfig:
    extra = ("--marker", marker) if marker else ()
    command, argv = server_command("paged", "--name", name, *args, *extra)
    return ServerConfig(name=name, command=command, args=argv)


def processes_with(marker: str) -> list[int]:
    """Live (non-zombie) processes whose command line contains *marker*."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            status = (entry / "status").read_text()
        except OSError:
            continue
        if marker.encode() in cmdline and "\nState:\tZ" not in status:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether process *pid* runs (a zombie, waiting for its parent to reap it, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def start_http_server(*args: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVERS / "demo_server.py"), "--http", str(port), *args],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    if not wait_until(lambda: listening(port) or proc.poll() is not None, 20.0) \
            or proc.poll() is not None:
        proc.kill()
        raise RuntimeError("the HTTP test server did not start")
    return proc, f"http://127.0.0.1:{port}/mcp"


def stop(proc: subprocess.Popen[bytes], grace: float = 5) -> None:
    """SIGTERM, *grace* seconds, then SIGKILL."""
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


HTTP_TOKEN = "Bearer http-SECRET-7f3a9c2e1d"


def servers_config(folder: Path, kind: str, entries: dict[str, object]) -> Path:
    """*entries* written as an operator's file in *folder*: a client config (``mcpServers``,
    *kind* ``client``) or a Hermes ``config.yaml`` (``mcp_servers``, *kind* ``hermes``)."""
    import json

    import yaml

    if kind == "client":
        path = folder / "mcp.json"
        path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    else:
        path = folder / "config.yaml"
        path.write_text(yaml.safe_dump({"mcp_servers": entries}), encoding="utf-8")
    return path
