"""Themes as data: every ``themes/*.yaml`` file becomes a :class:`textual.theme.Theme`.

A theme file holds Textual's colours plus our semantic variables (``tier-1``,
``status-error``, ...). A bad file is reported and skipped, never fatal. Built-in Textual
themes do not define our variables, so :func:`slot_defaults` derives them from the theme's
own colour system (``$success``, ``$error``...), which keeps ``.tcss`` free of hex literals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from textual.color import Color, ColorParseError
from textual.theme import Theme

from toolsearch.resources import data_dir
from toolsearch.sources.errors import SourceError
from toolsearch.sources.filesafe import read_bounded
from toolsearch.sources.safe_yaml import load_yaml

DEFAULT_THEME = "ops-dark"
COLOUR_KEYS: tuple[str, ...] = (
    "primary", "secondary", "warning", "error", "success", "accent", "foreground",
    "background", "surface", "panel", "boost",
)

#: Our variables and the Textual colour-system variable each one falls back to.
SLOTS: dict[str, str] = {
    "tier-0": "foreground-muted",
    "tier-1": "success",
    "tier-2": "warning",
    "over-budget": "error",
    "within-budget": "success",
    "status-connected": "success",
    "status-snapshot": "secondary",
    "status-error": "error",
    "outcome-ok": "success",
    "outcome-warn": "warning",
    "outcome-error": "error",
    "deferred": "accent",
    "visible": "primary",
    "muted": "foreground-muted",
    "score-bar": "primary",
}


@dataclass(frozen=True)
class ThemeLoad:
    """The themes that loaded and one message per file that did not."""

    themes: tuple[Theme, ...]
    errors: tuple[str, ...]


def themes_dir() -> Path | None:
    try:
        return data_dir("themes")
    except FileNotFoundError:
        return None


def _colour(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where}: expected a colour string, got {type(value).__name__}")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ValueError(f"{where}: {value[:40]!r} is not a colour") from None
    return value


def theme_from_data(data: Any, source: str) -> Theme:
    """Build a Theme from a parsed YAML document; ValueError says what is wrong."""
    if not isinstance(data, Mapping):
        raise ValueError("expected a mapping with name, primary and colours")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("missing 'name'")
    if "primary" not in data:
        raise ValueError("missing 'primary'")
    colours = {k: _colour(data[k], k) for k in COLOUR_KEYS if data.get(k) is not None}
    variables_raw = data.get("variables") or {}
    if not isinstance(variables_raw, Mapping):
        raise ValueError("'variables' must be a mapping")
    variables = {str(k): _colour(v, f"variables.{k}") for k, v in variables_raw.items()}
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ValueError("'dark' must be true or false")
    return Theme(name=name.strip(), dark=dark, variables=variables, **colours)


def load_theme_file(path: Path) -> Theme:
    try:  # a theme file is a SOURCE's: a FIFO or /dev/zero is refused, not read
        text = read_bounded(path, "theme file").decode("utf-8")
    except SourceError as exc:
        raise ValueError(str(exc).removeprefix(f"{path}: ")) from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"cannot read: {exc}") from None
    try:
        data = load_yaml(text)  # bounded: alias bombs and cycles refused
        return theme_from_data(data, str(path))
    except yaml.YAMLError as exc:
        raise ValueError(f"not valid YAML: {str(exc).splitlines()[0]}") from None
    except RecursionError:  # a bad theme is never fatal, however deep
        raise ValueError("nested too deeply") from None


def load_themes(folder: Path | None = None) -> ThemeLoad:
    """Every ``*.yaml``/``*.yml`` theme in *folder* (sorted by file name)."""
    folder = folder if folder is not None else themes_dir()
    if folder is None or not folder.is_dir():
        return ThemeLoad((), ("themes folder not found; using Textual's built-in themes",))
    themes: list[Theme] = []
    errors: list[str] = []
    seen: set[str] = set()
    files = sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])
    for path in files:
        try:
            theme = load_theme_file(path)
        except ValueError as exc:
            errors.append(f"theme file {path.name} skipped: {exc}")
            continue
        if theme.name in seen:
            errors.append(f"theme file {path.name} skipped: theme {theme.name!r} defined twice")
            continue
        seen.add(theme.name)
        themes.append(theme)
    return ThemeLoad(tuple(themes), tuple(errors))


def theme_names(folder: Path | None = None) -> list[str]:
    """Every theme ``--theme`` can name: ours (from *folder*), then Textual's own."""
    from textual.theme import BUILTIN_THEMES

    ours = [theme.name for theme in load_themes(folder).themes]
    return [*ours, *(name for name in BUILTIN_THEMES if name not in ours)]


def slot_defaults(theme: Theme) -> dict[str, str]:
    """Our variables for a theme that does not define them, from its colour system."""
    system = theme.to_color_system().generate()
    return {slot: system.get(base, system["foreground"]) for slot, base in SLOTS.items()}

