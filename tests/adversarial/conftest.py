"""Fixtures for the adversarial suite (helpers live in ``adv_helpers``)."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def marker() -> str:
    """A unique word put on test servers' command lines, to find leftover processes."""
    return f"tsadv-{uuid.uuid4().hex}"
