"""toolsearch: a pure-Python engine for Hermes-style progressive tool disclosure.

The engine never imports textual, rich or the ``tui`` package (a test enforces it). The
Hermes-named functions are importable from the package itself, e.g.
``from toolsearch import assemble_tool_defs``; they are loaded on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "ToolSearchConfig": "config",
    "Registry": "classify",
    "classify_tools": "classify",
    "is_deferrable_tool_name": "classify",
    "BRIDGE_TOOL_NAMES": "classify",
    "estimate_tokens_from_schemas": "tokens",
    "build_catalog": "catalog",
    "search_catalog": "bm25",
    "build_catalog_listing_with_form": "listing",
    "build_listing": "listing",
    "bridge_tool_schemas": "schemas",
    "listing_token_budget": "assemble",
    "assemble_tool_defs": "assemble",
    "AssemblyResult": "assemble",
    "Bridge": "bridge",
    "DryRunExecutor": "bridge",
    "validate_deferred_call_args": "bridge",
    "resolve_underlying_call": "bridge",
    "scoped_deferrable_names": "bridge",
    "SessionState": "session",
    "Profile": "profile",
    "get_profile": "profiles",
    "PROFILE_NAMES": "profiles",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolsearch' has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)
