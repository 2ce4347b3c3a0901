"""Tool defs: the OpenAI function shape, MCP naming, and deep-frozen defs.

A *frozen* def is a ``dict`` subclass that refuses mutation all the way down and remembers
its compact JSON. Because its content can never change, everything derived from it (token
estimates, catalog entries, listing lines) can be cached on content without ever drifting.
Plain dicts are accepted everywhere too; they are simply measured afresh each time.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from json import encoder as json_encoder
from typing import Any, Generic, NoReturn, TypeVar

from .caches import register_cache

MAX_TOOL_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}


def _immutable(*_: Any, **__: Any) -> NoReturn:
    raise TypeError("tool defs are immutable; build a new one instead")


class FrozenDict(dict):  # type: ignore[type-arg]
    """A dict that cannot be changed after construction (JSON-serialisable as a dict)."""

    __slots__ = ("_json", "_hash")
    _json: str
    _hash: int

    __setitem__ = __delitem__ = _immutable
    clear = pop = popitem = setdefault = update = _immutable
    __ior__ = _immutable

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash
        except AttributeError:
            value = hash(compact(self))
            object.__setattr__(self, "_hash", value)
            return value

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (freeze, (dict(self),))


def freeze(value: Any) -> Any:
    """Deep-freeze JSON-like data: dicts -> FrozenDict, lists -> tuples."""
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, Mapping):
        return FrozenDict((str(k), freeze(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def freeze_def(value: Mapping[str, Any]) -> FrozenDict:
    """:func:`freeze` of a mapping, typed."""
    frozen = freeze(value)
    assert isinstance(frozen, FrozenDict)
    return frozen


def thaw(value: Any) -> Any:
    """Plain, mutable JSON-like copy (dicts and lists)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value


#: One shared encoder: ``json.dumps`` with non-default options builds a new one per call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _unserialisable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_c_encode = getattr(json_encoder, "c_make_encoder", None)
_FAST = None if _c_encode is None else _c_encode(
    None, _unserialisable, json_encoder.encode_basestring, None, ":", ",", False, False, True)


def _encode(value: Any) -> str:
    """``_ENCODER.encode`` through the C encoder directly (same text; a circular value raises
    ValueError as it does, only later)."""
    if _FAST is None or type(value) is not dict and not isinstance(value, dict):
        return _ENCODER.encode(value)
    try:
        return "".join(_FAST(value, 0))
    except RecursionError:
        raise ValueError("Circular reference detected") from None


def compact(value: Any) -> str:
    """Compact JSON of a def. Raises TypeError/ValueError if unserialisable.

    A frozen def remembers its JSON. A plain ``dict`` def is encoded at most once per
    :func:`def_pass` and recognised on later calls without re-encoding (see :func:`_plain_json`).
    """
    kind = type(value)
    if kind is FrozenDict:
        try:
            return value._json  # type: ignore[no-any-return]
        except AttributeError:
            text = _encode(value)
            object.__setattr__(value, "_json", text)
            return text
    if kind is dict:
        return _plain_json(value)
    return _encode(value)


# ------------------------------------------------------------------ plain dicts, once each
#
# A host agent passes the same plain dicts every turn, sometimes mutated in place. Per def
# object we remember (the object itself, so its id stays valid, its JSON, and a snapshot of
# its content); a later call verifies the object against the snapshot with ``==`` (a deep
# comparison in C that builds no string) and re-encodes only what changed. The first sighting
# records a ``marshal`` image (exact: it tells True from 1 and 1.0 from 1, and its bytes also
# key a content memo, so rebuilt-but-equal dicts skip encoding); the second turns it into the
# snapshot. Within one call (:func:`def_pass`) each def is looked at once.
#
# Limit: after the second sighting, an in-place change that ``==`` cannot see (1 -> True,
# 1 -> 1.0, both of which JSON writes differently) is not noticed.


class _Seen:
    __slots__ = ("obj", "json", "packed", "snapshot")

    def __init__(self, obj: dict[str, Any], text: str, packed: bytes | None) -> None:
        self.obj = obj
        self.json = text
        self.packed = packed
        self.snapshot: dict[str, Any] | None = None


_SEEN_MAX = 65536
_seen: dict[int, _Seen] = register_cache("tooldefs.seen_defs", {})
_json_by_content: dict[bytes, str] = register_cache("tooldefs.json_by_content", {})
class _Pass:
    """What one engine call has looked at: def id -> (def, JSON); sequence id -> (sequence,
    JSONs). Holding the objects keeps their ids valid for the call."""

    __slots__ = ("defs", "seqs")

    def __init__(self) -> None:
        self.defs: dict[int, tuple[Any, str]] = {}
        self.seqs: dict[int, tuple[Any, tuple[str, ...]]] = {}


_pass: ContextVar[_Pass | None] = ContextVar("toolsearch_def_pass", default=None)


@contextmanager
def def_pass() -> Iterator[None]:
    """One engine call: inside it, each plain def is encoded or verified at most once."""
    if _pass.get() is not None:
        yield
        return
    token = _pass.set(_Pass())
    try:
        yield
    finally:
        _pass.reset(token)


