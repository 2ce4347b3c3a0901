"""Argument coercion before a deferred tool runs (REFERENCE §13).

Hermes' dispatch coerces the arguments of every call; validation coerces a copy the same way,
and the **coerced** arguments are what the tool receives. Only top-level keys whose property
schema is known are touched; a value that cannot be coerced keeps its original form.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from .tooldefs import thaw

_UNCHANGED = object()


def property_types(schema: Mapping[str, Any]) -> tuple[str, ...]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return (kind,)
    if isinstance(kind, list | tuple):
        return tuple(k for k in kind if isinstance(k, str))
    return ()


def allows_null(schema: Mapping[str, Any]) -> bool:
    """``type`` null (or a list holding it), ``nullable: true``, or a null anyOf/oneOf variant."""
    if "null" in property_types(schema) or schema.get("nullable") is True:
        return True
    for key in ("anyOf", "oneOf"):
        variants = schema.get(key)
        if isinstance(variants, list | tuple) and any(
                isinstance(v, Mapping) and "null" in property_types(v) for v in variants):
            return True
    return False


def _requires_nothing(schema: Mapping[str, Any]) -> bool:
    required = schema.get("required")
    return required is None or (isinstance(required, list | tuple) and not required)


def _as_number(text: str, integer: bool) -> Any:
    try:
        number = float(text)
    except ValueError:
        return _UNCHANGED
    if not math.isfinite(number):
        return _UNCHANGED
    if number.is_integer():
        return int(number)
    return _UNCHANGED if integer else number


def _as_json(text: str, want: type) -> Any:
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return _UNCHANGED
    return parsed if isinstance(parsed, want) else _UNCHANGED


def _coerce_as(value: str, kind: str, schema: Mapping[str, Any]) -> Any:
    """``value`` read as one JSON-schema type, or ``_UNCHANGED``."""
    text = value.strip()
    if kind in ("integer", "number"):
        return _as_number(text, kind == "integer")
    if kind == "boolean":
        lowered = text.lower()
        return lowered == "true" if lowered in ("true", "false") else _UNCHANGED
    if kind == "array":
        return _as_json(text, list)
    if kind == "object":
        if not text:
            return {} if _requires_nothing(schema) else _UNCHANGED
        return _as_json(text, dict)
    return _UNCHANGED


def coerce_property(value: Any, schema: Any) -> Any:
    """One argument coerced by its property schema (§13); the value itself when unchanged."""
    if not isinstance(schema, Mapping):
        return value
    types = property_types(schema)
    if schema.get("type") == "array" and value is not None and not isinstance(value, list):
        if isinstance(value, str):
            parsed = _as_json(value, list)
            if parsed is not _UNCHANGED:
                return parsed
        return [value]
    if not isinstance(value, str):
        return value
    if value.strip().lower() == "null" and allows_null(schema):
        return None
    for kind in types:
        coerced = _coerce_as(value, kind, schema)
        if coerced is not _UNCHANGED:
            return coerced
    return value


def coerce_arguments(arguments: Mapping[str, Any], params: Any) -> dict[str, Any]:
    """A coerced, plain copy of a call's arguments (the original is never changed)."""
    props = params.get("properties") if isinstance(params, Mapping) else None
    if not isinstance(props, Mapping):
        return thaw(arguments)  # type: ignore[no-any-return]
    return {key: thaw(coerce_property(value, props.get(key)) if key in props else value)
            for key, value in arguments.items()}
