"""The words ``--help`` uses on every command: what a SOURCE is, the shared options, and a
subcommand whose one-line summary also opens its own ``--help``."""

from __future__ import annotations

import argparse
from typing import Any

#: What a SOURCE is, for every command's --help.
SOURCE_HELP = ("a catalog file, a sample name (toolsearch samples), a Hermes config.yaml, an MCP "
               "client config (Claude Desktop, Cursor, VS Code), a tool dump or a folder of "
               "them; several are merged")
TIMEOUT_HELP = "seconds each live MCP server has to start and list its tools (default 15)"
JSON_HELP = "print one JSON object instead of text (default: text)"
THEME_HELP = "the app's colours: ops-dark, ops-light or ops-high-contrast (default: ops-dark)"


def add_command(sub: Any, name: str, does: str, note: str = "", **kwargs: Any
                ) -> argparse.ArgumentParser:
    """Subcommand *name* of *sub*: *does* (what it does, lower case, no full stop) is its line
    in the parent's ``--help`` and, as a sentence, the opening of its own; *note* follows
    it in both."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=does + note, description=does[0].upper() + does[1:] + note + ".", **kwargs)
    return parser
