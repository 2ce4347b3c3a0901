"""What a profile is, and the registry that names them (SPEC §9, STYLE §12).

A :class:`Profile` is the whole behaviour of one generation of tool search: configuration
defaults, classification extras, tokenizer, retrieval, listing framing, bridge argument shapes,
validation and coercion. Engine code asks the profile (``profile.search(...)``,
``profile.bridge.resolve_call(...)``) and never compares profile names.

Each profile is one module of :mod:`toolsearch.profiles` that defines ``PROFILE``; the registry
finds those modules by listing the package, so adding a profile means adding one module. This
module is a leaf (it imports no other engine module): every engine module may resolve a name
through :func:`as_profile`, and the profile modules, which sit above the engine parts they
combine, are loaded by name the first time one is asked for.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # types only: these modules sit below the profiles at run time
    from .bm25 import Hit
    from .bridge import Bridge
    from .catalog import Catalog, CatalogEntry
    from .classify import RegistryLike
    from .config import ToolSearchConfig
    from .replies import BridgeReply
    from .tooldefs import FrozenDict

PACKAGE = "toolsearch.profiles"


class Retrieval(Protocol):
    """Index build and search for one profile.

    ``build`` turns the catalog entries (in def order, each with the profile's ``tokens``) into
    a :class:`~toolsearch.catalog.Catalog` (a subclass may carry more index fields); ``search``
    ranks it. Every hit carries its score and each query term's contribution (``Hit.terms``),
    and may carry per-field contributions (``Hit.fields``: ``(field, term, value)``).
    """

    no_match_note: str
    """One line the CLI prints when a query returns nothing (why that happens here)."""
    not_admitted_note: str
    """Appended to a reach report's "query not admitted" reason ("" when nothing to add)."""

    def build(self, entries: tuple[CatalogEntry, ...], profile: Profile) -> Catalog: ...

    def search(self, catalog: Catalog, query: str, limit: int) -> tuple[Hit, ...]: ...

    def rank_of(self, catalog: Catalog, query: str, name: str) -> int | None:
        """1-based position of ``name`` in the unlimited ranking, None when not returned."""
        ...


class BridgeRules(Protocol):
    """The bridge tools' argument shapes and dispatch for one profile."""

    def schemas(self, search_description: str) -> tuple[FrozenDict, ...]:
        """``tool_search``, ``tool_describe``, ``tool_call`` in that order."""
        ...

    async def dispatch(self, bridge: Bridge, bridge_name: str, args: Mapping[str, Any]
                       ) -> BridgeReply:
        """Run one bridge call (the caller times it and fills in ``ms``)."""
        ...

    def resolve_call(self, args: Any, registry: RegistryLike | None,
                     config: ToolSearchConfig) -> tuple[str | None, dict[str, Any], str | None]:
        """Parse a ``tool_call``: ``(name, arguments, None)`` or ``(None, {}, error)``."""
        ...


@dataclass(frozen=True, eq=False)
class Profile:
    """One generation's rules. Instances are singletons: compare them with ``is``."""

    name: str
    order: int
    """Position in :data:`toolsearch.profiles.PROFILE_NAMES` (the default comes first)."""
    summary: str
    """One line for ``--profile`` help and the app."""
    # -- configuration (REFERENCE §2)
    defaults: Mapping[str, Any]
    """``tools.tool_search`` defaults (every key of the config-key table but ``defer``)."""
    has_defer_list: bool
    """The ``defer`` key applies (the curated list when unset), checked before core."""
    # -- classification (REFERENCE §1)
    core_tools: frozenset[str]
    direct_surface_toolsets: frozenset[str]
    # -- catalog and retrieval (REFERENCE §4–5)
    tokenize: Callable[[str], list[str]]
    search_text: Callable[[Any, str], str]
    """The text one def is indexed under (def, its registry toolset)."""
    owner_names_source: bool
    """An unregistered def's ``_hermes_source_name`` names its catalog source (``plugin``)."""
    retrieval: Retrieval
    # -- listing and framing (REFERENCE §6–7)
    short_description: Callable[[str], str]
    lists_unavailable: bool
    """Declared-but-unavailable MCP servers are named in the listing and zero-hit replies."""
    search_base: str
    """The ``tool_search`` description before the listing (``{n}``: the deferred count)."""
    # -- bridge dispatch (REFERENCE §8–9, §12–13)
    bridge: BridgeRules
    plain: str = ""
    """A few plain words for the app ("Hermes as in the seed article")."""

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<Profile {self.name}>"

    def __reduce__(self) -> tuple[Any, ...]:
        return (get_profile, (self.name,))

    def search(self, catalog: Catalog, query: str, limit: int) -> tuple[Hit, ...]:
        return self.retrieval.search(catalog, query, limit)

    def resolve_call(self, args: Any, registry: RegistryLike | None,
                     config: ToolSearchConfig) -> tuple[str | None, dict[str, Any], str | None]:
        return self.bridge.resolve_call(args, registry, config)


ProfileLike = Profile | str

_registry: dict[str, Profile] = {}
_lock = threading.RLock()


def _module_names() -> list[str]:
    package = importlib.import_module(PACKAGE)
    return [m.name for m in pkgutil.iter_modules(package.__path__)
            if not m.name.startswith("_") and not m.ispkg]


def _load(name: str) -> Profile | None:
    try:
        module = importlib.import_module(f"{PACKAGE}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{PACKAGE}.{name}":
            return None
        raise
    profile = getattr(module, "PROFILE", None)
    return profile if isinstance(profile, Profile) and profile.name == name else None


def get_profile(name: str) -> Profile:
    """The profile called ``name`` (its module is loaded on first use). ValueError if none."""
    found = _registry.get(name)
    if found is not None:
        return found
    with _lock:
        if name not in _registry and name.isidentifier() and name in _module_names():
            profile = _load(name)
            if profile is not None:
                _registry[name] = profile
    found = _registry.get(name)
    if found is None:
        raise ValueError(f"unknown profile {name!r} (one of: {', '.join(profile_names())})")
    return found


def profile_names() -> tuple[str, ...]:
    """Every profile module's name, default first (the registry's :data:`PROFILE_NAMES`)."""
    profiles = [get_profile(n) for n in _module_names() if _load(n) is not None]
    return tuple(p.name for p in sorted(profiles, key=lambda p: (p.order, p.name)))


def as_profile(profile: ProfileLike | None) -> Profile:
    """A Profile from a Profile or a name (None: the default ``seed``)."""
    if isinstance(profile, Profile):
        return profile
    return get_profile(profile or "seed")

