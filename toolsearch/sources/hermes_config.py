"""Hermes ``config.yaml``: its ``mcp_servers`` block and its ``tools.tool_search`` block.

```yaml
mcp_servers:
  github:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-github"]
    env: {GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}"}
    tools: {include: [create_issue, list_issues]}
  remote:
    url: https://mcp.example.com/mcp
    headers: {Authorization: "Bearer ..."}
    connect_timeout: 30
  old:
    command: uvx
    args: [some-server]
    enabled: false          # skipped
tools:
  tool_search: {threshold_pct: 5, listing_max_tokens: 4000}
```
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .client_config import servers_from_block
from .live import ServerConfig

#: Top-level keys that only a Hermes config has (used by kind detection).
HERMES_KEYS: tuple[str, ...] = ("mcp_servers", "model", "toolsets", "terminal", "memory",
                                "agent", "display", "compression", "platform_toolsets")


@dataclass(frozen=True)
class HermesConfig:
    """What toolsearch reads from a Hermes config."""

    path: Path
    servers: tuple[ServerConfig, ...] = ()
    tool_search: Mapping[str, Any] | None = None
    warnings: tuple[str, ...] = ()


def default_hermes_config_path() -> Path:
    """``$HERMES_HOME/config.yaml``, or ``~/.hermes/config.yaml``."""
    home = os.environ.get("HERMES_HOME")
    return (Path(home) if home else Path.home() / ".hermes") / "config.yaml"


def is_hermes_config(data: Any) -> bool:
    """A mapping with ``mcp_servers``, or with a ``tools`` mapping holding ``tool_search``
    (and no catalog ``toolsets`` list)."""
    if not isinstance(data, Mapping) or isinstance(data.get("toolsets"), list):
        return False
    if isinstance(data.get("mcp_servers"), Mapping):
        return True
    tools = data.get("tools")
    return isinstance(tools, Mapping) and "tool_search" in tools


def tool_search_block(data: Mapping[str, Any], source: str = "config.yaml") -> tuple[
        Mapping[str, Any] | None, tuple[str, ...]]:
    """The raw ``tools.tool_search`` value as a mapping (legacy ``true``/``false`` become
    ``{}`` / ``{enabled: off}``), or None when absent."""
    tools = data.get("tools")
    if not isinstance(tools, Mapping) or "tool_search" not in tools:
        return None, ()
    raw = tools["tool_search"]
    if isinstance(raw, Mapping):
        return {str(k): v for k, v in raw.items()}, ()
    if raw is None or raw is True:
        return {}, ()
    if raw is False:
        return {"enabled": "off"}, ()
    # Hermes (REFERENCE §2): any other non-mapping, a quoted "off" included, is the defaults
    # with enabled auto; reading "off" as off would show tool search off where Hermes runs it.
    text = str(raw).strip().lower()
    word = {"true": "on", "yes": "on", "1": "on", "false": "off", "no": "off", "0": "off"}.get(
        text, text)
    if word in ("on", "off", "auto"):
        return None, (f"{source}: tools.tool_search is {raw!r}, not a mapping: Hermes reads it "
                      f"as the defaults (enabled auto); to set it, write `enabled: {word}` "
                      "under tools.tool_search",)
    return None, (f"{source}: tools.tool_search ignored: expected a mapping, "
                  f"got {type(raw).__name__}",)


def parse_hermes_config(data: Mapping[str, Any], path: Path) -> HermesConfig:
    """Servers (``enabled: false`` skipped) and the tool_search block of a parsed config."""
    source = str(path)
    servers, warnings = servers_from_block(data.get("mcp_servers"), source=source,
                                           key="mcp_servers")
    block, more = tool_search_block(data, path.name)
    return HermesConfig(path=path, servers=servers, tool_search=block,
                        warnings=warnings + more)
