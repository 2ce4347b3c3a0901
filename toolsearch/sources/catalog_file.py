"""Catalog files (SPEC §5) and real server dumps: load them into a :class:`Workspace`.

A *catalog file* is the YAML or JSON document ``toolsearch snapshot`` writes::

    name: seed-demo
    context_length: 200000
    core: [terminal, read_file]
    tool_search: {listing_max_tokens: 4000}
    toolsets:
      - {name: firecrawl, kind: mcp, version: 3.2.0, tools: [{name: scrape, ...}]}

A *real dump* is one server's ``tools/list`` answer: ``{"server": ..., "tools": [...]}``.

Bad input never stops the load. A malformed entry (no name, a non-string name, a schema that
is not an object, a duplicate name, an unknown kind, huge or undecodable text) is skipped and
a warning naming the file and the entry goes to ``Workspace.warnings``, e.g.
``catalog.yaml: toolsets[1].tools[4] (firecrawl): skipped: tool has no name``. Decisions:

* a description over 64 KiB, a name over 256 characters or a schema over 1 MiB of JSON is
  **skipped** (not truncated: a cut schema or description would mislead the model);
* a file that is not valid UTF-8 is decoded with replacement characters and warned about;
  every entry whose text contains an undecodable byte is then skipped;
* only a file that cannot be read, parsed, or is not a mapping raises :class:`SourceError`.
"""

from __future__ import annotations

import codecs
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from toolsearch.caches import register_cache
from toolsearch.sources.entries import entry_problem
from toolsearch.sources.errors import SourceError
from toolsearch.sources.filesafe import files_under, read_bounded
from toolsearch.sources.redact import redact_text
from toolsearch.sources.safe_yaml import YamlRefused, load_yaml
from toolsearch.textsafe import bounded_repr
from toolsearch.tooldefs import EMPTY_SCHEMA, freeze_def
from toolsearch.toolsets import KINDS, Toolset, ToolsetStatus, ToolSpec, Workspace

CATALOG_SUFFIXES: tuple[str, ...] = (".yaml", ".yml", ".json")
SCHEMA_KEYS: tuple[str, ...] = ("inputSchema", "input_schema", "parameters")
MAX_DESCRIPTION_CHARS = 64 * 1024
MAX_NAME_CHARS = 256
MAX_SCHEMA_CHARS = 1024 * 1024
DUMP_INDEX_NAME = "index.json"

_BAD_TEXT = "\ufffd"


# --------------------------------------------------------------------------- predicates


def is_real_dump(data: Any) -> bool:
    """True for a single server's dump: a mapping with a ``server`` string and a ``tools`` list."""
    return (
        isinstance(data, Mapping)
        and isinstance(data.get("server"), str)
        and isinstance(data.get("tools"), list)
        and "toolsets" not in data
    )


def is_catalog_file(data: Any) -> bool:
    """True for a catalog document: a mapping whose ``toolsets`` is a list."""
    return isinstance(data, Mapping) and isinstance(data.get("toolsets"), list)


# --------------------------------------------------------------------------- reading


_parsed: dict[tuple[str, bytes], tuple[Any, tuple[str, ...], bool]] = register_cache(
    "sources.parsed_documents", {})
"""(path, digest of its bytes) -> the parse: a SOURCE is resolved more than once per command
(detection, loading, the save target), and parsing is the slow part. Keyed by content, so an
edited file is parsed again; nothing downstream mutates the parsed data."""


def read_document(path: Path) -> tuple[Any, list[str], bool]:
    """Parse a YAML or JSON file. Returns ``(data, warnings, lossy)``; ``lossy`` means some
    bytes were not UTF-8 and were replaced. Raises :class:`SourceError` with one clear line."""
    path = Path(path)
    raw = read_bounded(path, "catalog file")
    key = (str(path), hashlib.blake2b(raw, digest_size=16).digest())
    hit = _parsed.get(key)
    if hit is None:
        data, warnings, lossy = _decode_and_parse(path, raw)
        if len(_parsed) >= 16:
            _parsed.clear()
        hit = _parsed[key] = (data, tuple(warnings), lossy)
    return hit[0], list(hit[1]), hit[2]