def _pack(value: dict[str, Any]) -> bytes | None:
    try:
        return marshal.dumps(value, 2)
    except (ValueError, TypeError):  # a non-plain value somewhere: no memo for this def
        return None


def _plain_json(value: dict[str, Any]) -> str:
    current = _pass.get()
    if current is None:
        return _verified_json(value)
    key = id(value)
    hit = current.defs.get(key)
    if hit is not None and hit[0] is value:
        return hit[1]
    seen = _seen.get(key)
    snapshot = seen.snapshot if seen is not None and seen.obj is value else None
    if snapshot is not None and _same(snapshot, value):
        text = seen.json  # type: ignore[union-attr]
    else:
        text = _verified_json(value)
    current.defs[key] = (value, text)
    return text


def _same(snapshot: dict[str, Any], value: dict[str, Any]) -> bool:
    try:
        return bool(snapshot == value)
    except Exception:  # an odd value's __eq__: count it as changed
        return False


def _verified_json(value: dict[str, Any]) -> str:
    seen = _seen.get(id(value))
    packed: bytes | None = None
    packed_yet = False
    if seen is not None and seen.obj is value:
        if seen.snapshot is not None:
            if _same(seen.snapshot, value):
                return seen.json
        else:
            packed, packed_yet = _pack(value), True
            if packed is not None and packed == seen.packed:
                seen.snapshot = marshal.loads(packed)
                return seen.json
    if not packed_yet:
        packed = _pack(value)
    text = _json_by_content.get(packed) if packed is not None else None
    if text is None:
        text = _encode(value)
        if packed is not None:
            if len(_json_by_content) >= _SEEN_MAX:
                _json_by_content.clear()
            _json_by_content[packed] = text
    if packed is not None:
        if len(_seen) >= _SEEN_MAX:
            _seen.clear()
        _seen[id(value)] = _Seen(value, text, packed)
    return text


def make_def(name: str, description: str = "", parameters: Any = None) -> FrozenDict:
    """A frozen OpenAI function def."""
    params = parameters if isinstance(parameters, Mapping) else EMPTY_SCHEMA
    return freeze_def(
        {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": params},
        }
    )


def def_function(tool_def: Any) -> Mapping[str, Any]:
    if isinstance(tool_def, dict):  # fast path
        fn = tool_def.get("function")
        if isinstance(fn, dict):
            return fn
    if isinstance(tool_def, Mapping):
        fn = tool_def.get("function")
        if isinstance(fn, Mapping):
            return fn
    return {}


def def_description(tool_def: Any) -> str:
    desc = def_function(tool_def).get("description")
    return desc if isinstance(desc, str) else ""


def def_parameters(tool_def: Any) -> Any:
    return def_function(tool_def).get("parameters")


def sanitize_part(text: str) -> str:
    """Reduce a name part to ``[A-Za-z0-9_-]``."""
    return _UNSAFE.sub("_", text)


