"""Bounded ``pattern`` checks for argument validation (the ``latest`` profile).

Python's ``re`` backtracks: ``(a+)+$`` against sixty ``a`` and a ``!`` runs for longer than
the universe, and nothing can interrupt it. A schema's ``pattern`` comes from a server we do
not control, so before a pattern runs on a long value it is screened: nested unbounded
quantifiers (``(a+)+``, ``(\\w*)*``), a quantified alternation (``(a|aa)*``) or a
backreference make it *risky*, and a risky pattern only runs on values of at most
:data:`SAFE_LENGTH` characters (where even exponential backtracking is cheap). Past that the
check is skipped: validation fails open, as Hermes does whenever it cannot validate
confidently, and the skip is recorded so the activity event can say so.
"""

from __future__ import annotations

import contextvars
import re
import re._parser as _sre_parse  # type: ignore[import-not-found]  # (3.11+: re.compile's parser)
from functools import lru_cache
from typing import Any

#: Longest value a risky pattern is run on (2^16 backtracking steps at worst).
SAFE_LENGTH = 16

_SKIPPED: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "toolsearch_regex_skipped", default=())

_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}


def _unbounded(max_count: int) -> bool:
    return max_count > 1


def _parts(name: str, av: Any) -> list[Any]:
    """The sub-patterns of one parsed item (groups, lookarounds, alternatives)."""
    if name == "SUBPATTERN":
        return [av[-1]]
    if name == "ATOMIC_GROUP":
        return [av]
    if name in ("ASSERT", "ASSERT_NOT"):
        return [av[1]]
    if name == "BRANCH":
        return list(av[1])
    return []


def _has_alternation(body: Any) -> bool:
    return any(str(op) == "BRANCH" or (str(op) == "SUBPATTERN" and any(
        str(inner) == "BRANCH" for inner, _ in av[-1])) for op, av in body)


def _walk(parsed: Any, inside_repeat: bool) -> str:
    for op, av in parsed:
        name = str(op)
        if name in ("GROUPREF", "GROUPREF_EXISTS"):
            return "a backreference"
        if name in _REPEATS:
            _min, max_count, body = av
            unbounded = _unbounded(max_count)
            if inside_repeat and unbounded:
                return "nested quantifiers"
            found = _walk(body, inside_repeat or unbounded)
            if found:
                return found
            if unbounded and _has_alternation(body):
                return "a quantified alternation"
            continue
        for part in _parts(name, av):
            found = _walk(part, inside_repeat)
            if found:
                return found
    return ""


@lru_cache(maxsize=512)
def risk(pattern: str) -> str:
    """Why *pattern* may backtrack catastrophically ("" when it cannot)."""
    try:
        return _walk(_sre_parse.parse(pattern), False)
    except Exception:  # noqa: BLE001 - an invalid pattern is jsonschema's to report
        return ""


def _note(pattern: str, why: str) -> None:
    shown = pattern if len(pattern) <= 40 else pattern[:39] + "…"
    _SKIPPED.set((*_SKIPPED.get(), f"pattern {shown!r} not checked ({why}: may never finish)"))


def bounded_search(pattern: str, text: str) -> bool | None:
    """``re.search`` of *pattern* in *text*, or None when it was skipped as too risky."""
    why = risk(pattern)
    if why and len(text) > SAFE_LENGTH:
        _note(pattern, why)
        return None
    return re.search(pattern, text) is not None


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Any:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "string") or not isinstance(pattern, str):
        return
    if bounded_search(pattern, instance) is False:
        yield ValidationError(f"{instance!r:.80} does not match {pattern!r:.80}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Any:
    if not validator.is_type(instance, "object") or not isinstance(patterns, dict):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if isinstance(key, str) and bounded_search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


@lru_cache(maxsize=16)
def guarded(cls: Any) -> Any:
    """A jsonschema validator class whose ``pattern`` and ``patternProperties`` are bounded."""
    from jsonschema.validators import extend

    return extend(cls, {"pattern": _pattern,  # type: ignore[no-untyped-call]
                        "patternProperties": _pattern_properties})


def take_skipped_note() -> str:
    """What the last validation skipped, as one line ("" when nothing); clears the record."""
    skipped = _SKIPPED.get()
    _SKIPPED.set(())
    if not skipped:
        return ""
    more = f" (+{len(skipped) - 1} more)" if len(skipped) > 1 else ""
    return f"validation failed open: {skipped[0]}{more}"
