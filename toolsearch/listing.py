"""The embedded catalog listing and its per-server degradation (REFERENCE §6).

Forms: ``full`` (one line per tool), ``names`` (one line of names per server), ``mixed`` (some
servers collapsed to a summary line), ``groups`` (every server summarised), ``none``.
Collapsing is per server, largest names-block first, so one huge server cannot cost a small
co-attached server its names. The text is byte-stable whatever the input order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

from .caches import register_cache, register_cache_fn
from .classify import RegistryLike, as_registry, chunk_names, def_name
from .profile import Profile, ProfileLike, as_profile
from .tokens import CHARS_PER_TOKEN, estimate_text_tokens
from .tooldefs import (
    ContentCache,
    chunks_of,
    content_key,
    def_description,
    def_pass,
    per_chunk,
)

LISTING_HEADER = (
    "Deferred tool catalog (call schemas via `tool_describe`, invoke via `tool_call`):"
)
SHORT_DESC_MAX = 60
FORMS: tuple[str, ...] = ("full", "names", "mixed", "groups", "none")
_SEED_CUT = re.compile(r"[.!?\n]")
_LATEST_END = re.compile(r"[.!?](?=\s|$)")
_ABBREVIATIONS = ("e.g", "i.e", "etc")


def short_description(text: str | None, profile: ProfileLike = "seed") -> str:
    """First sentence, at most 60 characters (+ ``…`` when cut), as the profile shortens it."""
    return as_profile(profile).short_description(text or "")


@register_cache_fn("listing.seed_short_description")
@lru_cache(maxsize=65536)
def seed_short_description(text: str) -> str:
    """G1: cut at the first ``.!?`` or newline (a period is kept), then at 60 characters."""
    collapsed = _collapsed_head(text or "")
    if not collapsed:
        return ""
    end = _SEED_CUT.search(collapsed)
    if end:
        keep = end.group() == "."
        collapsed = collapsed[: end.end() if keep else end.start()]
    return _clip_short(collapsed)


@register_cache_fn("listing.sentence_short_description")
@lru_cache(maxsize=65536)
def sentence_short_description(text: str) -> str:
    """G3: the first sentence end followed by whitespace (not after e.g / i.e / etc)."""
    collapsed = _collapsed_head(text or "")
    if not collapsed:
        return ""
    for match in _LATEST_END.finditer(collapsed):
        before = collapsed[: match.start()].lower()
        if match.group() == "." and before.endswith(_ABBREVIATIONS):
            continue
        collapsed = collapsed[: match.end()]
        break
    return _clip_short(collapsed)


_HEAD = 4 * SHORT_DESC_MAX


def _collapsed_head(text: str) -> str:
    """The whitespace-collapsed text, or only its head when that already runs past the 60
    characters a short description can keep (nothing after them changes the result)."""
    if len(text) > _HEAD:
        head = " ".join(text[:_HEAD].split())
        if len(head) > SHORT_DESC_MAX + 1:
            return head
    return " ".join(text.split())


def _clip_short(collapsed: str) -> str:
    if len(collapsed) <= SHORT_DESC_MAX:
        return collapsed
    cut = collapsed[:SHORT_DESC_MAX]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(",;: ") + "\u2026"


class ListingGroup:
    """One server's block in every form, and the form it got in the chosen listing.

    Immutable. Short descriptions are worked out on first need (the full form, a tool's
    line): a listing that collapses a large catalog to names or summaries never pays for them.
    """

    label: str
    form: str
    """``full``, ``names`` or ``summary`` in the chosen listing; ``none`` when no listing."""

    def __init__(self, label: str, tools: Sequence[tuple[str, str]] = (), form: str = "full",
                 *, pending: Sequence[tuple[str, str]] | None = None,
                 shorten: Callable[[str], str] | None = None) -> None:
        """``tools``: (name, short description) pairs, sorted. Or ``pending``: (name, full
        description) pairs with the ``shorten`` that makes short descriptions of them."""
        state = self.__dict__
        state["label"] = label
        state["form"] = form
        if pending is None or shorten is None:
            state["_tools"] = tuple(tools)
        else:
            state["_pending"] = tuple(pending)
            state["_shorten"] = shorten

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ListingGroup is immutable")

    @property
    def tools(self) -> tuple[tuple[str, str], ...]:
        """(name, short description), sorted."""
        state = self.__dict__
        found: tuple[tuple[str, str], ...] | None = state.get("_tools")
        if found is None:
            shorten = state["_shorten"]
            found = state["_tools"] = tuple(sorted((n, shorten(d)) for n, d in state["_pending"]))
        return found

    @property
    def names(self) -> tuple[str, ...]:
        """Tool names in listing order (no description needed)."""
        state = self.__dict__
        found: tuple[str, ...] | None = state.get("_names")
        if found is None:
            source = state.get("_pending")
            found = state["_names"] = tuple(sorted(n for n, _ in (
                source if source is not None else state["_tools"])))
        return found

    def with_form(self, form: str) -> ListingGroup:
        """The same group with another chosen form (short descriptions and renders shared)."""
        other = ListingGroup(self.label, (), form)
        state = other.__dict__
        del state["_tools"]
        for key in ("_tools", "_pending", "_shorten", "_names", "_render_cache"):
            if key in self.__dict__:
                state[key] = self.__dict__[key]
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ListingGroup):
            return NotImplemented
        return (self.label, self.tools, self.form) == (other.label, other.tools, other.form)

    def __hash__(self) -> int:
        return hash((self.label, self.tools, self.form))

    def __repr__(self) -> str:
        return f"ListingGroup(label={self.label!r}, count={self.count}, form={self.form!r})"

    @property
    def count(self) -> int:
        source = self.__dict__.get("_pending")
        return len(source if source is not None else self.__dict__["_tools"])

    def header(self) -> str:
        return f"{self.label} tools ({self.count}):"

    def render(self, form: str) -> str:
        """This group's block in ``full``, ``names`` or ``summary`` form (memoised)."""
        cache: dict[str, str] = self.__dict__.setdefault("_render_cache", {})
        text = cache.get(form)
        if text is None:
            text = cache[form] = self._render(form)
        return text

    def _render(self, form: str) -> str:
        if form == "summary":
            return (
                f"{self.label} ({self.count} tools \u2014 names not listed; "
                "discover via `tool_search`)"
            )
        if form == "names":
            return self.header() + "\n" + ", ".join(self.names)
        lines = [self.header()]
        lines.extend(f"- {name}: {desc}" if desc else f"- {name}" for name, desc in self.tools)
        return "\n".join(lines)

    def line_for(self, name: str) -> str | None:
        """This tool's line (or the line that stands for it) in the group's chosen form."""
        for tool, desc in self.tools:
            if tool == name:
                if self.form == "full":
                    return f"- {tool}: {desc}" if desc else f"- {tool}"
                if self.form == "names":
                    return self.render("names").split("\n", 1)[1]
                if self.form == "summary":
                    return self.render("summary")
                return None
        return None


