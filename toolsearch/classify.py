"""Registry, the core tool set, and the visible / deferrable split with its deciding rule.

REFERENCE §1. The registry is an explicit argument (a :class:`Registry` or any plain mapping
of tool name -> toolset); there is no process-global state.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property, partial
from types import MappingProxyType
from typing import Any

from .caches import register_cache
from .profile import Profile, ProfileLike, as_profile
from .tooldefs import (
    ContentCache,
    chunks_of,
    content_key,
    def_pass,
    per_chunk,
    register_chunks,
    remember_json,
)

BRIDGE_TOOL_NAMES: frozenset[str] = frozenset({"tool_search", "tool_describe", "tool_call"})

HERMES_CORE_TOOLS: frozenset[str] = frozenset(
    """
    web_search web_extract terminal process_manage read_file write_file patch search_files
    vision_analyze image_generate skills_list skill_view skill_manage browser_navigate
    browser_snapshot browser_click browser_type browser_scroll browser_back browser_press
    browser_get_images browser_vision browser_console browser_cdp browser_dialog browser_exec
    text_to_speech todo_list memory session_search clarify execute_code delegate_task
    cronjob_manage ha_list_entities ha_get_state ha_list_services ha_call_service kanban_show
    kanban_list kanban_complete kanban_block kanban_request_review kanban_request_changes
    kanban_heartbeat kanban_comment kanban_create kanban_link kanban_unblock kanban_attach
    kanban_attach_url kanban_attachments computer_use
    """.split()
)

#: The curated ``defer`` list of the ``latest`` profile (REFERENCE §1). ``clarify`` is absent.
DEFAULT_DEFER_TOOLS: frozenset[str] = frozenset(
    """
    computer_use session_search image_generate todo_list process_manage cronjob_manage
    drive_preview gui_tour desktop_preview annotate_preview show_tip setup_mcp desktop_project
    close_terminal apply_layout read_terminal read_window_below focus_pane
    """.split()
)

#: Pre-rename core names (todo -> todo_list, process -> process_manage, cronjob ->
#: cronjob_manage in 2026-08). The seed article lists these, so the ``seed`` profile keeps them.
SEED_ERA_CORE_ALIASES: frozenset[str] = frozenset({"todo", "process", "cronjob"})

#: Session-gated GUI surfaces that stay direct. The seed article says desktop_ui and project
#: are never deferred (the seeds win over REFERENCE's G1 order); G3 adds ``setup``.
DIRECT_SURFACE_TOOLSETS: frozenset[str] = frozenset({"desktop_ui", "project", "setup"})
SEED_DIRECT_SURFACE_TOOLSETS: frozenset[str] = frozenset({"desktop_ui", "project"})


def default_core(profile: ProfileLike = "seed") -> frozenset[str]:
    """The core tool set a profile uses when no catalog overrides it."""
    return as_profile(profile).core_tools


@dataclass(frozen=True)
class Registry:
    """Tool name -> toolset, plus the core tool set. A name with no entry is unregistered."""

    toolsets: Mapping[str, str] = field(default_factory=dict)
    core: frozenset[str] | None = None
    """Replaces the profile's default core set (``Profile.core_tools``) when given."""
    extra_core: frozenset[str] = frozenset()
    """Added to the core set (tools of ``kind: core`` toolsets)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "toolsets", MappingProxyType(dict(self.toolsets)))
        if self.core is not None:
            object.__setattr__(self, "core", frozenset(self.core))
        object.__setattr__(self, "extra_core", frozenset(self.extra_core))

    def core_for(self, profile: ProfileLike = "seed") -> frozenset[str]:
        rules = as_profile(profile)
        cache = self.__dict__.setdefault("_core_cache", {})
        found: frozenset[str] | None = cache.get(rules.name)
        if found is None:
            base = self.core if self.core is not None else rules.core_tools
            found = cache[rules.name] = base | self.extra_core if self.extra_core else base
        return found

    @cached_property
    def fingerprint(self) -> tuple[Any, ...]:
        """The registry's content as one hashable value, for caches keyed on content (a key
        compares equal only when the content is equal: no hash collision can alias two).

        Entries are read as :meth:`toolset_of` reads them, so a malformed (even unhashable)
        toolset value counts as no entry instead of raising."""
        values = self.toolsets.values()
        entries: frozenset[tuple[str, str | None]]
        if set(map(type, values)) <= {str} and "" not in set(values):  # all valid: C speed
            entries = frozenset(self.toolsets.items())
        else:
            entries = frozenset((name, self.toolset_of(name)) for name in self.toolsets)
        return (entries, self.core, self.extra_core)

    def toolset_of(self, name: str) -> str | None:
        value = self.toolsets.get(name)
        return value if isinstance(value, str) and value else None

    def names(self) -> tuple[str, ...]:
        return tuple(self.toolsets)


RegistryLike = Registry | Mapping[str, str]


def as_registry(registry: RegistryLike | None) -> Registry:
    """Accept a :class:`Registry` or a plain mapping of name -> toolset."""
    if isinstance(registry, Registry):
        return registry
    if registry is None:
        return Registry()
    return Registry(toolsets={str(k): v for k, v in registry.items()})


class Status(StrEnum):
    VISIBLE = "visible"
    DEFERRED = "deferred"
    DROPPED = "dropped"
    UNKNOWN = "unknown"


class Rule(StrEnum):
    """Short ids for the rule that decided a tool's fate (REFERENCE §1 order)."""

    BRIDGE = "bridge"
    DEFER_LIST = "defer-list"
    CORE = "core"
    UNREGISTERED = "unregistered"
    MCP = "mcp-toolset"
    DIRECT_SURFACE = "direct-surface"
    PLUGIN = "plugin"
    NAMELESS = "nameless"
    NOT_IN_DEFS = "not-in-defs"