#: Byte-order marks of the wider encodings YAML and JSON allow (UTF-32 first: its
#: little-endian mark starts with UTF-16's), as a Windows editor saves "Unicode" text.
WIDE_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
             (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def wide_encoding(raw: bytes) -> str | None:
    """``"utf-16"`` or ``"utf-32"`` when *raw* starts with that encoding's byte-order mark."""
    return next((name for bom, name in WIDE_BOMS if raw.startswith(bom)), None)


def _decode_and_parse(path: Path, raw: bytes) -> tuple[Any, list[str], bool]:
    warnings: list[str] = []
    wide = wide_encoding(raw)
    if wide is not None:
        try:
            return _parsed_text(path, raw.decode(wide), warnings), warnings, False
        except UnicodeDecodeError as exc:
            raise SourceError(f"{path}: starts with a {wide.upper()} byte-order mark but is "
                              f"not valid {wide.upper()} (byte {exc.start})") from None
    try:
        text = raw.decode("utf-8-sig")
        lossy = False
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8-sig", errors="replace")
        lossy = True
        warnings.append(
            f"{path.name}: not valid UTF-8 (first bad byte at offset {exc.start}); "
            "undecodable bytes replaced, entries containing them skipped"
        )
    return _parsed_text(path, text, warnings), warnings, lossy


def _parsed_text(path: Path, text: str, warnings: list[str]) -> Any:
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise SourceError(f"{path}: file is empty")
    duplicates: list[tuple[str, int]] = []
    data = _parse(path, text, duplicates)
    warnings.extend(f"{path.name}: duplicate key {redact_text(bounded_repr(key))}"
                    + (f" (line {line})" if line else "") + ": only the last one is read"
                    for key, line in duplicates)
    return data


def _parse(path: Path, text: str, duplicates: list[tuple[str, int]]) -> Any:
    try:
        return _parse_text(path, text, duplicates)
    except RecursionError:
        raise SourceError(f"{path}: cannot be read: nested too deeply") from None
    except YamlRefused as exc:
        raise SourceError(f"{path}: {exc}") from None
    except ValueError as exc:  # an integer of over 4,300 digits, ...
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "digits" in first and "limit" in first:
            first = "a number has over 4,300 digits"
        raise SourceError(f"{path}: refused: {first[:120]}") from None


def _parse_text(path: Path, text: str, duplicates: list[tuple[str, int]]) -> Any:
    if path.suffix.lower() == ".json":
        def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
            obj = dict(items)
            if len(obj) < len(items) and len(duplicates) < 3:
                seen: set[str] = set()
                for key, _ in items:
                    if key in seen and len(duplicates) < 3:
                        duplicates.append((key, 0))
                    seen.add(key)
            return obj

        try:
            return json.loads(text, object_pairs_hook=pairs)
        except json.JSONDecodeError as exc:
            raise SourceError(
                f"{path}: not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
            ) from None
    try:
        return load_yaml(text, duplicates)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        if problem == "but found another document":  # PyYAML's second half of a sentence
            at = f" at line {mark.line + 1}" if mark else ""
            raise SourceError(f"{path}: holds more than one YAML document (another starts{at}); "
                              "a source is one document") from None
        raise SourceError(f"{path}: not valid YAML or JSON: {problem}{where}") from None


def _type_name(value: Any) -> str:
    return {
        dict: "mapping", list: "list", str: "string", int: "integer", float: "number",
        bool: "boolean", type(None): "null",
    }.get(type(value), type(value).__name__)


# --------------------------------------------------------------------------- entries


class _Reader:
    """Validates entries of one file and collects warnings that name the file and entry."""

    def __init__(self, label: str, lossy: bool) -> None:
        self.label = label
        self.lossy = lossy
        self.warnings: list[str] = []

    def warn(self, where: str, message: str) -> None:
        self.warnings.append(f"{self.label}: {where}: {message}")

    def name(self, raw: Any, what: str) -> tuple[str | None, str]:
        """A valid name, or ``None`` and the reason."""
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return None, f"{what} has no name"
        if not isinstance(raw, str):
            return None, f"{what} name is not a string (got {_type_name(raw)} {bounded_repr(raw)})"
        if len(raw) > MAX_NAME_CHARS:
            return None, f"{what} name is too long ({len(raw)} characters, limit {MAX_NAME_CHARS})"
        if self.lossy and _BAD_TEXT in raw:
            return None, f"{what} name is not valid UTF-8"
        problem = entry_problem(name=raw)
        if problem:
            return None, f"{what} {problem}"
        return raw.strip(), ""

    def tool(self, raw: Any, spot: str, owner: str) -> ToolSpec | None:
        where = f"{spot} ({owner})"
        if not isinstance(raw, Mapping):
            self.warn(where, f"skipped: tool entry is not a mapping (got {_type_name(raw)})")
            return None
        name, why = self.name(raw.get("name"), "tool")
        if name is None:
            self.warn(where, f"skipped: {why}")
            return None
        where = f"{spot} ({owner}/{name})"
        description = raw.get("description")
        if description is None:
            description = ""
        if not isinstance(description, str):
            self.warn(where, f"skipped: description is not a string (got {_type_name(description)})")
            return None
        if len(description) > MAX_DESCRIPTION_CHARS:
            self.warn(where, f"skipped: description is too large ({len(description)} characters, "
                      f"limit {MAX_DESCRIPTION_CHARS})")
            return None
        if self.lossy and _BAD_TEXT in description:
            self.warn(where, "skipped: description is not valid UTF-8")
            return None
        key = next((k for k in SCHEMA_KEYS if raw.get(k) is not None), None)
        schema = EMPTY_SCHEMA if key is None else raw[key]
        if not isinstance(schema, Mapping):
            self.warn(where, f"skipped: {key} is not an object (got {_type_name(schema)})")
            return None
        problem = entry_problem(description=description, schema=schema, schema_key=key or "")
        if problem:
            self.warn(where, f"skipped: {problem}")
            return None
        try:
            dumped = json.dumps(schema, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            self.warn(where, f"skipped: {key} is not plain JSON ({exc})")
            return None
        if len(dumped) > MAX_SCHEMA_CHARS:
            self.warn(where, f"skipped: {key} is too large ({len(dumped)} characters of JSON, "
                      f"limit {MAX_SCHEMA_CHARS})")
            return None
        if self.lossy and _BAD_TEXT in dumped:
            self.warn(where, f"skipped: {key} is not valid UTF-8")
            return None
        return ToolSpec(name=name, description=description, input_schema=schema)

    def tools(
        self, raw: Sequence[Any], where: str, shell: Toolset, taken: dict[str, str]
    ) -> tuple[ToolSpec, ...]:
        """Valid tools of one toolset; skips duplicates within it and exposed names that
        another toolset (``taken``: exposed name -> toolset) already holds."""
        kept: list[ToolSpec] = []
        own: set[str] = set()
        for i, item in enumerate(raw):
            spot = f"{where}.tools[{i}]"
            spec = self.tool(item, spot, shell.name)
            if spec is None:
                continue
            named = f"{spot} ({shell.name}/{spec.name})"
            if spec.name in own:
                self.warn(named, "skipped: duplicate tool name in this toolset")
                continue
            exposed = shell.exposed_name(spec)
            if exposed in taken:
                self.warn(named, f"skipped: exposed name {exposed!r} "
                          f"already belongs to toolset {taken[exposed]!r}")
                continue
            own.add(spec.name)
            taken[exposed] = shell.name
            kept.append(spec)
        return tuple(kept)

    def toolset(
        self, raw: Any, where: str, origin: str, taken: dict[str, str], ids: dict[str, str],
    ) -> Toolset | None:
        if not isinstance(raw, Mapping):
            self.warn(where, f"skipped: toolset entry is not a mapping (got {_type_name(raw)})")
            return None
        name, why = self.name(raw.get("name"), "toolset")
        if name is None:
            self.warn(where, f"skipped: {why}")
            return None
        spot, where = where, f"{where} ({name})"
        given = raw.get("kind", "mcp")
        kind = given.strip().lower() if isinstance(given, str) else given
        if kind not in KINDS:  # named as written ('Servr', not 'servr')
            self.warn(where, f"skipped: unknown kind {bounded_repr(given)} "
                      f"(expected one of {', '.join(KINDS)})")
            return None
        tools = raw.get("tools")
        tools = [] if tools is None else tools
        if not isinstance(tools, list):
            self.warn(where, f"skipped: tools is not a list (got {_type_name(tools)})")
            return None
        shell = Toolset(name=name, kind=kind)
        if shell.toolset_id in ids:
            self.warn(where, f"skipped: toolset {shell.toolset_id!r} already defined by "
                      f"{ids[shell.toolset_id]!r}")
            return None
        ids[shell.toolset_id] = name
        version = raw.get("version")
        if isinstance(version, bool) or not isinstance(version, str | int | float | None):
            self.warn(where, f"version ignored: not a string (got {_type_name(version)})")
            version = None
        error = raw.get("error")
        if error is not None and not isinstance(error, str):
            error = bounded_repr(error)
        specs = self.tools(tools, spot, shell, taken)
        return Toolset(
            name=name, kind=kind, tools=specs,
            status=ToolsetStatus.ERROR if error else ToolsetStatus.SNAPSHOT,
            error=error or "", origin=origin,
            server_version="" if version is None else str(version),
        )


# --------------------------------------------------------------------------- catalog files


def load_catalog_file(path: Path) -> Workspace:
    """Load a catalog file (``*.yaml``, ``*.yml``, ``*.json``). A real dump or a folder of
    dumps is accepted too (see :func:`load_real_dump`, :func:`load_dump_dir`)."""
    path = Path(path)
    if path.is_dir():
        return load_dump_dir(path)
    data, warnings, lossy = read_document(path)
    if is_real_dump(data):
        return _dump_workspace(path, data, warnings, lossy)
    if not isinstance(data, Mapping):
        raise SourceError(
            f"{path}: not a catalog: expected a mapping at the top level, got {_type_name(data)}"
        )
    return catalog_from_data(data, path, warnings=warnings, lossy=lossy)


def catalog_from_data(
    data: Mapping[str, Any], path: Path, *, warnings: Sequence[str] = (), lossy: bool = False
) -> Workspace:
    """Build a workspace from an already parsed catalog document (``path`` names it)."""
    path = Path(path)
    reader = _Reader(path.name, lossy)
    reader.warnings.extend(warnings)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        if name is not None:
            reader.warn("name", f"ignored: not a string (got {_type_name(name)})")
        name = path.stem
    raw_sets = data.get("toolsets")
    if raw_sets is None:
        raw_sets = []
        reader.warn("toolsets", "missing: the catalog has no toolsets")
    elif not isinstance(raw_sets, list):
        reader.warn("toolsets", f"ignored: not a list (got {_type_name(raw_sets)})")
        raw_sets = []
    taken: dict[str, str] = {}
    ids: dict[str, str] = {}
    toolsets = [
        ts for i, raw in enumerate(raw_sets)
        if (ts := reader.toolset(raw, f"toolsets[{i}]", str(path), taken, ids)) is not None
    ]
    return Workspace(
        name=name.strip(),
        toolsets=tuple(toolsets),
        core=_core(data.get("core"), reader),
        context_length=_context_length(data.get("context_length"), reader),
        tool_search=_tool_search(data.get("tool_search"), reader),
        warnings=tuple(reader.warnings),
        origins=(str(path),),
    )


def _context_length(raw: Any, reader: _Reader) -> int | None:
    if raw is None:
        return None
    value: int | None = None
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    elif isinstance(raw, str) and raw.strip().isdigit():
        value = int(raw.strip())
    if value is None or value <= 0:
        reader.warn("context_length", f"ignored: not a positive integer ({bounded_repr(raw)})")
        return None
    return value


def _core(raw: Any, reader: _Reader) -> frozenset[str] | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        reader.warn("core", f"ignored: not a list of tool names (got {_type_name(raw)})")
        return None
    names: set[str] = set()
    for i, item in enumerate(raw):
        if isinstance(item, str) and item.strip():
            names.add(item.strip())
        else:
            reader.warn(f"core[{i}]", f"skipped: not a tool name ({bounded_repr(item)})")
    return frozenset(names)


def _tool_search(raw: Any, reader: _Reader) -> Mapping[str, Any] | None:
    if raw is None:
        return None
    if isinstance(raw, Mapping):
        return freeze_def(dict(raw))
    if not isinstance(raw, bool):
        reader.warn("tool_search", f"not a mapping (got {_type_name(raw)}); read as enabled: auto")
    # Hermes' reading of a non-mapping value: False switches tool search off.
    return freeze_def({"enabled": "off" if raw is False else "auto"})


# --------------------------------------------------------------------------- real dumps


def load_real_dump(path: Path) -> Workspace:
    """Load one ``{"server": ..., "tools": [...]}`` dump as a single MCP toolset."""
    path = Path(path)
    data, warnings, lossy = read_document(path)
    if not is_real_dump(data):
        raise SourceError(f"{path}: not a server dump (expected {{\"server\": ..., \"tools\": [...]}})")
    return _dump_workspace(path, data, warnings, lossy)


def _dump_workspace(path: Path, data: Mapping[str, Any], warnings: list[str], lossy: bool) -> Workspace:
    reader = _Reader(path.name, lossy)
    reader.warnings.extend(warnings)
    server, why = reader.name(data.get("server"), "server")
    if server is None:
        raise SourceError(f"{path}: server dump: {why}")
    info = data.get("serverInfo")
    version = info.get("version") if isinstance(info, Mapping) else None
    shell = Toolset(name=server, kind="mcp")
    tools = reader.tools(data["tools"], "tools", shell, {})
    toolset = Toolset(
        name=server, kind="mcp", tools=tools, origin=str(path),
        server_version=str(version) if isinstance(version, str | int | float) else "",
    )
    return Workspace(
        name=server, toolsets=(toolset,), warnings=tuple(reader.warnings), origins=(str(path),)
    )


def load_dump_dir(path: Path) -> Workspace:
    """Load every ``*.json`` dump under a folder (recursively, sorted; ``index.json`` and
    files that are not dumps are skipped with a warning for the latter)."""
    path = Path(path)
    if not path.is_dir():
        raise SourceError(f"{path}: not a directory")
    found, skipped = files_under(path, ".json")  # a FIFO is never opened, only named
    files = [file for file in found if file.name != DUMP_INDEX_NAME]
    warnings: list[str] = list(skipped)
    toolsets: list[Toolset] = []
    ids: dict[str, str] = {}
    for file in files:
        rel = file.relative_to(path).as_posix()
        try:
            data, file_warnings, lossy = read_document(file)
            if not is_real_dump(data):
                warnings.append(f"{rel}: skipped: not a server dump")
                continue
            part = _dump_workspace(file, data, file_warnings, lossy)
        except SourceError as exc:
            warnings.append(f"{rel}: skipped: {exc}")
            continue
        except (RecursionError, ValueError) as exc:
            warnings.append(f"{rel}: skipped: cannot load ({type(exc).__name__})")
            continue
        warnings.extend(part.warnings)
        for ts in part.toolsets:
            if ts.toolset_id in ids:
                warnings.append(f"{rel}: skipped: toolset {ts.toolset_id!r} already loaded "
                                f"from {ids[ts.toolset_id]}")
                continue
            ids[ts.toolset_id] = rel
            toolsets.append(ts)
    if not toolsets:
        raise SourceError(f"{path}: no server dumps found")
    return Workspace(
        name=path.name, toolsets=tuple(toolsets), warnings=tuple(warnings), origins=(str(path),)
    )
