"""Text an upstream sends that the SDK's parser refuses: an escaped UTF-16 surrogate with no
partner (a JavaScript server cutting a string in the middle of an emoji) is mended to U+FFFD,
so the reply arrives; it was dropped, and the call waited out its whole call timeout."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from gateway_helpers import HERE, REFERENCE_DIR, inspector, text_of, write_config

from toolsearch.sources.live import mend_surrogates

pytestmark = pytest.mark.live


@pytest.mark.parametrize(("line", "text"), [
    (r'{"t":"a\ud83d b"}', "a\ufffd b"),
    (r'{"t":"\ud83d\ude00"}', "\U0001f600"),
    (r'{"t":"\uD83D\uDE00 \uDE00"}', "\U0001f600 \ufffd"),
    (r'{"t":"\ude00\ud83d"}', "\ufffd\ufffd"),
    (r'{"t":"\\ud83d"}', "\\ud83d"),  # a backslash, then the letters: no escape
    (r'{"t":"\\\ud83d"}', "\\\ufffd"),
])
def test_lone_surrogates_are_mended_and_pairs_kept(line: str, text: str) -> None:
    assert json.loads(mend_surrogates(line))["t"] == text


def test_a_line_with_no_surrogate_escape_is_the_same_object() -> None:
    line = '{"t": "' + "x" * 100_000 + '"}\n'
    assert mend_surrogates(line) is line


def test_a_reply_with_a_lone_surrogate_arrives_at_once(need_inspector: Path,
                                                       tmp_path: Path) -> None:
    sdk = REFERENCE_DIR / "node_modules" / "@modelcontextprotocol" / "sdk"
    node = shutil.which("node")
    if node is None or not sdk.exists():
        pytest.skip("node or the TypeScript MCP SDK is not installed")
    config = write_config(tmp_path / "servers.json", {"cutter": {
        "command": node, "args": [str(HERE / "servers" / "cutting_server.mjs")],
        "env": {"MCP_SDK_DIR": str(sdk)}}})
    started = time.monotonic()
    cut = inspector([str(config)], "--method", "tools/call", "--tool-name", "tool_call",
                    "--tool-arg", "name=mcp__cutter__cut", "arguments={}",
                    serve_args=("--events", str(tmp_path / "events.jsonl"),
                                "--call-timeout", "30"))
    took = time.monotonic() - started
    assert not cut.get("isError") and text_of(cut) == "smile: \ufffd end"
    assert took < 25  # not the call timeout: was 'no answer from server within 30 s'
