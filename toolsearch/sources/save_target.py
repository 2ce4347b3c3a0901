"""Where ``tune --save`` may write: only a Hermes ``config.yaml`` (its ``tools.tool_search``)
or a catalog file's own top-level ``tool_search``. A client config (Claude Desktop, Cursor,
VS Code), a JSON file, a server dump or any other file is refused: writing a YAML block into
it would rewrite it in another format or add a key nothing reads."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .detect import CATALOG, HERMES, KIND_LABELS, detect_kind
from .errors import SourceError
from .filesafe import BACKUP_SUFFIX
from .save import (
    SaveResult,
    TextToRewrite,
    _dump,
    _edit_block,
    _flow,
    _plain,
    _rt_yaml,
    apply_values,
    save_tool_search_block,
)

YAML_SUFFIXES = (".yaml", ".yml")
CATALOG_BLOCK = "tool_search (the catalog's own, top level)"


CLI_WORDS = {
    "not_file": "--save writes an existing Hermes config.yaml",
    "only": "--save writes only a Hermes config.yaml or a YAML catalog",
    "utf8": "--save rewrites only UTF-8 files, and would change its encoding",
}
"""How :func:`save_kind`'s refusals end for ``tune --save``."""
APP_WORDS = {
    "not_file": "the app saves into a Hermes config.yaml, or a new .yaml file it creates",
    "only": "the app saves only into a Hermes config.yaml",
    "utf8": "the app rewrites only UTF-8 files, and would change its encoding",
}
"""How they end for the app's save (no command-line flag the app has not got)."""


def save_kind(path: Path, words: Mapping[str, str] = CLI_WORDS) -> str:
    """``"hermes"`` or ``"catalog"`` for a file ``tune --save`` may write; SourceError
    naming what the file is otherwise, its reason ending in *words* (:data:`CLI_WORDS`, or
    :data:`APP_WORDS` for the app)."""
    from .catalog_file import read_document, wide_encoding

    path = Path(path)
    if not path.is_file():
        raise SourceError(f"{path}: not a file; {words['not_file']}")
    data, _, lossy = read_document(path)
    kind = detect_kind(data)
    if kind not in (HERMES, CATALOG) or path.suffix.lower() not in YAML_SUFFIXES:
        what = f"a {KIND_LABELS[kind]}" if kind else "not a Hermes config or a catalog"
        suffix = path.suffix.lower()
        if kind in (HERMES, CATALOG) and suffix == BACKUP_SUFFIX:  # read ".bak format"
            raise SourceError(f"{path}: is a backup (.bak) of a {KIND_LABELS[kind]}; refusing "
                              "to write into a backup (save into "
                              f"{path.name.removesuffix(path.suffix)} itself)")
        if kind in (HERMES, CATALOG):
            what = f"a {KIND_LABELS[kind]}" + (
                " in JSON, not YAML" if suffix == ".json" else
                ", but its name has no .yaml or .yml ending")
        raise SourceError(f"{path}: is {what}; refusing to write a tool_search block into it "
                          f"({words['only']})")
    if lossy:
        raise SourceError(f"{path}: not valid UTF-8; refusing to rewrite it")
    with path.open("rb") as handle:  # read (so a regular file) by read_document just above
        wide = wide_encoding(handle.read(4))
    if wide is not None:
        raise SourceError(f"{path}: is {wide.upper()} text; refusing to rewrite it "
                          f"({words['utf8']})")
    return "catalog" if kind == CATALOG else "hermes"


def save_into(path: Path, values: Mapping[str, Any]) -> tuple[SaveResult, str]:
    """Save *values* where this file keeps them; returns (result, the block written)."""
    if save_kind(path) == "hermes":
        return save_tool_search_block(path, values), "tools.tool_search"
    return save_catalog_block(path, values), CATALOG_BLOCK


def save_catalog_block(config_path: Path, values: Mapping[str, Any]) -> SaveResult:
    """Write *values* (clamped) into a catalog's top-level ``tool_search`` (round-trip: other
    keys and comments kept; verified before anything is written; backup and atomic write)."""
    shown = Path(config_path)
    path = shown.resolve() if shown.is_symlink() else shown
    read = TextToRewrite.read(path, shown, "catalog file")
    text = read.text
    try:
        before = _plain(text)
        current = before.get("tool_search") if isinstance(before, dict) else None
        wanted = dict(current) if isinstance(current, dict) else {}
        changed = apply_values(wanted, {k: v for k, v in values.items() if v is not None})
        if not changed:
            return SaveResult(shown, None, ())
        rt, document = _rt_yaml(text)
    except SourceError as exc:
        raise SourceError(f"{shown}: {exc}") from None
    keep = {k: v for k, v in (before or {}).items() if k != "tool_search"}

    def kept(candidate: str | None) -> bool:
        if candidate is None:
            return False
        after = _plain(candidate)
        return isinstance(after, dict) and after.get("tool_search") == wanted and \
            {k: v for k, v in after.items() if k != "tool_search"} == keep

    new_text = _splice_top_level(text, document, wanted, changed)
    if not kept(new_text):  # the full dump only when needed: seconds on a big catalog
        dumped = _dump(rt, _updated_top_level(document, wanted, changed), text)
        new_text = dumped if kept(dumped) else None
    return SaveResult(shown, read.write(path, shown, new_text), tuple(changed))


def _updated_top_level(document: Any, wanted: Mapping[str, Any],
                       changed: Mapping[str, Any]) -> Any:
    """The round-trip catalog with its top-level ``tool_search`` changed (for the dump)."""
    from ruamel.yaml.comments import CommentedMap

    block = document.get("tool_search")
    if not isinstance(block, dict):
        document["tool_search"] = CommentedMap(wanted)
        return document
    block.update(changed)
    return document


def _splice_top_level(text: str, document: Any, block: Mapping[str, Any],
                      changed: Mapping[str, Any]) -> str | None:
    """The text with only the top-level ``tool_search`` changed: a block mapping edited key by
    key (comments kept), a one-line one replaced, or a new one inserted before
    ``toolsets:``. None for any other shape (the caller then dumps the round-trip document)."""
    import yaml

    line = "tool_search: " + yaml.safe_dump(dict(block), default_flow_style=True,
                                            width=10**6, sort_keys=False).strip() + "\n"
    lines = text.splitlines(keepends=True)
    old = document.get("tool_search") if isinstance(document, dict) else None
    if isinstance(old, dict) and old and not _flow(old):
        key_line, col = document.lc.key("tool_search")
        if col != 0:
            return None
        try:
            return _edit_block(lines, key_line, col, old, changed)
        except (KeyError, IndexError, AttributeError, TypeError):
            return None
    for i, current in enumerate(lines):
        if current.startswith("tool_search:"):
            rest = current[len("tool_search:"):].split(" #")[0].strip()
            if not (rest.startswith("{") and rest.endswith("}")):
                return None
            return "".join(lines[:i] + [line] + lines[i + 1:])
    for i, current in enumerate(lines):
        if current.startswith("toolsets:"):
            return "".join(lines[:i] + [line] + lines[i:])
    return None
