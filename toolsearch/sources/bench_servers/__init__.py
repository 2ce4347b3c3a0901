"""Small MCP servers (written with the official SDK) used by the attach benchmark and tests.

Each module is runnable as ``python -m toolsearch.sources.bench_servers.<name> [options]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def server_command(module: str, *args: str) -> tuple[str, list[str]]:
    """``(command, args)`` that starts bench server *module* over stdio."""
    return sys.executable, ["-m", f"toolsearch.sources.bench_servers.{module}", *args]
