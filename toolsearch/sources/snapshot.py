"""Write a workspace as a catalog file (SPEC §5): what ``toolsearch snapshot`` produces.

The output loads back (:func:`toolsearch.sources.catalog_file.load_catalog_file`) to the same
tool defs and registry. It is deterministic: toolsets in workspace order, tools in order,
keys in a fixed order; YAML keeps each schema on one flow-style mapping.

What is written: the catalog name, ``context_length``, ``core`` (sorted) and ``tool_search``
when set; per toolset its name, kind, server ``version`` and tools (their source names, not
the exposed ``mcp__`` names). A toolset in error is **recorded** with ``error:`` (redacted)
and whatever tools it still had, so it loads back as an error row. Origins are never written:
a live server's origin may hold a command line, arguments or secrets.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from toolsearch.sources.errors import SourceError
from toolsearch.sources.filesafe import atomic_replace, replace_with_backup
from toolsearch.sources.redact import redact_text
from toolsearch.tooldefs import thaw
from toolsearch.toolsets import Toolset, ToolsetStatus, Workspace

YAML_SUFFIXES: tuple[str, ...] = (".yaml", ".yml")
JSON_SUFFIXES: tuple[str, ...] = (".json",)
YAML_WIDTH = 120
FLOW_MAX_CHARS = 100

# --------------------------------------------------------------------------- document


class _Flow(dict):  # type: ignore[type-arg]
    """A mapping written in YAML flow style (``{type: object, ...}``)."""


class _FlowList(list):  # type: ignore[type-arg]
    """A list written in YAML flow style (``[a, b]``)."""


def _styled(value: Any) -> Any:
    """Small mappings and lists in flow style (one line), bigger ones as blocks."""
    return _styled_sized(value)[0]


def _styled_sized(value: Any) -> tuple[Any, int]:
    """(styled value, length of its JSON text), computed bottom-up in one pass."""
    if isinstance(value, Mapping):
        items = [(str(k), _styled_sized(v)) for k, v in value.items()]
        size = 2 + sum(len(json.dumps(k, ensure_ascii=False)) + 2 + n for k, (_, n) in items)
        size += 2 * max(len(items) - 1, 0)
        if size <= FLOW_MAX_CHARS:
            return _Flow((k, thaw(v)) for k, (v, _) in items), size
        return {k: v for k, (v, _) in items}, size
    if isinstance(value, list | tuple):
        parts = [_styled_sized(v) for v in value]
        size = 2 + sum(n for _, n in parts) + 2 * max(len(parts) - 1, 0)
        if size <= FLOW_MAX_CHARS:
            return _FlowList(thaw(value)), size
        return [v for v, _ in parts], size
    return value, len(json.dumps(value, ensure_ascii=False, default=str))


def _toolset_entry(toolset: Toolset) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": toolset.name, "kind": toolset.kind}
    if toolset.server_version:
        entry["version"] = toolset.server_version
    if toolset.status is ToolsetStatus.ERROR:
        entry["error"] = redact_text(toolset.error) or "error"
    tools = []
    for tool in toolset.tools:
        item: dict[str, Any] = {"name": tool.name}
        if tool.description:
            item["description"] = tool.description
        item["inputSchema"] = _styled(tool.input_schema)
        tools.append(item)
    entry["tools"] = tools
    return entry


def catalog_document(workspace: Workspace, *, name: str | None = None) -> dict[str, Any]:
    """The catalog file content as plain data (the order keys are written in)."""
    doc: dict[str, Any] = {"name": name or workspace.name or "catalog"}
    if workspace.context_length:
        doc["context_length"] = int(workspace.context_length)
    if workspace.core is not None:
        doc["core"] = _FlowList(sorted(workspace.core))
    if workspace.tool_search is not None:
        raw = workspace.tool_search
        doc["tool_search"] = _styled(raw)
    doc["toolsets"] = [_toolset_entry(ts) for ts in workspace.toolsets]
    return doc


# --------------------------------------------------------------------------- YAML / JSON text


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    pass


def _represent_flow(dumper: Any, data: Mapping[str, Any]) -> Any:
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=True)


def _represent_flow_list(dumper: Any, data: list[Any]) -> Any:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)


def _represent_str(dumper: Any, data: str) -> Any:
    # Multi-line text as a literal block; PyYAML falls back to quoting when it cannot.
    style = "|" if "\n" in data and len(data) < 20000 else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(_Flow, _represent_flow)
_Dumper.add_representer(_FlowList, _represent_flow_list)
_Dumper.add_representer(str, _represent_str)


def catalog_text(workspace: Workspace, *, fmt: str = "yaml", name: str | None = None) -> str:
    """The catalog file text, ``fmt`` ``"yaml"`` or ``"json"``."""
    doc = catalog_document(workspace, name=name)
    if fmt == "json":
        return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    if fmt != "yaml":
        raise ValueError(f"unknown catalog format {fmt!r}")
    text = yaml.dump(
        doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=YAML_WIDTH,
        default_flow_style=False,
    )
    return text


def format_for(path: Path) -> str:
    """``"yaml"`` or ``"json"`` from the file suffix; :class:`SourceError` otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix in YAML_SUFFIXES:
        return "yaml"
    if suffix in JSON_SUFFIXES:
        return "json"
    raise SourceError(f"{path}: cannot write a catalog here: use a .yaml, .yml or .json file name")


