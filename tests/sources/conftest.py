"""Fixtures for the source tests (helpers live in ``source_helpers``)."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# Test modules import ``source_helpers`` by its plain name whatever pytest's import mode.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from source_helpers import (  # noqa: E402
    HTTP_TOKEN,
    INSTALL_HINT,
    REFERENCE_DIR,
    start_http_server,
    stop,
)


@pytest.fixture
def marker() -> str:
    """A unique token put on test servers' command lines, to find leftovers."""
    return f"tsmark-{uuid.uuid4().hex}"


@pytest.fixture
def reference_bin() -> Callable[[str], Path]:
    """Path of an installed reference server binary; skips with a clear reason if absent."""

    def find(name: str) -> Path:
        candidates = [REFERENCE_DIR / "node_modules" / ".bin" / name,
                      REFERENCE_DIR / "time-venv" / "bin" / name]
        for path in candidates:
            if path.exists():
                return path
        reason = f"reference server {name} not installed in {REFERENCE_DIR}: {INSTALL_HINT}"
        if os.environ.get("TOOLSEARCH_REQUIRE_TEST_SERVERS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)

    return find


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """Streamable HTTP demo server on 127.0.0.1 and a free port."""
    proc, url = start_http_server()
    try:
        yield url
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def http_auth_url() -> Iterator[str]:
    """Streamable HTTP demo server that answers 401 without the right Authorization."""
    proc, url = start_http_server("--require-header", f"Authorization={HTTP_TOKEN}")
    try:
        yield url
    finally:
        stop(proc)