_REASONS: dict[Rule, str] = {
    Rule.BRIDGE: "'{name}' is a reserved bridge name; incoming bridge defs are dropped and "
    "the three bridges are appended by assembly.",
    Rule.DEFER_LIST: "'{name}' is named in the defer list, which is checked before the core "
    "and registry rules.",
    Rule.CORE: "'{name}' is a core tool: core never defers, and no config can change that.",
    Rule.UNREGISTERED: "'{name}' has no registry entry, so it stays visible (unknown tools are "
    "never silently removed).",
    Rule.MCP: "'{name}' is registered under MCP toolset '{toolset}', so it defers behind the "
    "bridge.",
    Rule.DIRECT_SURFACE: "'{name}' belongs to '{toolset}', a session-gated GUI surface that "
    "stays direct unless named in the defer list.",
    Rule.PLUGIN: "'{name}' is a non-core plugin tool of toolset '{toolset}', so it defers "
    "behind the bridge.",
    Rule.NAMELESS: "a tool def without a function name stays visible untouched.",
    Rule.NOT_IN_DEFS: "'{name}' is not among the session's tool defs.",
}
_REASONS_WITH_DEFER_LIST: dict[Rule, str] = {
    # a profile with a defer list checks it first: core is only the next rule ("no config
    # can change that" was wrong under latest, where naming the tool in `defer` defers it)
    Rule.CORE: "'{name}' is a core tool: core stays visible unless named in "
    "tools.tool_search.defer.",
}
_REASONS_WITHOUT_DEFER_LIST: dict[Rule, str] = {
    # the seed profile has no defer list: nothing takes a GUI surface behind the bridge
    Rule.DIRECT_SURFACE: "'{name}' belongs to '{toolset}', a session-gated GUI surface that "
    "stays direct (this profile has no defer list).",
}


@dataclass(frozen=True)
class Decision:
    """Why one tool name is visible, deferrable or dropped."""

    name: str
    status: Status
    rule: Rule
    toolset: str | None
    defer_list: bool = False
    """The deciding profile checks a defer list first (``latest``): the reason says so."""

    @property
    def deferrable(self) -> bool:
        return self.status is Status.DEFERRED

    @property
    def reason(self) -> str:
        own = _REASONS_WITH_DEFER_LIST if self.defer_list else _REASONS_WITHOUT_DEFER_LIST
        text = own.get(self.rule, _REASONS[self.rule])
        return text.format(name=self.name, toolset=self.toolset or "")


def def_name(tool_def: Any) -> str:
    """The function name of an OpenAI-style def, or "" when it has none."""
    if isinstance(tool_def, dict):  # fast path (plain and frozen defs)
        fn = tool_def.get("function")
        if isinstance(fn, dict):
            name = fn.get("name")
            return name if isinstance(name, str) else ""
    if not isinstance(tool_def, Mapping):
        return ""
    fn = tool_def.get("function")
    if isinstance(fn, Mapping):
        name = fn.get("name")
        return name if isinstance(name, str) else ""
    return ""


