"""The gateway: ``toolsearch serve``, tool search in front of any MCP client (SPEC §10).

Modules: :mod:`.server` (the MCP server and its assembly), :mod:`.upstream` (one long-lived
connection per upstream server), :mod:`.events` (the events file), :mod:`.cli` (wiring).
"""

#: The profile ``toolsearch serve`` assembles with unless told otherwise: ours, the seed's
#: disclosure with better retrieval (SPEC §9).
DEFAULT_PROFILE = "bm25f"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
HTTP_PATH = "/mcp"
