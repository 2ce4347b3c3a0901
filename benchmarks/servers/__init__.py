"""Small MCP servers (written with the official SDK) used by the attach benchmark and tests.

Each module is a standalone script: ``python <path to module>.py [options]``. Running it by
path (see :func:`server_command`) keeps the ``toolsearch`` package out of the server.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def server_command(module: str, *args: str) -> tuple[str, tuple[str, ...]]:
    """``(command, args)`` that starts bench server *module* over stdio."""
    return sys.executable, (str(HERE / f"{module}.py"), *args)
