"""G3 argument validation for ``tool_call`` (REFERENCE §12, "Argument validation").

Two steps, both failing *open* (any surprise means "let the call through"):

1. the seed probe: required keys that are absent -> the schema back (now also with
   ``path="arguments"`` and ``constraint="required"``);
2. full JSON-Schema validation with ``jsonschema``: OpenAPI ``nullable: true`` is normalised,
   a schema with any non-local ``$ref`` is skipped, a *copy* of the arguments is coerced
   (REFERENCE §13, the same coercion the tool's arguments get), then ``validator_for`` +
   ``check_schema`` + ``best_match`` pick the one error to report.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .coercion import coerce_arguments
from .regex_guard import guarded
from .replies import missing_args_error
from .tooldefs import thaw

VALIDATION_HINT = "Retry tool_call with 'arguments' matching the parameters schema above."
DETAIL_MAX = 600
_WS = re.compile(r"\s+")
_LITERAL_KEYS = frozenset({"const", "default", "enum", "example", "examples"})


def _error(message: str, **extra: Any) -> dict[str, Any]:
    return {"error": message, **extra}


def parameters_of(schema: Any) -> Mapping[str, Any] | None:
    """The ``parameters`` object of a def (``function`` unwrapped), or None when malformed."""
    if not isinstance(schema, Mapping):
        return None
    fn = schema.get("function") if schema.get("type") == "function" else schema
    if not isinstance(fn, Mapping):
        return None
    params = fn.get("parameters")
    return params if isinstance(params, Mapping) else None


# --------------------------------------------------------------------------- schema prep


def normalize_nullable(schema: Any) -> Any:
    """A copy with OpenAPI ``nullable: true`` turned into JSON Schema.

    ``type: T`` becomes ``[T, "null"]``; a nullable schema without ``type`` is wrapped in
    ``anyOf`` with ``{"type": "null"}``. Literal keys (const, default, enum, example,
    examples) are copied verbatim, never walked.
    """
    if isinstance(schema, list | tuple):
        return [normalize_nullable(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "nullable" and isinstance(value, bool):
            continue
        out[key] = thaw(value) if key in _LITERAL_KEYS else normalize_nullable(value)
    if schema.get("nullable") is not True:
        return out
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"] if kind != "null" else kind
    elif isinstance(kind, list):
        if "null" not in kind:
            out["type"] = [*kind, "null"]
    else:
        return {"anyOf": [out, {"type": "null"}]}
    return out


def has_remote_ref(schema: Any) -> bool:
    """True when any ``$ref`` points outside the schema (anything not starting with ``#``)."""
    if isinstance(schema, Mapping):
        for key, value in schema.items():
            if key in _LITERAL_KEYS:
                continue
            if key == "$ref" and isinstance(value, str) and not value.startswith("#"):
                return True
            if has_remote_ref(value):
                return True
        return False
    if isinstance(schema, list | tuple):
        return any(has_remote_ref(item) for item in schema)
    return False


# --------------------------------------------------------------------------- coercion


def coerce_value(value: Any, schema: Any) -> Any:
    """A coerced copy of a call's arguments by their top-level property schemas
    (REFERENCE §13, :func:`toolsearch.coercion.coerce_arguments`); the original is kept."""
    if isinstance(value, Mapping):
        return coerce_arguments(value, schema)
    return thaw(value)


# --------------------------------------------------------------------------- validation


def error_path(parts: Any) -> str:
    """``arguments`` + ``.key`` / ``[index]`` for each step of a jsonschema error path."""
    path = "arguments"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def clip_detail(text: str) -> str:
    detail = _WS.sub(" ", text).strip()
    return detail if len(detail) <= DETAIL_MAX else detail[: DETAIL_MAX - 3] + "..."


def missing_required(name: str, args: Mapping[str, Any], params: Mapping[str, Any]
                     ) -> dict[str, Any] | None:
    """Step 1: required keys absent from ``args`` (only key absence counts), now with
    ``path`` and ``constraint``."""
    return missing_args_error(name, args, params, path="arguments", constraint="required")


def schema_violation(name: str, args: Mapping[str, Any], params: Mapping[str, Any]
                     ) -> dict[str, Any] | None:
    """Step 2: the jsonschema check; None when valid or when the check cannot be made."""
    # jsonschema costs ~0.1 s to import: only a latest tool_call pays it, never start-up
    from jsonschema.exceptions import best_match
    from jsonschema.validators import validator_for

    try:
        if has_remote_ref(params):
            return None
        schema = normalize_nullable(params)
        coerced = coerce_value(args, schema)
        cls = guarded(validator_for(schema))  # catastrophic patterns bounded (regex_guard)
        cls.check_schema(schema)
        error = best_match(cls(schema).iter_errors(coerced))
        if error is None:
            return None
        path = error_path(error.absolute_path)
        constraint = str(error.validator)
        detail = clip_detail(error.message)
        return _error(
            f"tool_call to '{name}' failed argument validation at {path} ({constraint}): "
            f"{detail}. The tool was NOT invoked.",
            path=path, constraint=constraint, parameters=thaw(params), hint=VALIDATION_HINT,
        )
    except Exception:  # fail open: a broken schema never blocks dispatch
        return None


def validate_call_args(name: str, args: Mapping[str, Any], schemas: Mapping[str, Any]
                       ) -> tuple[dict[str, Any] | None, str]:
    """Both steps: ``(error_or_None, kind)`` with kind ``"missing"``, ``"invalid"`` or ``""``.

    ``schemas`` maps tool name -> its def. Unknown tools and malformed schemas pass.
    """
    try:
        params = parameters_of(schemas.get(name))
        if params is None:
            return None, ""
        missing = missing_required(name, args, params)
        if missing is not None:
            return missing, "missing"
        invalid = schema_violation(name, args, params)
        if invalid is not None:
            return invalid, "invalid"
    except Exception:
        return None, ""
    return None, ""
