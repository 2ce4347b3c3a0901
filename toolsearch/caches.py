"""The one registry of the engine's module-level caches.

Every cache that remembers derived content (keyed on content, never on a session) registers
itself here when its module defines it; :func:`clear_caches` walks the registry (benchmarks
measure cold runs with it). Caches that belong to an object (a frozen def's JSON, a catalog's
per-token scores, a workspace's registries) live and die with that object instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

_registry: dict[str, Any] = {}
_lock = threading.Lock()

C = TypeVar("C")


def register_cache(name: str, cache: C) -> C:
    """Register a cache (anything with ``clear()`` or ``cache_clear()``) under ``name``."""
    if not (callable(getattr(cache, "clear", None)) or callable(getattr(cache, "cache_clear", None))):
        raise TypeError(f"cache {name!r} has neither clear() nor cache_clear()")
    with _lock:
        _registry[name] = cache
    return cache


F = TypeVar("F")


def register_cache_fn(name: str) -> Callable[[F], F]:
    """Decorator form of :func:`register_cache` for ``functools.lru_cache`` functions."""
    def register(fn: F) -> F:
        return register_cache(name, fn)
    return register


def cache_names() -> tuple[str, ...]:
    with _lock:
        return tuple(sorted(_registry))


def clear_caches() -> None:
    """Empty every registered cache."""
    with _lock:
        caches = list(_registry.values())
    for cache in caches:
        clear = getattr(cache, "cache_clear", None) or cache.clear
        clear()