def _rules(
    reg: Registry, defer: frozenset[str] | None, profile: Profile
) -> Callable[[str], tuple[Status, Rule, str | None]]:
    """The deciding rule for a name, in REFERENCE §1 order, with the registry, defer list
    and profile fixed (hot path: plain tuples, lookups hoisted)."""
    core = reg.core_for(profile)
    direct = profile.direct_surface_toolsets
    deferred_first = defer if profile.has_defer_list and defer is not None else frozenset()
    entries = reg.toolsets

    def rule(name: str) -> tuple[Status, Rule, str | None]:
        if not name:
            return Status.VISIBLE, Rule.NAMELESS, None
        if name in BRIDGE_TOOL_NAMES:
            return Status.DROPPED, Rule.BRIDGE, None
        toolset = entries.get(name)
        if not (isinstance(toolset, str) and toolset):
            toolset = None
        if name in deferred_first:
            return Status.DEFERRED, Rule.DEFER_LIST, toolset
        if name in core:
            return Status.VISIBLE, Rule.CORE, toolset
        if toolset is None:
            return Status.VISIBLE, Rule.UNREGISTERED, None
        if toolset.startswith("mcp-"):
            return Status.DEFERRED, Rule.MCP, toolset
        if toolset in direct:
            return Status.VISIBLE, Rule.DIRECT_SURFACE, toolset
        return Status.DEFERRED, Rule.PLUGIN, toolset

    return rule


def decide(
    name: str,
    registry: RegistryLike | None,
    *,
    defer_tools: Iterable[str] | None = None,
    profile: ProfileLike = "seed",
) -> Decision:
    """Apply the deferral rules to one name and say which rule fired.

    A profile without a defer list (``seed``: REFERENCE §1's G1 order plus the seed article's
    desktop_ui/project surfaces) ignores ``defer_tools``; one with it (``latest``: the G3
    order) checks the list first, then core, registry, mcp-, direct surfaces, plugin.
    """
    defer = frozenset(defer_tools) if defer_tools is not None else None
    prof = as_profile(profile)
    status, rule, toolset = _rules(as_registry(registry), defer, prof)(name)
    return Decision(name, status, rule, toolset, prof.has_defer_list)


def is_deferrable_tool_name(
    name: str,
    registry: RegistryLike | None,
    defer_tools: Iterable[str] | None = None,
    *,
    profile: ProfileLike = "seed",
) -> bool:
    return decide(name, registry, defer_tools=defer_tools, profile=profile).deferrable


@dataclass(frozen=True)
class Classification:
    """``classify_tools`` result: visible and deferrable defs (input order) and every decision."""

    visible: tuple[dict[str, Any], ...]
    deferrable: tuple[dict[str, Any], ...]
    dropped: tuple[dict[str, Any], ...]
    rules: tuple[tuple[str, Status, Rule, str | None], ...] = field(default=(), repr=False)
    inputs: tuple[Any, ...] = field(default=(), repr=False, compare=False)
    """The defs it was made from (input order): a cached result is reused as is only for
    the very same objects; equal content in other objects gets :meth:`for_defs`."""

    def made_from(self, defs: Sequence[Any]) -> bool:
        inputs = self.inputs
        return inputs is defs or (len(inputs) == len(defs)
                                  and all(map(operator.is_, inputs, defs)))

    def for_defs(self, defs: Sequence[Any]) -> Classification:
        """The same decisions over other def objects of equal content (input order)."""
        buckets: dict[Status, list[Any]] = {Status.VISIBLE: [], Status.DEFERRED: [],
                                            Status.DROPPED: []}
        for tool_def, rule in zip(defs, self.rules, strict=True):
            buckets[rule[1]].append(tool_def)
        return Classification(tuple(buckets[Status.VISIBLE]), tuple(buckets[Status.DEFERRED]),
                              tuple(buckets[Status.DROPPED]), self.rules, tuple(defs))

    @cached_property
    def decisions(self) -> tuple[Decision, ...]:
        """One :class:`Decision` per input def, in input order."""
        return tuple(Decision(*r) for r in self.rules)

    def names(self, status: Status) -> tuple[str, ...]:
        """Names with ``status`` in input order (memoised: a classification never changes)."""
        memo: dict[Status, tuple[str, ...]] = self.__dict__.setdefault("_names", {})
        found = memo.get(status)
        if found is None:
            found = memo[status] = tuple(name for name, s, _rule, _ts in self.rules
                                         if s is status)
        return found

    def __iter__(self) -> Iterator[tuple[dict[str, Any], ...]]:
        """Allows ``visible, deferrable = classify_tools(...)``."""
        return iter((self.visible, self.deferrable))