@dataclass(frozen=True)
class Unavailable:
    """A declared MCP server that is not available (``latest`` lists it, REFERENCE §6.8)."""

    name: str
    reason: str
    tools: int = 0

    @property
    def label(self) -> str:
        return self.name

    def render(self, form: str = "") -> str:
        if self.tools:
            return f"{self.name} ({self.tools} tools unavailable: {self.reason})"
        return f"{self.name} (tools unavailable: {self.reason})"


def _join(blocks: Sequence[tuple[str, str]]) -> str:
    """Header + blocks in label order (groups and unavailable rows interleaved)."""
    return "\n".join([LISTING_HEADER, *(text for _label, text in sorted(blocks))])


@dataclass(frozen=True)
class Listing:
    """The chosen listing: text (or None), form, budget and the per-server blocks."""

    text: str | None
    form: str
    max_tokens: int
    groups: tuple[ListingGroup, ...] = ()
    unavailable: tuple[Unavailable, ...] = ()

    @property
    def tokens(self) -> int:
        return estimate_text_tokens(self.text)

    def uniform(self, form: str) -> str | None:
        """Every group in one form (``full``, ``names`` or ``summary``), whether or not it fits."""
        if not self.groups and not self.unavailable:
            return None
        blocks = [(g.label, g.render(form)) for g in self.groups]
        blocks += [(u.label, u.render()) for u in self.unavailable]
        return _join(blocks)

    def group(self, label: str) -> ListingGroup | None:
        return next((g for g in self.groups if g.label == label), None)

    def line_for(self, name: str) -> str | None:
        for group in self.groups:
            line = group.line_for(name)
            if line is not None:
                return line
        return None


_group_cache: ContentCache[tuple[ListingGroup, ...]] = ContentCache(8, "listing.groups")
_listing_cache: ContentCache[Listing] = ContentCache(32, "listing")


def group_defs(
    defs: Sequence[Mapping[str, Any]], registry: RegistryLike | None,
    profile: ProfileLike = "seed",
) -> tuple[ListingGroup, ...]:
    """Group named defs by label (toolset minus ``mcp-``; ``other`` when unregistered)."""
    reg = as_registry(registry)
    rules = as_profile(profile)
    key = content_key(defs, rules.name, reg.fingerprint)
    return _group_cache.get_or_make(key, lambda: _group(defs, reg, rules))


def _group(
    defs: Sequence[Mapping[str, Any]], reg: Any, profile: Profile
) -> tuple[ListingGroup, ...]:
    chunks = chunks_of(defs)
    if chunks is None:
        grouped = _members(defs, reg)
    else:  # a chunk whose names have the same registry entries has the same members
        grouped = {}
        entries = reg.toolsets
        for chunk in chunks:
            key = (id(chunk), tuple(map(entries.get, chunk_names(chunk))))
            parts = per_chunk(_chunk_members, key, chunk, partial(_member_items, chunk, reg))
            for label, members in parts:
                found = grouped.get(label)
                if found is None:
                    grouped[label] = list(members)
                else:
                    found += members
    shorten = profile.short_description
    return tuple(ListingGroup(label, pending=grouped[label], shorten=shorten)
                 for label in sorted(grouped))


