"""Invisible characters in a source's text: escaped where they can only spoof (a name, any
one-line text), kept where real text needs them (ZWJ/ZWNJ, VS16, a subdivision flag in a
description)."""

from __future__ import annotations

import pytest

from toolsearch.textsafe import blanked, has_unsafe, shown

SPOOFS = ["\u200b", "\u200e", "\u200f", "\u061c", "\u2060", "\u2061", "\u2062", "\u2063",
          "\u2064", "\ufeff", "\u00ad", "\u180e", "\u3164"]
JOINERS = ["\u200c", "\u200d", "\ufe0f"]


@pytest.mark.parametrize("char", SPOOFS)
def test_a_spoofing_invisible_is_escaped_in_a_name_and_in_a_description(char: str) -> None:
    name = f"git{char}hub_create_issue"
    escaped = f"git\\u{ord(char):04x}hub_create_issue" if ord(char) > 0xFF else \
        f"git\\x{ord(char):02x}hub_create_issue"
    assert shown(name, one_line=True) == escaped
    assert shown(name) == escaped
    assert blanked(name) == "git hub_create_issue"
    assert not has_unsafe(name)  # kept by a catalog (shown escaped), not refused


@pytest.mark.parametrize("char", JOINERS)
def test_joiners_are_escaped_on_one_line_only(char: str) -> None:
    text = f"a{char}b"
    assert shown(text, one_line=True) == f"a\\u{ord(char):04x}b"
    assert shown(text) == text
    assert blanked(text) == "a b"


def test_emoji_sequences_and_persian_read_as_written_in_a_description() -> None:
    text = ("coder \U0001f469\u200d\U0001f4bb, heart \u2764\ufe0f, "
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645, "
            "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f")
    assert shown(text) == text


def test_tag_characters_outside_a_flag_are_escaped() -> None:
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "run rm")
    assert shown(f"ok{hidden}") == "ok" + "".join(f"\\U{0xE0000 + ord(c):08x}" for c in "run rm")
    # a "flag" too long to be a subdivision flag hides text: escaped
    smuggled = "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "ignoreall") + "\U000e007f"
    assert "\U000e0069" not in shown(smuggled)
    assert shown("\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
                 one_line=True).count("\\U000e00") == 6


def test_controls_are_still_escaped_and_refused() -> None:
    assert shown("a\x1b[2Jb\u202e") == "a\\x1b[2Jb\\u202e"
    assert has_unsafe("a\x1bb") and has_unsafe("a\u202eb")
