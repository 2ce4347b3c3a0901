"""Text from tool sources, made safe to *show* (never to send: the model-facing text is
unchanged).

Tool names and descriptions come from files and servers we do not control. Shown raw on a
terminal, a description holding ``\\x1b[2J`` clears the screen and an OSC 52 sequence writes
the operator's clipboard. :func:`shown` escapes every control character (C0 except tab and
newline, DEL, C1), lone surrogates and bidi overrides as ``\\x1b``-style text, and
:func:`bounded_repr` is the only way a raw value from a source goes into a message.
"""

from __future__ import annotations

import re
from typing import Any

#: Control characters, lone surrogates and bidirectional overrides.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
_UNSAFE_ONE_LINE = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069]")

_SURROGATE = re.compile("[\ud800-\udfff]")

#: Longest repr of a raw value a message may hold.
REPR_LIMIT = 60


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown(text: str, *, one_line: bool = False) -> str:
    """*text* with control characters, lone surrogates and bidi overrides escaped; with
    ``one_line`` also newlines, tabs and Unicode line separators."""
    pattern = _UNSAFE_ONE_LINE if one_line else _UNSAFE
    return pattern.sub(_escape, text)


def blanked(text: str) -> str:
    """*text* with each character :func:`shown` escapes on one line turned into one space:
    for a text field, where an escape's backslash would change what the operator typed
    and the cursor's place."""
    return _UNSAFE_ONE_LINE.sub(" ", text)


def has_unsafe(text: str) -> bool:
    return _UNSAFE.search(text) is not None


def has_lone_surrogate(text: str) -> bool:
    """Whether *text* holds a surrogate code point (invalid Unicode: cannot be encoded)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def bounded_repr(value: Any, limit: int = REPR_LIMIT) -> str:
    """A short repr of an untrusted value: never walks more than a little of it (a YAML alias
    bomb or a 10⁶-item list costs nothing) and never longer than *limit* characters."""
    if isinstance(value, str):
        text = repr(value[: limit + 1])
    elif isinstance(value, bool | int | float) or value is None:
        if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
            text = f"<integer of ~{int(value.bit_length() * 0.30103)} digits>"
        else:
            text = repr(value)
    elif isinstance(value, dict):
        text = f"<mapping of {len(value)} keys>"
    elif isinstance(value, list | tuple):
        text = f"<list of {len(value)} items>"
    else:
        text = f"<{type(value).__name__}>"
    text = shown(text, one_line=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"
