"""What a SOURCE argument is: resolved to a file (or a sample catalog, a dump folder or an
MCP URL), and its kind detected from the *content*, not the file name."""

from __future__ import annotations

import difflib
import errno
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .catalog_file import is_catalog_file, is_real_dump, read_document
from .client_config import client_block
from .errors import SourceError
from .hermes_config import HERMES_KEYS, is_hermes_config
from .redact import looks_secret, redact_text
from .samples import list_samples, sample_path

CATALOG = "catalog"
DUMP = "dump"
DUMP_DIR = "dump-dir"
HERMES = "hermes"
MCP_SERVERS = "mcpServers"
VSCODE = "vscode"
URL = "url"

KIND_LABELS: dict[str, str] = {
    CATALOG: "catalog file",
    DUMP: "server dump",
    DUMP_DIR: "folder of server dumps",
    HERMES: "Hermes config.yaml",
    MCP_SERVERS: "client config (mcpServers: Claude Desktop, Cursor)",
    VSCODE: "VS Code MCP config (servers)",
    URL: "live MCP server URL",
}

EXPECTED = ("a catalog file (toolsets:), a server dump ({server, tools}), a Hermes config.yaml "
            "(mcp_servers: / tools.tool_search), or a client config (mcpServers / servers)")


@dataclass(frozen=True)
class ResolvedSource:
    """A SOURCE argument, resolved: its kind, its file (if any) and its parsed content."""

    spec: str
    kind: str
    path: Path | None = None
    data: Any = field(default=None, repr=False, compare=False)
    warnings: tuple[str, ...] = ()
    lossy: bool = False

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)


def detect_kind(data: Any) -> str | None:
    """The kind of a parsed document, or None if it is none of the known kinds."""
    if is_real_dump(data):
        return DUMP
    if is_hermes_config(data):
        return HERMES
    found = client_block(data)
    if found is not None:
        return MCP_SERVERS if found[0] == "mcpServers" else VSCODE
    if is_catalog_file(data):
        return CATALOG
    if isinstance(data, Mapping) and any(k in data for k in HERMES_KEYS if k != "toolsets"):
        return HERMES
    return None


#: A mapping key named in an error as it is: a short identifier. Any other key (a line of
#: ``/etc/shadow``, ``"Authorization: Bearer ..."``, a token used as a key) is shown as ``…``:
#: the error names what the file holds, never its content.
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,39}")


def _shown_key(key: object) -> str:
    text = str(key)
    if _PLAIN_KEY.fullmatch(text) and not looks_secret(text) and redact_text(text) == text:
        return text
    return "…"


def _shape(data: Any) -> str:
    if isinstance(data, Mapping):
        keys = ", ".join(_shown_key(k) for k in list(data)[:6])
        return f"a mapping with keys: {keys}" if keys else "an empty mapping"
    if isinstance(data, list):
        return "a list"
    return f"a {type(data).__name__}"


def is_url(spec: str) -> bool:
    return spec.startswith(("http://", "https://"))


def resolve_path(spec: str) -> Path:
    """The file behind a SOURCE: an existing path, else a sample catalog's file."""
    path = Path(spec).expanduser()
    try:  # os.lstat: pathlib's exists() raises PermissionError (a folder on the way locked)
        os.lstat(path)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP):
            raise SourceError(f"{spec}: cannot read: {exc.strerror or exc}") from None
        listed = False
    else:
        listed = True
    if listed and os.path.exists(path):
        return path
    sample = sample_path(spec)
    if sample is not None:
        return sample
    if listed:  # it is there, but leads nowhere: a dangling link or a loop of links  # exists() is False for a dangling link or a loop of links
        try:
            path.resolve(strict=True)
        except RuntimeError:  # Python 3.11-3.12 report a loop so
            raise SourceError(f"{spec}: a symlink loop; nothing to read") from None
        except OSError as exc:
            reason = "a symlink loop" if exc.errno == errno.ELOOP else \
                f"a symlink to {os.readlink(path)!r}, which does not exist"
            raise SourceError(f"{spec}: {reason}; nothing to read") from None
    if spec == "-":
        raise SourceError("-: a SOURCE is not read from stdin; save it to a file and name "
                          "the file")
    close = difflib.get_close_matches(spec, list_samples(), n=1, cutoff=0.75)
    hint = f"did you mean {close[0]!r}? " if close else ""
    samples = ", ".join(list_samples()) or "none installed"
    raise SourceError(f"{spec}: no such file, and not a sample catalog ({hint}samples: "
                      f"{samples})")


def resolve_source(spec: str) -> ResolvedSource:
    """Resolve and detect one SOURCE. Raises :class:`SourceError` with one clear line."""
    spec = str(spec).strip()
    if not spec:
        raise SourceError("empty SOURCE argument")
    if is_url(spec):
        return ResolvedSource(spec, URL)
    path = resolve_path(spec)
    if os.path.isdir(path):
        if not os.access(path, os.R_OK | os.X_OK):  # else "no server dumps found"
            raise SourceError(f"{path}: cannot read: Permission denied")
        return ResolvedSource(spec, DUMP_DIR, path)
    data, warnings, lossy = read_document(path)
    kind = detect_kind(data)
    if kind is None:
        raise SourceError(f"{path}: cannot tell what kind of source this is: found "
                          f"{_shape(data)}; expected {EXPECTED}")
    return ResolvedSource(spec, kind, path, data, tuple(warnings), lossy)
