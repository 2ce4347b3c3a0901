"""What a save would change: the ``tools.tool_search`` keys the operator set, old against new.

Pure: reads the target file's current block (if any) and compares it with the values to write,
after the same clamping the save applies. The bytes the diff was made from are kept: a file
that no longer holds them when the operator says yes is not saved (he saw another diff). The
confirmation screen shows :func:`diff_lines`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from toolsearch.config import ToolSearchConfig
from toolsearch.sources.errors import SourceError
from toolsearch.sources.filesafe import read_bounded
from toolsearch.sources.safe_yaml import load_yaml


@dataclass(frozen=True)
class KeyChange:
    key: str
    old: Any
    """The value in the file now (``None`` when the key is not set there)."""
    new: Any


def on_disk(path: Path) -> bytes | None:
    """The bytes of *path* now (None when missing or unreadable): what a diff is made from,
    compared again when the operator says yes."""
    try:  # the path may be one the operator typed: bounded, like every file we read
        return read_bounded(path, "config file")
    except (SourceError, OSError):
        return None  # the save itself says why it cannot write there


def block_of(raw: bytes | None) -> dict[str, Any]:
    """The ``tools.tool_search`` block of a file holding *raw* (empty when None or unreadable)."""
    if raw is None:
        return {}
    try:
        data = load_yaml(raw.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError, ValueError, RecursionError):
        return {}
    tools = data.get("tools") if isinstance(data, Mapping) else None
    block = tools.get("tool_search") if isinstance(tools, Mapping) else None
    return dict(block) if isinstance(block, Mapping) else {}


def _same(key: str, old: Any, new: Any) -> bool:
    if old is None:
        return False
    try:
        a = ToolSearchConfig.from_raw({key: old}, profile="latest").to_raw().get(key)
        b = ToolSearchConfig.from_raw({key: new}, profile="latest").to_raw().get(key)
    except Exception:
        return old == new
    return bool(a == b)


def changes(raw: bytes | None, values: Mapping[str, Any]) -> tuple[KeyChange, ...]:
    """The keys whose saved value would differ from those of a file holding *raw* (what
    :func:`on_disk` read; in the order given)."""
    block = block_of(raw)
    return tuple(KeyChange(k, block.get(k), v) for k, v in values.items()
                 if not _same(k, block.get(k), v))


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("...").strip()


def diff_lines(found: tuple[KeyChange, ...]) -> list[str]:
    """A unified-diff-like view of the block: ``-`` the file's line, ``+`` the saved one."""
    lines = ["  tools:", "    tool_search:"]
    for change in found:
        if change.old is None:
            lines.append(f"-     {change.key}: (not set: the default applies)")
        else:
            lines.append(f"-     {change.key}: {_text(change.old)}")
        lines.append(f"+     {change.key}: {_text(change.new)}")
    return lines
