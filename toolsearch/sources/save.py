"""Safe save of the ``tools.tool_search`` block into a Hermes ``config.yaml``.

* ruamel.yaml round-trip: every other key, comment and their order are kept; the file's
  indentation is guessed and reused, quotes are preserved, long lines are not re-wrapped.
* Only the keys given are written, after the same clamping Hermes applies
  (:meth:`ToolSearchConfig.from_raw`); a key whose current value already means the same
  thing is left exactly as written.
* Before anything is written, the new text is parsed again and compared with the old one:
  if anything but ``tools.tool_search`` would differ, the save is refused.
* The write is atomic (a temp file in the same folder, then ``os.replace``), keeps the
  file's owner, group and mode, refuses a read-only file, and the previous content is copied
  to ``config.yaml.bak`` beside it (one backup, replaced by each save that changes something,
  never written through a symlink; see :mod:`.filesafe`). A symlinked config is written
  through to its target. Nothing to change means nothing is written.
* A file that cannot be read or parsed is refused with :class:`SourceError`, untouched.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from toolsearch.config import CONFIG_KEYS, ToolSearchConfig
from toolsearch.tooldefs import thaw

from .errors import SourceError
from .filesafe import check_writable, replace_with_backup
from .redact import redact_text
from .safe_yaml import YamlRefused, load_yaml

BACKUP_SUFFIX = ".bak"


@dataclass(frozen=True)
class SaveResult:
    """Where the block was written, the backup of the previous file (None when nothing was
    written or the file is new), and the keys whose value changed."""

    path: Path
    backup_path: Path | None
    changed_keys: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return bool(self.changed_keys)


def clamped_values(values: Mapping[str, Any], current: Mapping[str, Any] | None = None,
                   ) -> dict[str, Any]:
    """The values as they will be saved: unknown keys refused, the rest clamped."""
    unknown = [k for k in values if k not in CONFIG_KEYS]
    if unknown:
        raise SourceError(f"unknown tool_search key(s): {', '.join(map(str, unknown))} "
                          f"(known: {', '.join(CONFIG_KEYS)})")
    merged = {**(current or {}), **thaw(dict(values))}
    raw = ToolSearchConfig.from_raw(merged, profile="latest").to_raw()
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key == "defer":
            out[key] = None if value is None else raw.get("defer", [])
        else:
            out[key] = raw[key]
    return out


def _normalised(key: str, value: Any) -> Any:
    if key == "defer":
        return None if value is None else raw_defer(value)
    return ToolSearchConfig.from_raw({key: value}, profile="latest").to_raw()[key]


def raw_defer(value: Any) -> Any:
    parsed = ToolSearchConfig.from_raw({"defer": value}, profile="latest").defer
    return sorted(parsed) if parsed is not None else value


_DUPLICATE_KEY = re.compile(r'found duplicate key ("[^"\n]{0,200}")')


def _rt_yaml(text: str) -> tuple[Any, Any]:
    """(the round-trip YAML, the document) of *text*; parsed once (ruamel is pure Python, a
    parse of a 1 MB catalog takes seconds): the indentation is guessed only by :func:`_dump`."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        rt = YAML(typ="rt")
        rt.preserve_quotes = True
        rt.width = 4096
        rt.explicit_start = text.lstrip().startswith("---")
        data = rt.load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        duplicate = _DUPLICATE_KEY.match(problem)
        if duplicate:  # ruamel quotes both values, which may hold an env token: never shown
            raise SourceError(f"has a duplicate key {redact_text(duplicate.group(1))}{where} "
                              "(Hermes reads only the last one); refusing to rewrite it "
                              "until one is removed") from None
        raise SourceError(f"not valid YAML: {redact_text(problem)}{where}") from None
    except Exception as exc:  # noqa: BLE001 - ruamel raises assorted errors on odd input
        raise SourceError(f"cannot parse for a safe round-trip: {exc}") from None
    return rt, data


def _dump(rt: Any, document: Any, text: str) -> str:
    """*document* written out in full with *text*'s own indentation (the fallback for shapes
    the text splice does not handle)."""
    from ruamel.yaml.util import load_yaml_guess_indent

    _, indent, block_seq_indent = load_yaml_guess_indent(text)  # *text* parsed once already
    mapping_indent = indent or 2
    offset = block_seq_indent or 0
    rt.indent(mapping=mapping_indent, sequence=max(mapping_indent, offset + 2), offset=offset)
    buffer = io.StringIO()
    rt.dump(document, buffer)
    return buffer.getvalue()


