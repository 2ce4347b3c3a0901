"""Fixtures for the gateway tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gateway_helpers import INSTALL_HINT, REFERENCE_DIR, inspector_bin  # noqa: E402


def _missing(what: str) -> None:
    reason = f"{what} not installed in {REFERENCE_DIR}: {INSTALL_HINT}"
    if os.environ.get("TOOLSEARCH_REQUIRE_TEST_SERVERS") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
def need_inspector() -> Path:
    path = inspector_bin()
    if path is None:
        _missing("the MCP Inspector CLI (mcp-inspector)")
    assert path is not None
    return path


@pytest.fixture
def everything_bin() -> Path:
    path = REFERENCE_DIR / "node_modules" / ".bin" / "mcp-server-everything"
    if not path.exists():
        _missing("mcp-server-everything")
    return path
