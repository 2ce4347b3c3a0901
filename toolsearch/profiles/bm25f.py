"""``bm25f``: ours. The seed's disclosure (classification, tiers, listing, bridge) with better
retrieval: fielded BM25 over name, server label, description, parameter names and parameter
descriptions, identifier splitting, exact + stemmed terms, query terms counted once
(:mod:`toolsearch.bm25f`)."""

from __future__ import annotations

from dataclasses import replace

from ..bm25f import Bm25fRetrieval, name_search_text, words
from . import seed

#: The seed profile with three things of ours: how text is split into words, the text a tool
#: is indexed under (its name, label, description and parameters, as fields), and the search.
PROFILE = replace(
    seed.PROFILE,
    name="bm25f",
    order=2,
    plain="ours: better search, same disclosure",
    summary="ours: the seed article's disclosure with better search (BM25 over name, "
            "label, description and parameters; split identifiers; exact and stemmed words)",
    tokenize=words,
    search_text=name_search_text,
    retrieval=Bm25fRetrieval(),
)
