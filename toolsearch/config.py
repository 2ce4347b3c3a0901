"""``tools.tool_search`` configuration: parsing, clamping and aliases (REFERENCE §2)."""

from __future__ import annotations

import logging
import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from .classify import DEFAULT_DEFER_TOOLS
from .profile import Profile, ProfileLike, as_profile

log = logging.getLogger("tools.tool_search")

TRI_STATES = ("auto", "on", "off")
_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")


@dataclass(frozen=True)
class ConfigKey:
    """One ``tools.tool_search`` key: the single table that ``from_raw``, ``--set`` help, the
    app's Tuning pane and the README read."""

    name: str
    type: str
    """``tristate``, ``float``, ``int`` or ``list``."""
    default: Any
    """The seed default (a profile may override it, see ``Profile.defaults``)."""
    low: float | None
    high: float | str | None
    """A number, or the name of the key whose parsed value is the upper bound."""
    help: str

    def range_text(self) -> str:
        if self.low is None:
            return ""
        high = f"{self.high:,}" if isinstance(self.high, int) else (
            f"{self.high:g}" if isinstance(self.high, float) else "max")
        return f"{self.low:g}-{high}"


#: Every key an operator can set, in the order the docs list them (REFERENCE §2).
CONFIG_TABLE: tuple[ConfigKey, ...] = (
    ConfigKey("enabled", "tristate", "auto", None, None,
              "auto = on; off sends every schema eagerly"),
    ConfigKey("threshold_pct", "float", 5.0, 0.0, 100.0,
              "% of context for the listing (0-100)"),
    ConfigKey("search_default_limit", "int", 5, 1, "max_search_limit",
              "hits when no limit is given (1-max)"),
    ConfigKey("max_search_limit", "int", 20, 1, 50,
              "largest limit a call may ask (1-50)"),
    ConfigKey("listing", "tristate", "auto", None, None,
              "off: no list of tool names in tool_search; the model must search"),
    ConfigKey("listing_max_tokens", "int", 4000, 200, 60000,
              "listing cap (200-60,000)"),
    ConfigKey("defer", "list", None, None, None,
              "tool names deferred first (latest; unset: the curated list)"),
)
CONFIG_KEYS: tuple[str, ...] = tuple(k.name for k in CONFIG_TABLE)
CONFIG_KEY: Mapping[str, ConfigKey] = {k.name: k for k in CONFIG_TABLE}


def defaults_for(profile: ProfileLike = "seed") -> dict[str, Any]:
    """The scalar defaults of the table with the profile's own overrides."""
    base = {k.name: k.default for k in CONFIG_TABLE if k.type != "list"}
    return {**base, **as_profile(profile).defaults}


#: Seed-profile defaults (the seed article's ``hermes config get`` output).
SEED_DEFAULTS: dict[str, Any] = {k.name: k.default for k in CONFIG_TABLE if k.type != "list"}


def parse_tristate(value: Any) -> str:
    """``true/1/yes`` -> on, ``false/0/no`` -> off, auto/on/off kept, anything else -> auto."""
    text = str(value).strip().lower()
    if text in _TRUE:
        return "on"
    if text in _FALSE:
        return "off"
    return text if text in TRI_STATES else "auto"


def _safe_float(value: Any, default: float) -> float:
    try:
        result = float(value)
    except (TypeError, ValueError):
        return default
    except OverflowError:  # an integer too large for a float: as large as a float goes
        return math.inf if value > 0 else -math.inf
    return default if math.isnan(result) else result


def _safe_int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return default


def _clamp(value: float, low: float, high: float) -> Any:
    return max(low, min(high, value))


def _parse_value(key: ConfigKey, value: Any, default: Any, parsed: Mapping[str, Any]) -> Any:
    """One scalar key: tri-state words, or a number parsed, defaulted and clamped."""
    if key.type == "tristate":
        return parse_tristate(value)
    high = parsed[key.high] if isinstance(key.high, str) else key.high
    low = key.low if key.low is not None else -math.inf
    top = high if high is not None else math.inf
    if key.type == "float":
        return float(_clamp(_safe_float(value, default), low, top))
    return int(_clamp(_safe_int(value, default), low, top))


def _parse_defer(value: Any) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, list | tuple | set | frozenset):
        return frozenset(str(x).strip() for x in value if str(x).strip())
    log.warning(
        "tools.tool_search.defer: expected a YAML list of tool names, got %s; "
        "using the curated default",
        type(value).__name__,
    )
    return None