def _plain(text: str) -> Any:
    try:
        return load_yaml(text)
    except yaml.YAMLError as exc:
        raise SourceError(f"not valid YAML: {str(exc).splitlines()[0]}") from None
    except YamlRefused as exc:
        raise SourceError(str(exc)) from None
    except (ValueError, RecursionError) as exc:
        raise SourceError(f"refused: cannot load ({type(exc).__name__})") from None


def _without_block(data: Any) -> Any:
    if data is None:
        return {}
    if not isinstance(data, dict):
        return data
    copy = dict(data)
    tools = copy.get("tools")
    if isinstance(tools, dict):
        copy["tools"] = {k: v for k, v in tools.items() if k != "tool_search"}
        if not copy["tools"]:
            copy.pop("tools")
    elif tools is None:
        copy.pop("tools", None)
    return copy


def _planned(before: Any, values: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the ``tools.tool_search`` block as it will read after the save, {changed key: value,
    None when removed}), worked out on *before*: the file as Hermes' loader (PyYAML) reads
    it, so a plain ``enabled: off`` is False here, as it is to Hermes."""
    if before is not None and not isinstance(before, dict):
        raise SourceError("the top level is not a mapping; refusing to rewrite it")
    tools = (before or {}).get("tools")
    if tools is not None and not isinstance(tools, dict):
        raise SourceError("'tools' is not a mapping; refusing to rewrite it")
    current = (tools or {}).get("tool_search")
    if isinstance(current, dict):
        block = dict(current)
    else:  # a legacy `tool_search: off` is enabled off; a quoted "off" is a string: auto
        block = {"enabled": "off"} if current is False and "enabled" not in values else {}
    return block, apply_values(block, values)


def apply_values(block: dict[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """Apply *values* (clamped) to *block* in place; {changed key: value}, None when removed.
    A key whose current value already means the same thing is left as written."""
    current = dict(block)
    changed: dict[str, Any] = {}
    for key, value in clamped_values(values, current).items():
        if key in block and value is not None and _normalised(key, current[key]) == value:
            continue
        if value is None:
            if key in block:
                del block[key]
                changed[key] = None
            continue
        block[key] = value
        changed[key] = value
    return changed


def _updated(document: Any, block: Mapping[str, Any], changed: Mapping[str, Any]) -> Any:
    """The round-trip *document* with the planned change made (for the full dump)."""
    from ruamel.yaml.comments import CommentedMap

    data = CommentedMap() if document is None else document
    tools = data.get("tools")
    if tools is None:
        tools = data["tools"] = CommentedMap()
    node = tools.get("tool_search")
    if not isinstance(node, dict):
        tools["tool_search"] = CommentedMap(block)
        return data
    for key, value in changed.items():
        if value is None:
            node.pop(key, None)
        else:
            node[key] = value
    return data


# --------------------------------------------------------------------------- text splice
#
# The edit is made on the text itself, at the positions ruamel reports, so that every byte
# outside the changed values stays as it was. A full ruamel dump is the fallback for shapes
# the splice does not handle; both are verified before anything is written.


def _render(key: str, value: Any) -> str:
    return yaml.safe_dump({key: value}, default_flow_style=True, width=10**6,
                          sort_keys=False).strip()[1:-1]


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_filler(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _body_end(lines: list[str], key_line: int, col: int) -> int:
    """Index after the last content line belonging to the value of the key at *key_line*."""
    last = key_line
    for i in range(key_line + 1, len(lines)):
        if _is_filler(lines[i]):
            continue
        if _indent_of(lines[i]) <= col:
            break
        last = i
    return last + 1


def _scalar_end(rest: str) -> int:
    if rest[:1] in ("'", '"'):
        quote, i = rest[0], 1
        while i < len(rest):
            if rest[i] == "\\" and quote == '"':
                i += 2
                continue
            if rest[i] == quote:
                if quote == "'" and rest[i + 1: i + 2] == "'":
                    i += 2
                    continue
                return i + 1
            i += 1
        return len(rest.rstrip("\r\n"))
    for marker in (" #", "\t#"):
        found = rest.find(marker)
        if found >= 0:
            return len(rest[:found].rstrip())
    return len(rest.rstrip())


def _replace_inline(line: str, col: int, text: str) -> str:
    rest = line[col:]
    end = _scalar_end(rest)
    trailing = rest[end:]
    gap = len(trailing) - len(trailing.lstrip(" \t"))
    if trailing.lstrip(" \t").startswith("#"):
        gap = max(1, gap + end - len(text))
        trailing = " " * gap + trailing.lstrip(" \t")
    return line[:col] + text + trailing


def _block_lines(changed: Mapping[str, Any], indent: int) -> list[str]:
    return [" " * indent + _render(k, v) + "\n" for k, v in changed.items() if v is not None]


def _lc(node: Any) -> Any:
    """ruamel's line/column record of a round-trip node."""
    return node.lc


