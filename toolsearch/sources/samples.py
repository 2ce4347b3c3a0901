"""The sample catalogs shipped in ``sample_catalogs/`` (written by ``scripts/make_samples.py``).

A sample is addressed by its name (the file stem): ``seed-demo``, ``quickstart``, ...
"""

from __future__ import annotations

import os
from pathlib import Path

from toolsearch.resources import data_dir
from toolsearch.sources.catalog_file import load_catalog_file
from toolsearch.sources.errors import SourceError
from toolsearch.toolsets import Workspace

SAMPLE_NAMES: tuple[str, ...] = ("seed-demo", "quickstart", "five-servers", "cloudflare-scale")
"""The samples we ship, in the order menus show them (``seed-demo`` is the default)."""

DEFAULT_SAMPLE = "seed-demo"
SAMPLE_SUFFIX = ".yaml"


def samples_dir() -> Path | None:
    """The folder holding the sample catalogs, or ``None`` if it was not installed."""
    try:
        return data_dir("sample_catalogs")
    except FileNotFoundError:
        return None


def _stem(name: str) -> str:
    name = name.strip()
    return name[: -len(SAMPLE_SUFFIX)] if name.endswith(SAMPLE_SUFFIX) else name


def sample_path(name: str) -> Path | None:
    """The file of sample ``name`` (``seed-demo`` or ``seed-demo.yaml``), or ``None``."""
    folder = samples_dir()
    stem = _stem(name)
    if folder is None or not stem or "/" in stem or "\\" in stem or stem.startswith("."):
        return None
    path = folder / f"{stem}{SAMPLE_SUFFIX}"
    try:
        return path if path.is_file() else None
    except OSError:  # a name longer than a file name may be: no such sample
        return None


def list_samples() -> tuple[str, ...]:
    """Names of the installed samples: :data:`SAMPLE_NAMES` first, then any others sorted."""
    folder = samples_dir()
    if folder is None:
        return ()
    found = {p.stem for p in folder.glob(f"*{SAMPLE_SUFFIX}") if p.is_file()}
    known = tuple(n for n in SAMPLE_NAMES if n in found)
    return known + tuple(sorted(found - set(known)))


def is_sample_name(name: str) -> bool:
    return sample_path(name) is not None


def load_sample(name: str) -> Workspace:
    """Load sample ``name``; :class:`SourceError` naming the available samples if unknown."""
    path = sample_path(name)
    if path is None:
        available = ", ".join(list_samples()) or "none installed"
        raise SourceError(f"unknown sample catalog {name!r} (available: {available})")
    return load_catalog_file(path)


def bundled_sample(source: str) -> str | None:
    """The name of the bundled sample catalog *source* reads, if it reads one: by its name
    (``five-servers``, when no file of that name exists: a file wins) or by any path to the
    bundled file itself (relative, absolute, through a link). A copy elsewhere is not the sample.
    The one place that decides whether a SOURCE is the bundled sample."""
    if is_sample_name(source) and not os.path.lexists(os.path.expanduser(source)):
        return _stem(source)
    from toolsearch.sources.detect import resolve_path

    try:
        found = resolve_path(source)
    except (SourceError, OSError, ValueError):
        return None
    for name in list_samples():
        bundled = sample_path(name)
        try:
            if bundled is not None and os.path.samefile(found, bundled):
                return name
        except OSError:
            continue
    return None
