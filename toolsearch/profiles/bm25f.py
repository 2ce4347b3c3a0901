"""``bm25f``: ours. The seed's disclosure (classification, tiers, listing, bridge) with better
retrieval: fielded BM25 over name, server label, description, parameter names and parameter
descriptions, identifier splitting, exact + stemmed terms, query terms counted once
(:mod:`toolsearch.bm25f`)."""

from __future__ import annotations

from ..bm25f import Bm25fRetrieval, name_search_text, words
from ..classify import HERMES_CORE_TOOLS, SEED_DIRECT_SURFACE_TOOLSETS, SEED_ERA_CORE_ALIASES
from ..listing import seed_short_description
from ..profile import Profile
from ..schemas import SEARCH_BASE
from .seed import SeedBridge

PROFILE = Profile(
    name="bm25f",
    order=2,
    plain="ours: better search, same disclosure",
    summary="ours: the seed article's disclosure with better search (BM25 over name, "
            "label, description and parameters; split identifiers; exact and stemmed words)",
    defaults={},
    has_defer_list=False,
    core_tools=HERMES_CORE_TOOLS | SEED_ERA_CORE_ALIASES,
    direct_surface_toolsets=SEED_DIRECT_SURFACE_TOOLSETS,
    tokenize=words,
    search_text=name_search_text,
    owner_names_source=False,
    retrieval=Bm25fRetrieval(),
    short_description=seed_short_description,
    lists_unavailable=False,
    search_base=SEARCH_BASE,
    bridge=SeedBridge(),
)
