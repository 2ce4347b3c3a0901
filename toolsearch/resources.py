"""Locate the bundled data folders (themes, sample catalogs).

After a wheel install they live in ``toolsearch/_data``; in a source checkout (or an
editable install) they sit at the repository root beside the package.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the folder ``name`` ("themes" or "sample_catalogs") wherever it was installed."""
    for candidate in (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"bundled data folder {name!r} not found")