def _flow(node: Any) -> bool:
    """True when a round-trip mapping is written in flow style (``{a: 1}``)."""
    return bool(node.fa.flow_style())


def _splice(text: str, original: Any, block: Mapping[str, Any], changed: Mapping[str, Any],
            step: int) -> str | None:
    """Apply the change to *text* in place, using the positions of the *original* round-trip
    document. *block* is the complete new ``tool_search`` mapping, *changed* what differs.
    Returns None for shapes the splice does not handle (the caller then dumps in full)."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    if original is None or (isinstance(original, dict) and "tools" not in original):
        tail = [] if not lines or not lines[-1].strip() else ["\n"]
        new = ["tools:\n", " " * step + "tool_search:\n", *_block_lines(block, 2 * step)]
        return "".join(lines + tail + new)
    tools = original.get("tools") if isinstance(original, dict) else None
    if tools is not None and (not isinstance(tools, dict) or _flow(tools)):
        return None
    if not tools or "tool_search" not in tools:
        return _add_tool_search(lines, original, tools, block, step)
    key_line, col = _lc(tools).key("tool_search")
    old = tools["tool_search"]
    if not isinstance(old, dict) or not old or _flow(old):
        return _replace_block(lines, key_line, col, block, step)
    return _edit_block(lines, key_line, col, old, changed)


def _add_tool_search(lines: list[str], original: Any, tools: Any, block: Mapping[str, Any],
                     step: int) -> str | None:
    """``tools:`` exists without ``tool_search``: add the block under it."""
    tools_line, tools_col = _lc(original).key("tools")
    if tools:
        col = _lc(tools).key(next(iter(tools)))[1]
        at = _body_end(lines, tools_line, tools_col)
    elif _body_end(lines, tools_line, tools_col) == tools_line + 1 and \
            lines[tools_line].split("#")[0].strip() == "tools:":
        col, at = tools_col + step, tools_line + 1
    else:
        return None
    new = [" " * col + "tool_search:\n", *_block_lines(block, col + step)]
    return "".join(lines[:at] + new + lines[at:])


def _replace_block(lines: list[str], key_line: int, col: int, block: Mapping[str, Any],
                   step: int) -> str | None:
    """``tool_search`` is empty, a scalar or a flow mapping on one line: write it anew."""
    end = _body_end(lines, key_line, col)
    if end != key_line + 1:
        return None
    _, hash_, comment = lines[key_line].partition(" #")
    head = " " * col + "tool_search:" + (f"  #{comment}" if hash_ else "\n")
    return "".join(lines[:key_line] + [head, *_block_lines(block, col + step)] + lines[end:])


def _edit_block(lines: list[str], key_line: int, col: int, old: Any,
                changed: Mapping[str, Any]) -> str:
    """A block mapping: edit changed keys in place (comments kept), append new keys."""
    keys = list(old)
    body_col = _lc(old).key(keys[0])[1]
    edits: dict[int, str] = {}
    removals: set[int] = set()
    block_end = _body_end(lines, key_line, col)
    for key, value in changed.items():
        if key in old:
            _edit_key(lines, old, keys, key, value, block_end, body_col, edits, removals)
    added = {k: v for k, v in changed.items() if k not in old and v is not None}
    out: list[str] = []
    for i, line in enumerate(lines):
        if i == block_end:
            out.extend(_block_lines(added, body_col))
        if i not in removals:
            out.append(edits.get(i, line))
    if block_end >= len(lines):
        out.extend(_block_lines(added, body_col))
    return "".join(out)


def _edit_key(lines: list[str], old: Any, keys: list[Any], key: str, value: Any,
              block_end: int, body_col: int, edits: dict[int, str],
              removals: set[int]) -> None:
    """One existing key: its scalar replaced inline, or its lines rewritten (or removed)."""
    positions = _lc(old)
    kline = positions.key(key)[0]
    later = [positions.key(k)[0] for k in keys if positions.key(k)[0] > kline]
    span_end = min(later) if later else block_end
    content = [i for i in range(kline, span_end) if i == kline or not _is_filler(lines[i])]
    vline, vcol = positions.value(key)
    if value is not None and content == [kline] and vline == kline and \
            not isinstance(old[key], list | dict):
        edits[kline] = _replace_inline(lines[kline], vcol, _render(key, value).split(": ", 1)[1])
        return
    removals.update(content)
    if value is not None:
        removals.discard(kline)
        edits[kline] = " " * body_col + _render(key, value) + "\n"


def _step(original: Any) -> int:
    """The file's mapping indentation step (2 when it cannot tell)."""
    tools = original.get("tools") if isinstance(original, dict) else None
    if isinstance(tools, dict) and tools and "tools" in original:
        step: int = _lc(tools).key(next(iter(tools)))[1] - _lc(original).key("tools")[1]
        if step > 0:
            return step
    return 2


