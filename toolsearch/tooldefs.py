"""Tool defs: the OpenAI function shape, MCP naming, and deep-frozen defs.

A *frozen* def is a ``dict`` subclass that refuses mutation all the way down and remembers
its compact JSON. Because its content can never change, everything derived from it (token
estimates, catalog entries, listing lines) can be cached on content without ever drifting.
Plain dicts are accepted everywhere too; they are simply measured afresh each time.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
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

    __setitem__ = __delitem__ = _immutable  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _immutable  # type: ignore[assignment]
    __ior__ = _immutable  # type: ignore[assignment]

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


def thaw(value: Any) -> Any:
    """Plain, mutable JSON-like copy (dicts and lists)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value


#: One shared encoder: ``json.dumps`` with non-default options builds a new one per call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def compact(value: Any) -> str:
    """Compact JSON of a def (cached on frozen dicts). Raises TypeError/ValueError if unserialisable."""
    if isinstance(value, FrozenDict):
        try:
            return value._json
        except AttributeError:
            text = _ENCODER.encode(value)
            object.__setattr__(value, "_json", text)
            return text
    return _ENCODER.encode(value)


def make_def(name: str, description: str = "", parameters: Any = None) -> FrozenDict:
    """A frozen OpenAI function def."""
    params = parameters if isinstance(parameters, Mapping) else EMPTY_SCHEMA
    return freeze(
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
    immutable = type(defs) is tuple
    if immutable:
        with _json_lock:
            hit = _json_memo.get(id(defs))
        if hit is not None and hit[0] is defs:
            return hit[1]
    jsons = tuple(compact(d) for d in defs)
    if immutable and all(type(d) is FrozenDict for d in defs):
        with _json_lock:
            _json_memo[id(defs)] = (defs, jsons)  # type: ignore[assignment]
            while len(_json_memo) > 64:
                _json_memo.popitem(last=False)
    return jsons


class ContentCache(Generic[T]):
    """A small thread-safe LRU keyed on content keys (see :func:`content_key`)."""

    def __init__(self, size: int, name: str = "") -> None:
        """``name``: register the cache so that ``clear_caches()`` empties it."""
        self._size = size
        self._items: OrderedDict[tuple[Any, ...], T] = OrderedDict()
        self._lock = threading.Lock()
        if name:
            register_cache(name, self)

    def get_or_make(self, key: tuple[Any, ...] | None, make: Callable[[], T]) -> T:
        if key is None:
            return make()
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