def classify_tools(
    defs: Sequence[Mapping[str, Any]],
    registry: RegistryLike | None,
    defer_tools: Iterable[str] | None = None,
    *,
    profile: ProfileLike = "seed",
) -> Classification:
    """Split defs into visible and deferrable, dropping incoming bridge defs (REFERENCE §1)."""
    reg = as_registry(registry)
    rules = as_profile(profile)
    defer = frozenset(defer_tools) if defer_tools is not None else None
    with def_pass():
        key = content_key(defs, rules.name, reg.fingerprint, defer)
        split = _classify_cache.get_or_make(key, lambda: _classify(defs, reg, defer, rules))
        if not split.made_from(defs):
            split = split.for_defs(defs)  # equal content, other objects: these from now on
            _classify_cache.put(key, split)
        if key is not None:  # the deferrable defs' JSON, for the keys of the steps after
            statuses = [r[1] for r in split.rules]
            remember_json(split.deferrable, tuple(
                j for j, status in zip(key[-1], statuses, strict=True)
                if status is Status.DEFERRED))
    return split


def _classify(
    defs: Sequence[Mapping[str, Any]], reg: Registry, defer: frozenset[str] | None,
    profile: Profile,
) -> Classification:
    chunks = chunks_of(defs)
    if chunks is None:
        return _classify_flat(defs, reg, defer, profile)
    # A name's rule depends on the profile, the core set, the defer list and the name's own
    # registry entry: a chunk whose names have the same entries gets the same decisions.
    rule_of = _rules(reg, defer, profile)
    context = (profile.name, profile.direct_surface_toolsets, reg.core_for(profile),
               defer if profile.has_defer_list else None)
    entries = reg.toolsets
    visible: list[Any] = []
    deferred: list[Any] = []
    dropped: list[Any] = []
    rules: list[tuple[str, Status, Rule, str | None]] = []
    shares: list[tuple[Any, ...]] = []
    for chunk in chunks:
        names = chunk_names(chunk)
        key = (id(chunk), context, tuple(map(entries.get, names)))
        split = per_chunk(_chunk_splits, key, chunk,
                          partial(_classify_flat, chunk, reg, defer, profile, rule_of))
        visible += split.visible
        deferred += split.deferrable
        dropped += split.dropped
        rules += split.rules
        if split.deferrable:
            shares.append(split.deferrable)
    deferrable = tuple(deferred)
    register_chunks(deferrable, tuple(shares))
    return Classification(tuple(visible), deferrable, tuple(dropped), tuple(rules), tuple(defs))


_chunk_splits: dict[tuple[Any, ...], tuple[tuple[Any, ...], Classification]] = register_cache(
    "classify.chunk_splits", {})
_chunk_names: dict[int, tuple[tuple[Any, ...], tuple[str, ...]]] = register_cache(
    "classify.chunk_names", {})


def chunk_names(chunk: tuple[Any, ...]) -> tuple[str, ...]:
    """:func:`def_name` of each def of a chunk (see :func:`register_chunks`), remembered."""
    return per_chunk(_chunk_names, id(chunk), chunk, lambda: tuple(map(def_name, chunk)))


def _classify_flat(
    defs: Sequence[Mapping[str, Any]], reg: Registry, defer: frozenset[str] | None,
    profile: Profile,
    rule_of: Callable[[str], tuple[Status, Rule, str | None]] | None = None,
) -> Classification:
    buckets: dict[Status, list[Any]] = {Status.VISIBLE: [], Status.DEFERRED: [],
                                        Status.DROPPED: []}
    rules: list[tuple[str, Status, Rule, str | None]] = []
    if rule_of is None:
        rule_of = _rules(reg, defer, profile)
    add_rule = rules.append
    for tool_def in defs:
        name = def_name(tool_def)
        status, rule, toolset = rule_of(name)
        add_rule((name, status, rule, toolset))
        buckets[status].append(tool_def)
    return Classification(tuple(buckets[Status.VISIBLE]), tuple(buckets[Status.DEFERRED]),
                          tuple(buckets[Status.DROPPED]), tuple(rules), tuple(defs))


_classify_cache: ContentCache[Classification] = ContentCache(16, "classify")
