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


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535 (0: any free port); ValueError for anything else."""
    port = int(text)
    if not 0 <= port <= 65535:
        raise ValueError(f"a port is 0 to 65535, not {port}")
    return port


def leaf_error(exc: BaseException) -> BaseException:
    """The first exception inside any exception groups (a task group wraps what failed)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
