"""Search results as the Search pane shows them, with the reason for an empty result.

Pure: runs the engine's ``search_hits`` for one profile (or both, to compare) and explains a
zero-hit query from the catalog's own statistics (which query tokens occur, how often).
"""

from __future__ import annotations

from dataclasses import dataclass

from toolsearch.bm25 import Hit, rarest_token
from toolsearch.catalog import build_catalog, tokenize
from toolsearch.profiles import PROFILE_NAMES
from toolsearch.session import SessionState


@dataclass(frozen=True)
class ProfileHits:
    """One profile's answer to one query."""

    profile: str
    hits: tuple[Hit, ...]
    total: int
    limit: int
    tokens: tuple[tuple[str, int], ...]
    """Each distinct query token and its document frequency in this catalog."""
    why_empty: str = ""

    @property
    def fallback(self) -> bool:
        return any(h.fallback for h in self.hits)


@dataclass(frozen=True)
class SearchView:
    query: str
    results: tuple[ProfileHits, ...]
    session_key: int = 0

    def profile(self, name: str) -> ProfileHits | None:
        return next((r for r in self.results if r.profile == name), None)


def _why_empty(profile: str, query: str, total: int, tokens: tuple[tuple[str, int], ...],
               gate: str | None) -> str:
    if total == 0:
        return ("No deferred tools in this session (tool search is off, nothing is "
                "deferrable, or everything is detached/out of scope), so there is nothing "
                "to search.")
    if not tokens:
        return ("The query has no searchable tokens (runs of letters and digits), so BM25 "
                "has nothing to score and the substring fallback is not tried.")
    known = [t for t, df in tokens if df]
    if profile in ("seed", "bm25f"):  # the profiles with the substring fallback
        return (f"None of the query tokens ({', '.join(t for t, _ in tokens)}) occurs in any "
                f"of the {total:,} deferred tools, and no tool name contains "
                f"'{query.lower()}' (the substring fallback).")
    if not known:
        return (f"None of the stemmed query tokens ({', '.join(t for t, _ in tokens)}) occurs "
                f"in any of the {total:,} deferred tools; the latest profile has no "
                "substring fallback.")
    # in words: "the rarest-token gate" and "coverage floor" are the engine's names
    return (f"No tool has the query's rarest word ('{gate}') with enough of its other words "
            "(latest needs most of them), and no tool is named exactly like the query.")


def run_search(session: SessionState, query: str, profile: str,
               limit: int | None = None) -> ProfileHits:
    """One profile's hits for *query* (the session is switched to *profile* if needed)."""
    state = session.with_profile(profile)
    bridge = state.bridge()
    limit = limit or state.config.search_default_limit
    hits, total = bridge.search_hits(query, limit)
    catalog = build_catalog(bridge.deferrable_defs, bridge.registry, profile)
    toks = tuple(dict.fromkeys(tokenize(query, profile)))
    tokens = tuple((t, catalog.df.get(t, 0)) for t in toks)
    why = ""
    if not hits:
        why = _why_empty(profile, query, total, tokens, rarest_token(catalog, list(toks)))
    return ProfileHits(profile, hits, total, limit, tokens, why)


def search_view(session: SessionState, query: str, compare: bool,
                session_key: int = 0) -> SearchView:
    """The session's own profile first; the other one beside it when comparing."""
    own = session.config.profile.name
    profiles = [own]
    if compare:
        profiles.extend(p for p in PROFILE_NAMES if p != own)
    return SearchView(query, tuple(run_search(session, query, p) for p in profiles),
                      session_key)