def mcp_tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``, each part sanitised, at most 64 characters.

    A longer name is cut and ends in ``_`` + the first 8 hex digits of the full name's SHA-1.
    """
    full = f"mcp__{sanitize_part(server)}__{sanitize_part(tool)}"
    if len(full) <= MAX_TOOL_NAME:
        return full
    digest = hashlib.sha1(full.encode("utf-8")).hexdigest()[:8]
    return f"{full[: MAX_TOOL_NAME - 9]}_{digest}"


def mcp_toolset(server: str) -> str:
    return f"mcp-{sanitize_part(server)}"


T = TypeVar("T")


def content_key(defs: Sequence[Any], *extra: Any) -> tuple[Any, ...] | None:
    """A hashable key made of the defs' compact JSON (cached on frozen defs) and ``extra``.

    None when a def cannot be serialised (then nothing is cached).
    """
    try:
        return (*extra, _defs_json(defs))
    except (TypeError, ValueError):
        return None


_json_memo: OrderedDict[int, tuple[tuple[Any, ...], tuple[str, ...]]] = register_cache(
    "tooldefs.defs_json", OrderedDict())
_json_lock = threading.Lock()


def _defs_json(defs: Sequence[Any]) -> tuple[str, ...]:
    """Compact JSON of every def. A tuple of frozen defs can never change, so its result is
    remembered by identity (holding the tuple keeps the identity valid)."""
    current = _pass.get()
    if current is not None:
        seen = current.seqs.get(id(defs))
        if seen is not None and seen[0] is defs:
            return seen[1]
    immutable = type(defs) is tuple
    if immutable:
        with _json_lock:
            hit = _json_memo.get(id(defs))
        if hit is not None and hit[0] is defs:
            return hit[1]
    chunks = chunks_of(defs) if immutable else None
    if chunks is not None:  # each chunk's JSON is remembered on the chunk
        jsons = tuple(j for chunk in chunks for j in _chunk_json(chunk))
    elif current is None:
        jsons = tuple(map(compact, defs))
    else:
        jsons = _pass_json(defs, current)
    if current is not None:
        current.seqs[id(defs)] = (defs, jsons)
    if immutable and all(type(d) is FrozenDict for d in defs):
        with _json_lock:
            _json_memo[id(defs)] = (defs, jsons)  # type: ignore[assignment]
            while len(_json_memo) > 64:
                _json_memo.popitem(last=False)
    return jsons


# ------------------------------------------------------------------ chunks

_chunks: dict[int, tuple[tuple[Any, ...], tuple[tuple[Any, ...], ...]]] = register_cache(
    "tooldefs.chunks", {})
_chunk_lock = threading.Lock()
MAX_CHUNKED = 256


def register_chunks(defs: tuple[Any, ...], chunks: tuple[tuple[Any, ...], ...]) -> None:
    """Say that ``defs`` is the concatenation of ``chunks``: tuples of frozen defs that live on
    (one toolset's defs, or a classification's share of them). Classification, grouping and
    content keys then reuse each chunk's work when another chunk comes or goes (attaching or
    detaching a server). Knowing the chunks only saves work: every result is the same."""
    with _chunk_lock:
        if len(_chunks) >= MAX_CHUNKED:
            _chunks.clear()
        _chunks[id(defs)] = (defs, chunks)


def chunks_of(defs: Sequence[Any]) -> tuple[tuple[Any, ...], ...] | None:
    """The chunks registered for this very ``defs`` object, or None."""
    hit = _chunks.get(id(defs))
    return hit[1] if hit is not None and hit[0] is defs else None


def per_chunk(memo: dict[Any, tuple[tuple[Any, ...], T]], key: Any, chunk: tuple[Any, ...],
              make: Callable[[], T]) -> T:
    """``make()`` for a chunk, remembered in ``memo`` under ``key`` (which holds ``id(chunk)``;
    the entry holds the chunk itself, so the id cannot name another object while it is
    there). The memo is emptied when it reaches ``4 * MAX_CHUNKED`` entries."""
    hit = memo.get(key)
    if hit is not None and hit[0] is chunk:
        return hit[1]
    value = make()
    with _chunk_lock:
        if len(memo) >= 4 * MAX_CHUNKED:
            memo.clear()
        memo[key] = (chunk, value)
    return value


_chunk_json_memo: dict[int, tuple[tuple[Any, ...], tuple[str, ...]]] = register_cache(
    "tooldefs.chunk_json", {})


def _chunk_json(chunk: tuple[Any, ...]) -> tuple[str, ...]:
    if not all(type(d) is FrozenDict for d in chunk):  # a plain def may change: not kept
        return tuple(map(compact, chunk))
    return per_chunk(_chunk_json_memo, id(chunk), chunk, lambda: tuple(map(compact, chunk)))


def remember_json(defs: Sequence[Any], jsons: tuple[str, ...]) -> None:
    """Inside a pass: ``defs`` (a subset the caller built from defs just looked at) has these
    JSONs, so a content key over it needs no second look at each def."""
    current = _pass.get()
    if current is not None:
        current.seqs[id(defs)] = (defs, jsons)


def _pass_json(defs: Sequence[Any], current: _Pass) -> tuple[str, ...]:
    """:func:`compact` of every def inside a pass: the hot loop of an unchanged plain list
    (a memo hit or one ``==`` per def), kept inline."""
    out: list[str] = []
    append = out.append
    known = current.defs
    seen_get = _seen.get
    for d in defs:
        if type(d) is not dict:
            append(compact(d))
            continue
        key = id(d)
        hit = known.get(key)
        if hit is not None and hit[0] is d:
            append(hit[1])
            continue
        seen = seen_get(key)
        snapshot = seen.snapshot if seen is not None and seen.obj is d else None
        try:
            unchanged = snapshot is not None and snapshot == d
        except Exception:  # an odd value's __eq__: count it as changed
            unchanged = False
        if unchanged:
            text = seen.json  # type: ignore[union-attr]
        else:
            text = _verified_json(d)
        known[key] = (d, text)
        append(text)
    return tuple(out)


class ContentCache(Generic[T]):
    """A small thread-safe LRU keyed on content keys (see :func:`content_key`).

    A hit through an equal key made of other objects re-files the entry under the new key,
    so the next lookup compares by identity instead of by content.
    """

    def __init__(self, size: int, name: str = "") -> None:
        """``name``: register the cache so that ``clear_caches()`` empties it."""
        self._size = size
        self._items: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], T]] = OrderedDict()
        self._lock = threading.Lock()
        if name:
            register_cache(name, self)

    def get_or_make(self, key: tuple[Any, ...] | None, make: Callable[[], T]) -> T:
        if key is None:
            return make()
        with self._lock:
            found = self._items.pop(key, None)
            if found is not None:
                self._items[key] = (key, found[1])  # most recent, filed under this key
                return found[1]
        value = make()
        self.put(key, value)
        return value

    def put(self, key: tuple[Any, ...] | None, value: T) -> None:
        """File ``value`` under ``key`` (replacing an equal key's entry)."""
        if key is None:
            return
        with self._lock:
            self._items.pop(key, None)
            self._items[key] = (key, value)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
