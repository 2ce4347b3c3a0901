"""Catalog entries, search text and the tokenizer (REFERENCE §4).

The catalog is stateless in meaning: it is rebuilt from the live defs on every call. Building
is cached on *content* (the defs' compact JSON, the registry's content and the profile), so an
unchanged catalog costs nothing while any change is reflected at once.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .caches import register_cache, register_cache_fn
from .classify import RegistryLike, as_registry, def_name
from .profile import Profile, ProfileLike, as_profile
from .tooldefs import (
    ContentCache,
    compact,
    content_key,
    def_description,
    def_parameters,
    def_pass,
)

_TOKEN = re.compile(r"[A-Za-z0-9]+")
_NAME_SEPARATORS = str.maketrans({"_": " ", ".": " ", "-": " ", ":": " "})

_stem_local = threading.local()


def _stemmer() -> Any:
    stemmer = getattr(_stem_local, "stemmer", None)
    if stemmer is None:
        import snowballstemmer

        stemmer = snowballstemmer.stemmer("english")
        try:  # PyStemmer's own cache (10,000 words) only adds cost: :func:`stem` memoises,
            stemmer.maxCacheSize = 0  # and bm25f's stem classes stem the vocabulary once
        except AttributeError:  # pragma: no cover - a stemmer without that cache
            pass
        _stem_local.stemmer = stemmer
    return stemmer


@register_cache_fn("catalog.stem")
@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """English Snowball stem of a lower-case word (memoised)."""
    return str(_stemmer().stemWord(word))


def words(text: str | None) -> list[str]:
    """``[A-Za-z0-9]+`` lower-cased (the seed tokenizer)."""
    if not text:
        return []
    return [m.lower() for m in _TOKEN.findall(text)]


def stemmed_words(text: str | None) -> list[str]:
    """:func:`words`, each Snowball-stemmed (the latest tokenizer)."""
    return [stem(w) for w in words(text)]


def tokenize(text: str | None, profile: ProfileLike = "seed") -> list[str]:
    """The profile's tokenizer (``seed``: :func:`words`; ``latest``: :func:`stemmed_words`)."""
    if not text:
        return []
    return as_profile(profile).tokenize(text)


def param_names(tool_def: Any) -> list[str]:
    params = def_parameters(tool_def)
    if isinstance(params, Mapping):
        props = params.get("properties")
        if isinstance(props, Mapping):
            return [str(k) for k in props]
    return []


def source_label(source_name: str) -> str:
    return source_name[4:] if source_name.startswith("mcp-") else source_name


def search_text(tool_def: Any, source_name: str = "", profile: ProfileLike = "seed") -> str:
    """The text a tool is indexed under, by the profile's rule."""
    return as_profile(profile).search_text(tool_def, source_name)


def seed_search_text(tool_def: Any, source_name: str = "") -> str:
    """Name words, description, top-level parameter names (REFERENCE §4)."""
    name = def_name(tool_def)
    description = def_description(tool_def)
    params = " ".join(param_names(tool_def))
    return f"{name.translate(_NAME_SEPARATORS)} {description} {params}"


def labelled_search_text(tool_def: Any, source_name: str = "") -> str:
    """G3: as :func:`seed_search_text`, but a leading ``mcp__`` is stripped and the source
    label is added unless the name already contains it as a word (REFERENCE §12)."""
    name = def_name(tool_def)
    description = def_description(tool_def)
    params = " ".join(param_names(tool_def))
    if name.startswith("mcp__"):
        name = name[len("mcp__"):]
    name_words = name.translate(_NAME_SEPARATORS)
    label = source_label(source_name)
    parts = [name_words]
    if label and label.lower() not in name_words.lower().split():
        parts.append(label)
    parts.extend((description, params))
    return " ".join(parts)


@dataclass(frozen=True)
class CatalogEntry:
    """One searchable tool. ``schema`` is the whole def; ``tokens`` its indexed tokens."""

    name: str
    description: str
    schema: Mapping[str, Any] = field(repr=False)
    source: str
    source_name: str
    tokens: tuple[str, ...] = field(repr=False)

    @property
    def label(self) -> str:
        return source_label(self.source_name) if self.source_name else "other"


