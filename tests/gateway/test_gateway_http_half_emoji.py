"""Half an emoji over a streamable-HTTP upstream: a reply with a lone surrogate escape
arrives mended (U+FFFD), at once, as it does over stdio."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from gateway_helpers import HERE, sdk_client, start_http_gateway, stop, text_of, write_config

from tests.sources.source_helpers import free_port, listening

pytestmark = pytest.mark.live


async def test_a_lone_surrogate_over_http_is_mended(tmp_path: Path) -> None:
    port = free_port()
    upstream = subprocess.Popen([sys.executable, str(HERE / "servers" / "half_emoji_http.py"),
                                 "--port", str(port)], stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and upstream.poll() is None and not listening(port):
        time.sleep(0.05)
    config = write_config(tmp_path / "servers.json", {
        "cutter": {"url": f"http://127.0.0.1:{port}/mcp"}})
    proc, url = start_http_gateway([str(config)], "--events", str(tmp_path / "e.jsonl"),
                                   "--call-timeout", "20")
    try:
        async with sdk_client(url, "pytest-emoji") as c:
            names = {t.name for t in (await c.list_tools()).tools}
            name = "mcp__cutter__cut"
            with anyio.fail_after(15):
                reply = await (c.call_tool(name, {}) if name in names else
                               c.call_tool("tool_call", {"name": name, "arguments": {}}))
            assert not reply.is_error, text_of(reply)
            assert text_of(reply) == "smile \ufffd"
    finally:
        stop(proc)
        upstream.terminate()
        upstream.wait(10)


async def test_an_escape_cut_across_reads_is_mended_whole() -> None:
    """An event stream arrives in reads of any size: a lone escape cut across two reads is
    mended once the line is whole, a pair cut the same way is kept, and nothing is lost."""
    from toolsearch.sources.live import _mended_lines

    text = b'data: {"a": "x \\ud83d y"}\n\ndata: {"b": "\\ud83d\\ude00"}\n\ndata: {"c": 1}'
    for size in (1, 3, 7, len(text)):
        async def reads(size: int = size):  # type: ignore[no-untyped-def]
            for i in range(0, len(text), size):
                yield text[i:i + size]
        out = b"".join([part async for part in _mended_lines(reads())])
        assert out == text.replace(b"x \\ud83d y", b"x \\ufffd y"), size
