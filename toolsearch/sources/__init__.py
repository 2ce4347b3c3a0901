"""Tool sources: catalog files, Hermes and client configs, live MCP servers."""

from __future__ import annotations

from toolsearch.sources.errors import SourceError

__all__ = ["SourceError"]