_chunk_members: dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = register_cache(
    "listing.chunk_members", {})


def _member_items(chunk: tuple[Any, ...], reg: Any
                  ) -> tuple[tuple[str, list[tuple[str, str]]], ...]:
    return tuple(_members(chunk, reg).items())


def _members(defs: Sequence[Mapping[str, Any]], reg: Any) -> dict[str, list[tuple[str, str]]]:
    """label -> [(name, description), ...] of the named defs, in input order."""
    grouped: dict[str, list[tuple[str, str]]] = {}
    labels: dict[str | None, list[tuple[str, str]]] = {}
    toolset_of = reg.toolset_of
    for tool_def in defs:
        name = def_name(tool_def)
        if not name:
            continue
        toolset = toolset_of(name)
        members = labels.get(toolset)
        if members is None:
            label = "other" if toolset is None else source_label(toolset)
            members = labels[toolset] = grouped.setdefault(label, [])
        members.append((name, def_description(tool_def)))
    return grouped


def source_label(toolset: str) -> str:
    """A registry toolset as the listing labels it (``mcp-`` removed)."""
    return toolset[4:] if toolset.startswith("mcp-") else toolset


def _fits(chars: int, max_tokens: int) -> bool:
    return math.ceil(chars / CHARS_PER_TOKEN) <= max_tokens


def build_listing(
    defs: Sequence[Mapping[str, Any]],
    registry: RegistryLike | None,
    max_tokens: int,
    profile: ProfileLike = "seed",
    unavailable: Sequence[Unavailable] = (),
) -> Listing:
    """Choose the richest listing form that fits ``max_tokens`` (REFERENCE §6 step 7).

    ``unavailable`` servers are listed only by a profile that lists them (``latest``; their
    rows never collapse); the ``seed`` profile ignores them.
    """
    reg = as_registry(registry)
    rules = as_profile(profile)
    rows = tuple(sorted(unavailable, key=lambda u: u.name)) if rules.lists_unavailable else ()
    with def_pass():
        key = content_key(defs, rules.name, reg.fingerprint, max_tokens, rows)
        return _listing_cache.get_or_make(key,
                                          lambda: _choose(defs, reg, max_tokens, rules, rows))


def _choose(
    defs: Sequence[Mapping[str, Any]], reg: Any, max_tokens: int, profile: Profile,
    rows: tuple[Unavailable, ...] = (),
) -> Listing:
    groups = group_defs(defs, reg, profile)
    if not groups and not rows:
        return Listing(None, "none", max_tokens)
    names = [g.render("names") for g in groups]
    row_blocks = [(u.label, u.render()) for u in rows]
    row_chars = sum(len(text) + 1 for _label, text in row_blocks)

    def total(blocks: list[str]) -> int:
        return len(LISTING_HEADER) + sum(len(b) + 1 for b in blocks) + row_chars

    def finish(forms: list[str], form: str) -> Listing:
        blocks = [(g.label, g.render(f)) for g, f in zip(groups, forms, strict=True)]
        chosen = tuple(g.with_form(f) for g, f in zip(groups, forms, strict=True))
        return Listing(_join(blocks + row_blocks), form, max_tokens, chosen, rows)

    size = total(names)
    if _fits(size, max_tokens):
        # a group's full block is always longer than its names block, so the full form is
        # only worth measuring (and its short descriptions worth making) when names fit
        full = "full" if _fits(total([g.render("full") for g in groups]), max_tokens) else "names"
        return finish([full] * len(groups), full)
    forms = ["names"] * len(groups)
    summaries = [g.render("summary") for g in groups]
    order = sorted(range(len(groups)), key=lambda i: (-len(names[i]), groups[i].label))
    for collapsed, i in enumerate(order, start=1):
        forms[i] = "summary"
        size += len(summaries[i]) - len(names[i])
        if _fits(size, max_tokens):
            return finish(forms, "groups" if collapsed == len(groups) else "mixed")
    none_groups = tuple(g.with_form("none") for g in groups)
    return Listing(None, "none", max_tokens, none_groups, rows)


def build_catalog_listing_with_form(
    defs: Sequence[Mapping[str, Any]],
    registry: RegistryLike | None,
    max_tokens: int,
    profile: ProfileLike = "seed",
) -> tuple[str | None, str]:
    """Hermes' signature: ``(text | None, form)``."""
    listing = build_listing(defs, registry, max_tokens, profile)
    return listing.text, listing.form


def build_catalog_listing(
    defs: Sequence[Mapping[str, Any]], registry: RegistryLike | None, max_tokens: int
) -> str | None:
    """Plugin-compat shim: only the text."""
    return build_listing(defs, registry, max_tokens).text