def _verified(new_text: str, before: Any, block: Mapping[str, Any]) -> bool:
    """The new text parses, differs from the old only in tools.tool_search, and holds
    exactly the intended block."""
    try:
        after = _plain(new_text)
    except SourceError:
        return False
    if _without_block(after) != _without_block(before):
        return False
    saved = ((after or {}).get("tools") or {}).get("tool_search")
    return isinstance(saved, dict) and saved == dict(block)


def save_tool_search_block(config_path: Path, values: Mapping[str, Any]) -> SaveResult:
    """Write *values* (clamped) into ``tools.tool_search`` of the Hermes config at
    *config_path*, keeping everything else. See the module docstring for the guarantees."""
    shown = Path(config_path)
    path = shown.resolve() if shown.is_symlink() else shown
    read = TextToRewrite.read(path, shown, "config file", missing_ok=True)
    text = read.text
    try:
        before = _plain(text)
        block, changed = _planned(before, values)
        if not changed:
            return SaveResult(shown, None, ())
        rt, document = _rt_yaml(text)
    except SourceError as exc:
        raise SourceError(f"{shown}: {exc}") from None
    try:  # a shape the splice does not know (merge keys `<<: *base`, ...): dump in full
        spliced = _splice(text, document, block, changed, _step(document))
    except (KeyError, IndexError, AttributeError, TypeError):
        spliced = None
    if spliced is None or not _verified(spliced, before, block):
        dumped = _dump(rt, _updated(document, block, changed), text)  # seconds on a big file
        spliced = dumped if _verified(dumped, before, block) else None
    return SaveResult(shown, read.write(path, shown, spliced), tuple(changed))


@dataclass(frozen=True)
class TextToRewrite:
    """A YAML file's text as a save edits it: without its byte-order mark, with ``\\n`` line
    ends; :meth:`write` puts both back as they were."""

    raw: bytes
    """The bytes read: a file that no longer holds them when written is refused."""
    text: str
    bom: bool
    crlf: bool

    @classmethod
    def read(cls, path: Path, shown: Path, what: str, *, missing_ok: bool = False
             ) -> TextToRewrite:
        """*path*'s text (a regular file under the size limit, UTF-8; *missing_ok*: none yet,
        read as empty). One-line :class:`SourceError` otherwise, naming *shown*."""
        from .filesafe import read_bounded

        raw = b"" if missing_ok and not path.exists() else read_bounded(path, what)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise SourceError(f"{shown}: not valid UTF-8; refusing to rewrite it") from None
        bom = text.startswith("\ufeff")
        text = text.removeprefix("\ufeff")
        crlf = "\r\n" in text
        return cls(raw, text.replace("\r\n", "\n") if crlf else text, bom, crlf)

    def write(self, path: Path, shown: Path, new_text: str | None) -> Path | None:
        """*new_text* (None: no rewrite kept every other key) written over *path* with this
        file's mark and line ends, atomically, after a backup; the backup's path."""
        if new_text is None:
            raise SourceError(f"{shown}: refusing to save: the rewrite would not keep every "
                              "other key exactly as it was")
        if self.crlf:
            new_text = new_text.replace("\n", "\r\n")
        check_writable(path, shown)
        return replace_with_backup(path, (("\ufeff" if self.bom else "") + new_text
                                          ).encode("utf-8"), shown=shown, read=self.raw)
