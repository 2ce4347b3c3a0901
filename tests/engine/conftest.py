"""Fixtures for the engine tests; builders and slow reference code live in reference_impl."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest

# Test modules import ``reference_impl`` by its plain name whatever pytest's import mode.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_impl import WORKED_DEFS, WORKED_REGISTRY  # noqa: E402


@pytest.fixture
def worked_defs() -> list[dict[str, Any]]:
    """The REFERENCE §5 worked-example catalog: two github tools and a calendar tool."""
    return copy.deepcopy(WORKED_DEFS)


@pytest.fixture
def worked_registry() -> dict[str, str]:
    return dict(WORKED_REGISTRY)