def write_catalog_file(workspace: Workspace, path: Path, *, name: str | None = None,
                       sources: Sequence[str] = (), force: bool = False,
                       keep_tuned: bool = False, keep_previous: bool = False) -> Path | None:
    """Write ``workspace`` to ``path`` (YAML for .yaml/.yml, JSON for .json) atomically.

    The operator's files are never clobbered: an output that is one of the *sources*, or an
    existing file that is not a catalog, is refused unless *force* (and then a ``.bak`` copy is
    kept). *keep_tuned*: a catalog whose ``tool_search`` block the new one replaces
    (:func:`replaced_tool_search`) is backed up too, and with *keep_previous* any existing
    file. Returns the backup's path, if one was made."""
    path = Path(path)
    text = catalog_text(workspace, fmt=format_for(path), name=name or workspace.name or path.stem)
    kept = check_output(path, sources, force=force)
    if not kept and not keep_previous and not (keep_tuned and
                                               replaced_tool_search(path, workspace)):
        atomic_write_text(path, text)
        return None
    # the previous backup is replaced only once the new catalog is in place
    return replace_with_backup(path, _encoded(path, text))


def replaced_tool_search(path: Path, workspace: Workspace) -> str:
    """What writing *workspace* to the catalog at *path* would lose of its ``tool_search``
    block, in words (its keys: ``threshold_pct, listing_max_tokens``); "" when there is no
    such catalog, it has no block (or an empty one), or the new catalog holds the same."""
    from .catalog_file import read_document

    if not os.path.isfile(path):
        return ""
    try:
        data, _, _ = read_document(path)
    except SourceError:
        return ""
    if not (isinstance(data, Mapping) and isinstance(data.get("toolsets"), list)):
        return ""
    old = data.get("tool_search")
    new = thaw(workspace.tool_search) if workspace.tool_search is not None else None
    if old is None or old == {} or old == new:
        return ""
    if isinstance(old, Mapping):
        return ", ".join(str(key) for key in old)
    return f"tool_search: {old!r}"


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_output(path: Path, sources: Sequence[str] = (), *, force: bool = False) -> bool:
    """Whether writing *path* would replace something worth a backup; SourceError when it
    must not be replaced (a SOURCE of this very snapshot, or a file that is not a catalog)
    and *force* is not given."""
    from .catalog_file import read_document
    from .detect import resolve_path

    if not os.path.lexists(path):
        return False
    if os.path.isdir(path):
        raise SourceError(f"{path}: cannot write: is a directory; name a file to write")
    for spec in sources:
        try:
            source = resolve_path(str(spec))
        except SourceError:
            continue
        if _same_file(source, path):
            if force:
                return True
            raise SourceError(f"{path}: is one of the SOURCEs of this snapshot; refusing to "
                              "overwrite it (write elsewhere, or add --force to replace it "
                              "and keep a .bak copy)")
    try:
        data, _, _ = read_document(path)
        is_catalog = isinstance(data, Mapping) and isinstance(data.get("toolsets"), list) \
            and not isinstance(data.get("mcp_servers"), Mapping)
    except SourceError:
        is_catalog = False
    if is_catalog:
        return False
    if force:
        return True
    raise SourceError(f"{path}: exists and is not a catalog file; refusing to overwrite it "
                      "(add --force to replace it and keep a .bak copy)")


def _encoded(path: Path, text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SourceError(f"{path}: cannot write: text is not valid Unicode ({exc.reason})"
                          ) from None


def atomic_write_text(path: Path, text: str) -> None:
    """Write UTF-8 text through a temporary file and ``os.replace`` (keeps an existing mode,
    owner and group; the temporary file never outlives a failure)."""
    atomic_replace(Path(path), _encoded(path, text))
