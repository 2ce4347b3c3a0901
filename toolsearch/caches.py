"""Clear every content-keyed cache of the engine (benchmarks measure cold runs with it)."""

from __future__ import annotations


def clear_caches() -> None:
    from . import assemble, catalog, classify, listing

    assemble._estimate_cache.clear()

    classify._classify_cache.clear()

    catalog._catalog_cache.clear()
    catalog._token_cache.clear()
    catalog.stem.cache_clear()
    listing._group_cache.clear()
    listing._listing_cache.clear()
    listing.short_description.cache_clear()
