"""Redaction of secrets: environment values, headers, URL credentials and token-like args.

MCP server entries routinely carry API tokens in ``env`` and ``headers`` (and sometimes in
the URL or a ``--token`` argument). Nothing we print, log, snapshot or show may contain
them: every description and error string that mentions a server goes through here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

REDACTED = "***"

#: Values shorter than this are not treated as secrets when scrubbing free text (a value
#: like ``1`` or ``on`` would otherwise blank out every digit or word).
MIN_SECRET_LEN = 4

_SENSITIVE_NAME = re.compile(
    r"(token|secret|passw|pwd|api[-_]?key|apikey|auth|credential|private|session|cookie|"
    r"access[-_]?key|client[-_]?id|signature|sig)",
    re.IGNORECASE,
)
_BEARER = re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{4,}", re.IGNORECASE)
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]+@")
_KEY_VALUE = re.compile(
    r"(?P<key>[A-Za-z0-9_.-]*(?:token|secret|password|passwd|api[-_]?key|apikey|credential)"
    r"[A-Za-z0-9_.-]*)(?P<sep>[\"']?\s*[=:]\s*)(?P<value>\"[^\"]*\"|'[^']*'|[^\s&,;\"'()\[\]{}]+)",
    re.IGNORECASE,
)
_TOKEN_SHAPES = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{8,}|ghp_[A-Za-z0-9]{8,}|gho_[A-Za-z0-9]{8,}|github_pat_[A-Za-z0-9_]{8,}"
    r"|xox[abposr]-[A-Za-z0-9-]{8,}|AKIA[0-9A-Z]{12,}|glpat-[A-Za-z0-9_-]{8,})"
)


_SENSITIVE_EXACT = frozenset({"key", "pass", "pw", "code", "jwt", "sid"})


def is_sensitive_name(name: str) -> bool:
    """Whether a header, env var, query parameter or flag name suggests a secret."""
    bare = name.strip().lstrip("-").lower()
    return bare in _SENSITIVE_EXACT or bool(_SENSITIVE_NAME.search(name))


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """Scrub *text*: every known secret value, bearer tokens, URL credentials, ``key=value``
    pairs with a secret-looking key, and well-known token shapes."""
    out = str(text)
    for secret in sorted({s for s in secrets if s and len(s) >= MIN_SECRET_LEN}, key=len,
                         reverse=True):
        out = out.replace(secret, REDACTED)
    out = _USERINFO.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", out)
    out = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", out)
    out = _KEY_VALUE.sub(lambda m: f"{m.group('key')}{m.group('sep')}{REDACTED}", out)
    out = _TOKEN_SHAPES.sub(REDACTED, out)
    return out


def redact_url(url: str) -> str:
    """The URL without user info, and with secret-looking query values masked."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact_text(url)
    netloc = parts.netloc.rpartition("@")[2]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode(
            [(k, REDACTED if is_sensitive_name(k) or len(v) >= 24 else v) for k, v in pairs],
            safe="*",
            quote_via=quote,
        )
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def url_secrets(url: str) -> tuple[str, ...]:
    """Secret parts of a URL: the user info and every query value that looks secret."""
    found: list[str] = []
    try:
        parts = urlsplit(url)
    except ValueError:
        return ()
    userinfo = parts.netloc.rpartition("@")[0]
    if userinfo:
        found.append(userinfo)
        found.extend(p for p in userinfo.split(":") if p)
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if value and (is_sensitive_name(key) or len(value) >= 24):
            found.append(value)
    return tuple(found)


def arg_secrets(args: Sequence[str]) -> tuple[str, ...]:
    """Values of token-like command-line flags (``--api-key X``, ``--token=X``) and args
    that look like tokens themselves."""
    found: list[str] = []
    for i, arg in enumerate(args):
        if arg.startswith("-"):
            name, eq, value = arg.partition("=")
            if is_sensitive_name(name):
                if eq and value:
                    found.append(value)
                elif i + 1 < len(args) and not args[i + 1].startswith("-"):
                    found.append(args[i + 1])
        elif _TOKEN_SHAPES.fullmatch(arg):
            found.append(arg)
        elif "://" in arg:
            found.extend(url_secrets(arg))
    return tuple(found)


def redact_args(args: Sequence[str]) -> tuple[str, ...]:
    """Command-line args with every secret value replaced by ``***``."""
    secrets = arg_secrets(args)
    return tuple(redact_text(a, secrets) if a not in secrets else REDACTED for a in args)


def mask_mapping(values: Mapping[str, str]) -> str:
    """``NAME=***, OTHER=***``: names only, never values."""
    return ", ".join(f"{k}={REDACTED}" for k in values)
