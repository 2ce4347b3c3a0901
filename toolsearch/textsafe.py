"""Text from tool sources, made safe to *show* (never to send: the model-facing text is
unchanged).

Tool names and descriptions come from files and servers we do not control. Shown raw on a
terminal, a description holding ``\\x1b[2J`` clears the screen and an OSC 52 sequence writes
the operator's clipboard; a tool named ``git\\u200bhub_create_issue`` (a zero-width space
inside) looks exactly like ``github_create_issue``. :func:`shown` escapes, as ``\\x1b``-,
``\\u200b``- or ``\\U000e0041``-style text:

* everywhere: control characters (C0 except tab and newline, DEL, C1), lone surrogates, bidi
  overrides and isolates, and the invisible characters that have no use in running text but to
  hide or reorder it: soft hyphen, ALM, LRM/RLM, ZWSP, word joiner and the invisible operators
  U+2060-U+2064, the deprecated format characters U+206A-U+206F, the BOM (U+FEFF), the
  Mongolian vowel separator, the Hangul fillers U+3164/U+FFA0, and tag characters and the
  variation selectors 17-256 (U+E0000-U+E0FFF, the "ASCII smuggling" planes);
* with ``one_line`` (tool and server names, a query, a feed line: anything shown on one line)
  also tab, newline, U+2028/U+2029, and the invisible characters that *do* have a use in text:
  ZWNJ and ZWJ (U+200C/U+200D), the combining grapheme joiner, variation selectors 1-16, the
  Mongolian free variation selectors and the Hangul jamo fillers U+115F/U+1160. A name is not
  prose: a joiner inside one only spoofs. The invisible characters of the two sets together
  are exactly Unicode's Default_Ignorable_Code_Point characters (bidi isolates included).

Multi-line text (a description, a JSON reply) keeps the second set, so an emoji ZWJ sequence
(woman + ZWJ + laptop), a Persian word with its ZWNJ, a heart with VS16 and a subdivision flag
(U+1F3F4 with its 2-6 tag letters and the cancel tag) still read as written; any other tag
character is escaped.

:func:`blanked` (text fields) blanks exactly what the one-line form escapes. :func:`has_unsafe`
is narrower on purpose: it finds what can drive a terminal or reorder text (controls,
surrogates, bidi overrides), which a catalog entry's name may not hold at all; a name with an
invisible character is kept (the model sees the source's name) and shown escaped.
:func:`bounded_repr` is the only way a raw value from a source goes into a message.
"""

from __future__ import annotations

import re
from typing import Any

#: Control characters, lone surrogates and bidirectional overrides and isolates.
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069"
#: Invisible characters escaped everywhere (see the module docstring).
_INVISIBLE = ("\u00ad\u061c\u17b4\u17b5\u180e\u200b\u200e\u200f\u2060-\u2065\u206a-\u206f"
              "\u3164\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
              "\U000e0000-\U000e0fff")
#: Invisible characters that join or select glyphs in real text: escaped on one line only.
_JOINERS = "\u034f\u115f\u1160\u180b-\u180d\u180f\u200c\u200d\ufe00-\ufe0f"
#: An emoji subdivision flag (U+1F3F4 + 2-6 tag letters or digits + cancel tag): kept whole.
_FLAG = "\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,6}\U000e007f"

_CONTROL = re.compile(f"[{_CONTROLS}]")
_UNSAFE = re.compile(f"{_FLAG}|[{_CONTROLS}{_INVISIBLE}]")
_UNSAFE_ONE_LINE = re.compile(f"[{_CONTROLS}\t\n\u2028\u2029{_INVISIBLE}{_JOINERS}]")

_SURROGATE = re.compile("[\ud800-\udfff]")

#: Longest repr of a raw value a message may hold.
REPR_LIMIT = 60


def _escape(match: re.Match[str]) -> str:
    found = match.group(0)
    if len(found) > 1:  # a whole flag sequence: kept
        return found
    code = ord(found)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF \
        else f"\\U{code:08x}"


def shown(text: str, *, one_line: bool = False) -> str:
    """*text* with control characters, lone surrogates, bidi overrides and invisible
    characters escaped; with ``one_line`` also newlines, tabs, Unicode line separators and
    the joiners and selectors multi-line text keeps (see the module docstring)."""
    pattern = _UNSAFE_ONE_LINE if one_line else _UNSAFE
    return pattern.sub(_escape, text)


def blanked(text: str) -> str:
    """*text* with each character :func:`shown` escapes on one line turned into one space:
    for a text field, where an escape's backslash would change what the operator typed
    and the cursor's place."""
    return _UNSAFE_ONE_LINE.sub(" ", text)


def has_unsafe(text: str) -> bool:
    """Whether *text* holds a control character, a lone surrogate or a bidi override or
    isolate (what a catalog entry's name may not hold; invisible characters are shown
    escaped instead, see the module docstring)."""
    return _CONTROL.search(text) is not None


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
