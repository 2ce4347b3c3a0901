"""Redaction of secrets: environment values, headers, URL credentials and token-like args.

MCP server entries routinely carry API tokens in ``env`` and ``headers`` (and sometimes in
the URL or a ``--token`` argument). Nothing we print, log, snapshot or show may contain
them: every description and error string that mentions a server goes through here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
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
# Every pattern below runs in linear time. A pattern that starts with a run of characters
# (a URL scheme, a ``key=`` name) is only tried where such a run begins (the look-behind),
# and consumes the run possessively: tried at every position of a long run, as a plain
# search does, the old patterns took quadratic (``key=``: cubic) time, and a 4 kB argument
# of ``tokenx`` repeated took minutes. The leftmost match of the old patterns always began
# where the run begins (a scheme at the run's first letter, ``pre`` keeps any digits or
# ``+.-`` before it), so what they match is unchanged.
_SCHEME = r"(?<![A-Za-z0-9+.-])(?P<pre>[0-9+.-]*+)(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*+://)"
_USERINFO = re.compile(_SCHEME + r"[^/\s@]++@")
_KEY_VALUE = re.compile(
    r"(?<![A-Za-z0-9_.-])(?=[A-Za-z0-9_.-]*?(?:token|secret|password|passwd|api[-_]?key|apikey"
    r"|credential))(?P<key>[A-Za-z0-9_.-]++)"
    r"(?P<sep>[\"']?\s*[=:]\s*)(?P<value>\"[^\"]*\"|'[^']*'|[^\s&,;\"'()\[\]{}]+)",
    re.IGNORECASE,
)
_TOKEN_SHAPES = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{8,}|ghp_[A-Za-z0-9]{8,}|gho_[A-Za-z0-9]{8,}|github_pat_[A-Za-z0-9_]{8,}"
    r"|xox[abposr]-[A-Za-z0-9-]{8,}|AKIA[0-9A-Z]{12,}|glpat-[A-Za-z0-9_-]{8,})"
)


_SENSITIVE_EXACT = frozenset({"key", "pass", "pw", "code", "jwt", "sid", "pat"})
#: A word of prose after ``token:`` / ``Token`` ("token: expired", "credentials: permission
#: denied") is not a secret value.
_PROSE_WORD = re.compile(r"[a-z]+")
#: A URL path segment that looks like a token (``/mcp/<token>/sse``).
_PATH_TOKEN = re.compile(r"(?=[A-Za-z0-9_~.-]*\d)(?=[A-Za-z0-9_~.-]*[A-Za-z])[A-Za-z0-9_~.-]{16,}")
_URL_IN_TEXT = re.compile(_SCHEME + r"(?P<rest>[^\s'\"<>()\[\]{}]+)")
#: Short secrets made of letters and digits only are matched as whole words.
_WORDLIKE = re.compile(r"[A-Za-z0-9]{1,11}")


def is_sensitive_name(name: str) -> bool:
    """Whether a header, env var, query parameter or flag name suggests a secret."""
    bare = name.strip().lstrip("-").lower()
    return bare in _SENSITIVE_EXACT or bool(_SENSITIVE_NAME.search(name))


def secret_forms(secret: str) -> set[str]:
    """Every way a secret may be printed: raw, JSON-escaped (both ``ensure_ascii`` modes),
    repr-escaped, and with its whitespace folded (as a one-line message folds it)."""
    forms = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
             repr(secret)[1:-1], " ".join(secret.split())}
    forms.add(repr(secret.replace("'", '"'))[1:-1])
    return {f for f in forms if len(f) >= MIN_SECRET_LEN}


def _replace_secret(text: str, form: str) -> str:
    if _WORDLIKE.fullmatch(form):  # a short word-like secret: whole words only
        pattern = rf"(?<![A-Za-z0-9]){re.escape(form)}(?![A-Za-z0-9])"
        return re.sub(pattern, REDACTED, text)
    return text.replace(form, REDACTED)


def _key_value(match: re.Match[str]) -> str:
    value, sep = match.group("value"), match.group("sep")
    colon = sep.strip().lstrip("\"'")  # after a quoted key ("cannot start '/x/token': ...")
    if sep.rstrip() != sep.strip() or (colon == ":" and sep.endswith((" ", "\t"))):
        if _PROSE_WORD.fullmatch(value):
            return match.group(0)
    return f"{match.group('key')}{sep}{REDACTED}"


def _bearer(match: re.Match[str]) -> str:
    word, _, value = match.group(0).partition(" ")
    if match.group(1).lower() == "token" and _PROSE_WORD.fullmatch(value.strip()):
        return match.group(0)
    return f"{match.group(1)} {REDACTED}"


def looks_secret(value: str) -> bool:
    """Whether a value under a harmless-looking name still looks like a credential: long, with
    letters and digits, not a path or a URL (``LOG_LEVEL=debug`` is not a secret, and
    treating it as one would blank the word out of every message)."""
    value = value.strip()
    if len(value) < 8 or value.startswith(("/", ".", "~")) or "://" in value or " " in value:
        return False
    return bool(re.search(r"\d", value)) and bool(re.search(r"[A-Za-z]", value)) or \
        bool(_TOKEN_SHAPES.fullmatch(value))


def _known_forms(secrets: Iterable[str]) -> list[str]:
    forms = {form for s in secrets if s and len(s) >= MIN_SECRET_LEN for form in secret_forms(s)}
    return sorted(forms, key=len, reverse=True)


def scrub_known(value: Any, secrets: Iterable[str]) -> Any:
    """*value* (JSON-able: a tool's reply) with every known secret value replaced, in every
    printed form, and nothing else changed: unlike :func:`redact_text`, a reply keeps its
    URLs, ``key=value`` text and token-shaped words, which are the tool's data."""
    forms = _known_forms(secrets)
    if not forms:
        return value

    def scrub(v: Any) -> Any:
        if isinstance(v, str):
            for form in forms:
                if form in v:
                    v = _replace_secret(v, form)
            return v
        if isinstance(v, Mapping):
            return {scrub(k): scrub(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [scrub(x) for x in v]
        return v

    return scrub(value)


def mentions_known(value: Any, secrets: Iterable[str]) -> bool:
    """Whether *value* (JSON-able) holds any known secret in any printed form: one pass over
    its JSON text, far cheaper than :func:`scrub_known` on a 20,000-tool listing."""
    forms = _known_forms(secrets)
    if not forms:
        return False
    text = json.dumps(value, ensure_ascii=False, default=str)
    return any(form in text for form in forms)


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """Scrub *text*: every known secret value in every printed form, bearer tokens, URL
    credentials and path tokens, ``key=value`` pairs with a secret-looking key, and
    well-known token shapes. Redact *before* cutting or folding a line, never after."""
    out = str(text)
    for form in _known_forms(secrets):
        out = _replace_secret(out, form)
    out = _URL_IN_TEXT.sub(
        lambda m: m.group("pre") + _redact_url_path(m.group("scheme") + m.group("rest")), out)
    out = _USERINFO.sub(lambda m: f"{m.group('pre')}{m.group('scheme')}{REDACTED}@", out)
    out = _BEARER.sub(_bearer, out)
    out = _KEY_VALUE.sub(_key_value, out)
    out = _TOKEN_SHAPES.sub(REDACTED, out)
    return out


def _redact_url_path(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    if not slash:
        return url
    path, q, query = path.partition("?")
    parts = [REDACTED if _PATH_TOKEN.fullmatch(p) else p for p in path.split("/")]
    return f"{scheme}{sep}{host}/{'/'.join(parts)}{q}{query}"


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
    path = "/".join(REDACTED if _PATH_TOKEN.fullmatch(p) else p for p in parts.path.split("/"))
    return urlunsplit((parts.scheme, netloc, path, query, ""))


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
    found.extend(p for p in parts.path.split("/") if _PATH_TOKEN.fullmatch(p))
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