def entry_source(name: str, registry: RegistryLike | None) -> tuple[str, str]:
    """(source, source_name): ``mcp`` / ``plugin`` / ``other`` and the registry toolset."""
    toolset = as_registry(registry).toolset_of(name)
    if toolset is None:
        return "other", ""
    return ("mcp" if toolset.startswith("mcp-") else "plugin"), toolset


@dataclass(frozen=True)
class Catalog:
    """Entries in def order plus BM25 corpus statistics, computed once per catalog."""

    entries: tuple[CatalogEntry, ...]
    profile: Profile = field(default_factory=lambda: as_profile(None))
    doc_lengths: tuple[int, ...] = field(default=(), repr=False)
    avgdl: float = 0.0
    df: Mapping[str, int] = field(default_factory=dict, repr=False)
    postings: Mapping[str, tuple[tuple[int, int], ...]] = field(default_factory=dict, repr=False)
    """token -> ((doc index, term frequency), ...) in doc order."""
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Lazily filled per-token BM25 contributions (derived from the fields above)."""

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[CatalogEntry]:
        return iter(self.entries)

    def __getitem__(self, index: int) -> CatalogEntry:
        return self.entries[index]

    def tf(self, index: int, token: str) -> int:
        postings = self.postings.get(token, ())
        i = bisect_left(postings, (index,))
        return postings[i][1] if i < len(postings) and postings[i][0] == index else 0


def bm25_index(entries: tuple[CatalogEntry, ...], profile: Profile) -> Catalog:
    """The BM25 statistics over the entries' tokens (document lengths, df, postings)."""
    lengths = tuple(len(e.tokens) for e in entries)
    postings: dict[str, list[tuple[int, int]]] = {}
    for i, entry in enumerate(entries):
        counts: dict[str, int] = {}
        for tok in entry.tokens:
            counts[tok] = counts.get(tok, 0) + 1
        for tok, count in counts.items():
            postings.setdefault(tok, []).append((i, count))
    return Catalog(
        entries=entries,
        profile=profile,
        doc_lengths=lengths,
        avgdl=sum(lengths) / max(len(entries), 1),
        df={tok: len(p) for tok, p in postings.items()},
        postings={tok: tuple(p) for tok, p in postings.items()},
    )


_catalog_cache: ContentCache[Catalog] = ContentCache(8, "catalog")


_TOKEN_CACHE_SIZE = 65536
_token_cache: dict[tuple[str, str, str], tuple[str, ...]] = register_cache("catalog.tokens", {})


def _tokens_for(tool_def: Any, source_name: str, profile: Profile) -> tuple[str, ...]:
    """Indexed tokens of one def, cached on its compact JSON, toolset and profile."""
    try:
        key = (compact(tool_def), source_name, profile.name)
    except (TypeError, ValueError):
        return tuple(profile.tokenize(profile.search_text(tool_def, source_name)))
    tokens = _token_cache.get(key)
    if tokens is None:
        tokens = tuple(profile.tokenize(profile.search_text(tool_def, source_name)))
        if len(_token_cache) >= _TOKEN_CACHE_SIZE:
            _token_cache.clear()
        _token_cache[key] = tokens
    return tokens


def build_catalog(
    defs: Sequence[Mapping[str, Any]],
    registry: RegistryLike | None,
    profile: ProfileLike = "seed",
) -> Catalog:
    """One entry per def with a non-empty name, in input order (REFERENCE §4), indexed by the
    profile's retrieval."""
    reg = as_registry(registry)
    rules = as_profile(profile)
    with def_pass():
        key = content_key(defs, rules.name, reg.fingerprint)
        return _catalog_cache.get_or_make(key, lambda: _make_catalog(defs, reg, rules))


def _make_catalog(defs: Sequence[Mapping[str, Any]], reg: Any, profile: Profile) -> Catalog:
    entries = []
    for tool_def in defs:
        name = def_name(tool_def)
        if not name:
            continue
        source, source_name = entry_source(name, reg)
        owner = tool_def.get("_hermes_source_name") if isinstance(tool_def, Mapping) else None
        if profile.owner_names_source and source == "other" and isinstance(owner, str) \
                and owner:
            source, source_name = "plugin", owner  # G3: deferred memory / context-engine tools
        entries.append(
            CatalogEntry(
                name=name,
                description=def_description(tool_def),
                schema=tool_def,
                source=source,
                source_name=source_name,
                tokens=_tokens_for(tool_def, source_name, profile),
            )
        )
    return profile.retrieval.build(tuple(entries), profile)
