"""``redact_text`` runs in linear time (issue #12: its URL and ``key=value`` patterns were
tried at every position of a long run of word characters: quadratic, and cubic for a run
of ``tokenx``; a 4 kB argument took minutes) and redacts exactly what it did before."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from toolsearch.sources import redact
from toolsearch.sources.redact import REDACTED, redact_text

# The patterns as they were before (the reference for what must still be redacted).
OLD_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]+@")
OLD_KEY_VALUE = re.compile(
    r"(?P<key>[A-Za-z0-9_.-]*(?:token|secret|password|passwd|api[-_]?key|apikey|credential)"
    r"[A-Za-z0-9_.-]*)(?P<sep>[\"']?\s*[=:]\s*)(?P<value>\"[^\"]*\"|'[^']*'|[^\s&,;\"'()\[\]{}]+)",
    re.IGNORECASE,
)
OLD_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()\[\]{}]+")


def old_redact_text(text: str, secrets: tuple[str, ...] = ()) -> str:
    out = text
    forms = {f for s in secrets if s and len(s) >= redact.MIN_SECRET_LEN
             for f in redact.secret_forms(s)}
    for form in sorted(forms, key=len, reverse=True):
        out = redact._replace_secret(out, form)
    out = OLD_URL_IN_TEXT.sub(lambda m: redact._redact_url_path(m.group(0)), out)
    out = OLD_USERINFO.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", out)
    out = redact._BEARER.sub(redact._bearer, out)
    out = OLD_KEY_VALUE.sub(redact._key_value, out)
    out = redact._TOKEN_SHAPES.sub(REDACTED, out)
    return out


PIECES = st.sampled_from([
    "a", "Z", "1", "9", "_", ".", "-", "+", ":", "/", "//", "://", "@", "=", ":", " ", "\t",
    '"', "'", "&", ";", ",", "(", "]", "?", "token", "Secret", "api_key", "api-key",
    "password", "credential", "Bearer ", "Token ", "https", "http://", "u:p@", "sk-",
    "abcdefgh12345678", "ghp_", "/mcp/", "x", "é",
])


@settings(max_examples=600, deadline=None)
@given(st.lists(PIECES, max_size=24).map("".join))
def test_same_redaction_as_before(text: str) -> None:
    assert redact_text(text) == old_redact_text(text)
    assert redact_text(text, ("hunter22",)) == old_redact_text(text, ("hunter22",))


def test_examples_still_redacted() -> None:
    assert redact_text("see 12https://user:pw@host/x?q=1") == \
        old_redact_text("see 12https://user:pw@host/x?q=1")
    assert "pw@" not in redact_text("see 12https://user:pw@host/x")
    assert redact_text("my_api_key=abc123 next") == f"my_api_key={REDACTED} next"
    assert redact_text("GITHUB_TOKEN: 'ghx'") == f"GITHUB_TOKEN: {REDACTED}"
    assert redact_text("token: expired") == "token: expired"
    assert redact_text("url http://a.b/mcp/abcdef0123456789xyz/sse") == \
        f"url http://a.b/mcp/{REDACTED}/sse"


def test_long_runs_are_redacted_whole() -> None:
    """Inputs that took minutes (or hours) before: each is 200 kB and finishes at once."""
    n = 200_000
    word = "a" * n
    assert redact_text(word) == word
    mixed = "a1" * (n // 2)
    assert redact_text(mixed) == mixed
    tokens = "tokenx" * (n // 6)
    assert redact_text(tokens) == tokens
    assert redact_text(tokens + "=hunter2") == tokens + "=" + REDACTED
    schemes = "x://" * (n // 4)
    assert redact_text(schemes) == schemes  # one URL: its path has no token-like segment
    key_values = "token=a " * (n // 8)
    assert redact_text(key_values) == f"token={REDACTED} " * (n // 8)
    spaces = "token" + " " * n + "x"
    assert redact_text(spaces) == spaces
    assert redact_text("x" * n + "://u:p@h/") == "x" * n + f"://{REDACTED}@h/"
