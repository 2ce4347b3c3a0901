"""``tools.tool_search`` configuration: parsing, clamping and aliases (REFERENCE §2)."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from .classify import DEFAULT_DEFER_TOOLS

log = logging.getLogger("tools.tool_search")

TRI_STATES = ("auto", "on", "off")
_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")

#: Seed-profile defaults (the seed article's ``hermes config get`` output).
SEED_DEFAULTS: dict[str, Any] = {
    "enabled": "auto",
    "threshold_pct": 5.0,
    "search_default_limit": 5,
    "max_search_limit": 20,
    "listing": "auto",
    "listing_max_tokens": 4000,
}
LATEST_DEFAULTS: dict[str, Any] = {**SEED_DEFAULTS, "max_search_limit": 25}

#: Every key an operator can set, in the order the docs list them.
CONFIG_KEYS: tuple[str, ...] = (
    "enabled",
    "threshold_pct",
    "search_default_limit",
    "max_search_limit",
    "listing",
    "listing_max_tokens",
    "defer",
)


def defaults_for(profile: str = "seed") -> dict[str, Any]:
    return dict(LATEST_DEFAULTS if profile == "latest" else SEED_DEFAULTS)


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
    return default if math.isnan(result) else result


def _safe_int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return default


def _clamp(value: float, low: float, high: float) -> Any:
    return max(low, min(high, value))


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
    profile: str = "seed"

    @classmethod
    def from_raw(cls, raw: Any = None, *, profile: str = "seed") -> ToolSearchConfig:
        """Parse a raw config value exactly as Hermes does; bad values clamp or default."""
        d = defaults_for(profile)
        if not isinstance(raw, Mapping):
            return cls(
                enabled="off" if raw is False else "auto",
                max_search_limit=d["max_search_limit"],
                profile=profile,
            )
        max_limit = int(_clamp(_safe_int(raw.get("max_search_limit", d["max_search_limit"]),
                                         d["max_search_limit"]), 1, 50))
        default_limit = int(_clamp(
            _safe_int(raw.get("search_default_limit", d["search_default_limit"]),
                      d["search_default_limit"]),
            1, max_limit,
        ))
        threshold = float(_clamp(_safe_float(raw.get("threshold_pct", d["threshold_pct"]),
                                             d["threshold_pct"]), 0.0, 100.0))
        max_tokens = int(_clamp(_safe_int(raw.get("listing_max_tokens", d["listing_max_tokens"]),
                                          d["listing_max_tokens"]), 200, 60000))
        return cls(
            enabled=parse_tristate(raw.get("enabled", d["enabled"])),
            threshold_pct=threshold,
            search_default_limit=default_limit,
            max_search_limit=max_limit,
            listing=parse_tristate(raw.get("listing", d["listing"])),
            listing_max_tokens=max_tokens,
            defer=_parse_defer(raw.get("defer")) if profile == "latest" else None,
            profile=profile,
        )

    @property
    def effective_defer_tools(self) -> frozenset[str] | None:
        """The curated list when ``defer`` is unset; the user's list otherwise.

        The ``seed`` profile has no defer list at all, so this is None there.
        """
        if self.profile != "latest":
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
        if self.profile == "latest" and self.defer is not None:
            raw["defer"] = sorted(self.defer)
        return raw

    def with_values(self, **changes: Any) -> ToolSearchConfig:
        """Re-parse with some raw values changed, so every clamp applies again."""
        raw = self.to_raw()
        if self.defer is not None:
            raw["defer"] = sorted(self.defer)
        raw.update(changes)
        return ToolSearchConfig.from_raw(raw, profile=self.profile)

    def with_profile(self, profile: str) -> ToolSearchConfig:
        return replace(self, profile=profile) if profile == self.profile else \
            ToolSearchConfig.from_raw(self.to_raw(), profile=profile)


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
    if key in ("enabled", "listing") and isinstance(parsed, bool):
        parsed = str(parsed)  # inside the dict a YAML bool becomes "True" -> on
    return key, parsed