@dataclass(frozen=True)
class ToolSearchConfig:
    """Parsed ``tools.tool_search`` block. Build it with :meth:`from_raw`; never raises."""

    enabled: str = "auto"
    threshold_pct: float = 5.0
    search_default_limit: int = 5
    max_search_limit: int = 20
    listing: str = "auto"
    listing_max_tokens: int = 4000
    defer: frozenset[str] | None = None
    profile: Profile = field(default_factory=lambda: as_profile(None))
    """The profile object (a name given here is resolved through the registry)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "profile", as_profile(self.profile))

    @classmethod
    def from_raw(cls, raw: Any = None, *, profile: ProfileLike = "seed") -> ToolSearchConfig:
        """Parse a raw config value exactly as Hermes does; bad values clamp or default."""
        rules = as_profile(profile)
        d = defaults_for(rules)
        if not isinstance(raw, Mapping):
            return cls(enabled="off" if raw is False else "auto",
                       max_search_limit=d["max_search_limit"], profile=rules)
        values: dict[str, Any] = {}
        # keys bounded by another key's value come after it (max_search_limit first)
        for key in sorted(CONFIG_TABLE, key=lambda k: isinstance(k.high, str)):
            if key.type == "list":
                values[key.name] = _parse_defer(raw.get(key.name)) if rules.has_defer_list \
                    else None
            else:
                values[key.name] = _parse_value(key, raw.get(key.name, d[key.name]),
                                                d[key.name], values)
        return cls(**values, profile=rules)

    @property
    def effective_defer_tools(self) -> frozenset[str] | None:
        """The curated list when ``defer`` is unset; the user's list otherwise.

        The ``seed`` profile has no defer list at all, so this is None there.
        """
        if not self.profile.has_defer_list:
            return None
        return DEFAULT_DEFER_TOOLS if self.defer is None else self.defer

    def to_raw(self) -> dict[str, Any]:
        """The block as it would be saved to ``config.yaml`` (clamped values)."""
        threshold: float | int = self.threshold_pct
        if float(threshold).is_integer():
            threshold = int(threshold)
        raw: dict[str, Any] = {
            "enabled": self.enabled,
            "threshold_pct": threshold,
            "search_default_limit": self.search_default_limit,
            "max_search_limit": self.max_search_limit,
            "listing": self.listing,
            "listing_max_tokens": self.listing_max_tokens,
        }
        if self.profile.has_defer_list and self.defer is not None:
            raw["defer"] = sorted(self.defer)
        return raw

    def with_values(self, **changes: Any) -> ToolSearchConfig:
        """Re-parse with some raw values changed, so every clamp applies again."""
        raw = self.to_raw()
        if self.defer is not None:
            raw["defer"] = sorted(self.defer)
        raw.update(changes)
        return ToolSearchConfig.from_raw(raw, profile=self.profile)

    def with_profile(self, profile: ProfileLike) -> ToolSearchConfig:
        rules = as_profile(profile)
        if rules is self.profile:
            return self
        raw = self.to_raw()
        if self.defer is not None:
            raw["defer"] = sorted(self.defer)
        return ToolSearchConfig.from_raw(raw, profile=rules)


def read_as_note(key: str, value: Any, config: ToolSearchConfig) -> str:
    """How Hermes read ``KEY=VALUE`` in words when that is not VALUE itself (a number it cannot
    parse is the default, one out of range is clamped, an unknown word is ``auto``); "" when
    taken as given. For ``--set``: the operator sees what took effect instead."""
    spec = CONFIG_KEY.get(key)
    if spec is None or spec.type == "list":
        return ""
    took = getattr(config, key)
    shown = f"{key}={_bounded(value)}"
    if spec.type == "tristate":
        text = str(value).strip().lower()
        known = text in TRI_STATES or text in _TRUE or text in _FALSE
        return "" if known else f"{shown} is not auto, on or off: read as {took}"
    # as Hermes' int() for a whole-number key: 4000.7 is 4000, "1e9" is no whole number
    number = _as_number(value, whole=spec.type == "int")
    if math.isnan(number):
        what = "a whole number" if spec.type == "int" else "a number"
        return f"{shown} is not {what}: read as the default {took:g}"
    notes = []
    if isinstance(value, bool) or number != _as_number(value, whole=False):
        notes.append(f"is read as {number:g}")  # YAML's true is 1; a fraction is cut off
    if number != took:
        high = spec.high
        top = f"{getattr(config, high):g} ({high})" if isinstance(high, str) else f"{high:,g}"
        notes.append(f"{'which ' if notes else ''}is outside {spec.low:g}-{top}: clamped to "
                     f"{took:g}")
    return f"{shown} " + ", ".join(notes) if notes else ""


def _as_number(value: Any, *, whole: bool) -> float:
    """``float(value)`` (of ``int(value)`` when *whole*), nan where Hermes falls back to the
    default; an integer too large for a float is infinite (a file's value is not cut)."""
    try:
        return float(int(value) if whole else value)
    except OverflowError:
        return (math.inf if value > 0 else -math.inf) if isinstance(value, int) else math.nan
    except (TypeError, ValueError):
        return math.nan


def _bounded(value: Any, most: int = 60) -> str:
    """*value* as a note shows it: a string quoted, anything else as written, cut past
    *most* characters (a value read from a file may be a whole document)."""
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= most else text[:most - 1] + "…"


def block_notes(raw: Mapping[str, Any] | None, profile: ProfileLike = "seed", *,
                skip: Collection[str] = ()) -> tuple[str, ...]:
    """:func:`read_as_note` for each key of a ``tools.tool_search`` block loaded from a file
    (bar the keys in *skip*, which ``--set`` replaces): what Hermes clamps or defaults
    silently, for the CLI to say once. Reading the block itself is unchanged."""
    if not isinstance(raw, Mapping):
        return ()
    scalars = {key: value for key, value in raw.items() if key != "defer"}  # the engine
    config = ToolSearchConfig.from_raw(scalars, profile=profile)  # warns about defer itself
    notes = (read_as_note(str(key), value, config) for key, value in raw.items()
             if key not in skip)
    return tuple(note for note in notes if note)


def parse_assignment(text: str) -> tuple[str, Any]:
    """Parse ``KEY=VALUE`` from ``--set``; the value is YAML-ish (numbers, lists, words)."""
    import yaml

    key, sep, value = text.partition("=")
    key = key.strip()
    if key.startswith("tools.tool_search."):
        key = key[len("tools.tool_search."):]
    if not sep or not key:
        raise ValueError(f"expected KEY=VALUE, got {text!r}")
    if key not in CONFIG_KEYS:
        raise ValueError(f"unknown tool_search key {key!r} (known: {', '.join(CONFIG_KEYS)})")
    try:
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    except RecursionError:
        raise ValueError(f"--set {key}: the value is nested too deeply to read") from None
    if key in ("enabled", "listing") and isinstance(parsed, bool):
        parsed = str(parsed)  # inside the dict a YAML bool becomes "True" -> on
    return key, parsed
