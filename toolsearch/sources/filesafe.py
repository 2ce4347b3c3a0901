"""Writing the operator's files without losing or clobbering anything (SPEC §11).

* :func:`atomic_replace` writes through a temporary file in the same folder and
  ``os.replace``; the new file keeps the old one's owner, group and mode; a read-only file is
  refused, not replaced; a symlinked path is written through to its target (the link stays);
  the temporary file is removed whatever goes wrong.
* :func:`write_backup` copies the current file to ``NAME.bak`` the same way: a ``.bak`` that is
  a symlink is replaced as a link (its target is never written), one that is a folder or
  anything but a regular file is refused.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from .errors import SourceError

BACKUP_SUFFIX = ".bak"


def target_of(path: Path) -> Path:
    """Where writing *path* lands: a symlink's final target, else the path itself."""
    path = Path(path)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def check_writable(path: Path, shown: Path | None = None) -> os.stat_result | None:
    """The file's stat (None when it does not exist yet); :class:`SourceError` when it is not
    a regular file or is read-only (mode without any write bit, even for root)."""
    shown = shown or path
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SourceError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise SourceError(f"{shown}: not a regular file; refusing to replace it")
    if not info.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise SourceError(f"{shown}: is read-only; refusing to replace it")
    return info


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_replace(path: Path, data: bytes, *, shown: Path | None = None,
                   like: os.stat_result | None = None) -> None:
    """Replace *path* (a symlink: its target) with *data*, keeping owner, group and mode of the
    file it replaces (or of *like*)."""
    shown = shown or Path(path)
    path = target_of(Path(path))
    info = check_writable(path, shown)
    like = like or info
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise SourceError(f"{shown}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, stat.S_IMODE(like.st_mode) if like else _default_mode())
        if like is not None and (like.st_uid != os.geteuid() or like.st_gid != os.getegid()):
            try:
                os.chown(tmp, like.st_uid, like.st_gid)
            except PermissionError:
                raise SourceError(f"{shown}: owned by another user or group; refusing to "
                                  "replace it with a file of a different owner") from None
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise SourceError(f"{shown}: cannot write: {exc.strerror or exc}") from None
        raise


def backup_path_for(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def write_backup(path: Path, *, shown: Path | None = None) -> Path | None:
    """Copy the current content of *path* (a symlink: its target) to ``<path>.bak`` beside
    it, never through a symlink. Returns the backup path (None when *path* does not exist)."""
    shown = shown or Path(path)
    source = target_of(Path(path))
    try:
        info = os.stat(source)
        data = source.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SourceError(f"{shown}: cannot read for a backup: {exc.strerror or exc}") from None
    backup = backup_path_for(Path(path))
    try:
        existing = os.lstat(backup)
    except FileNotFoundError:
        existing = None
    if existing is not None and not (stat.S_ISREG(existing.st_mode)
                                     or stat.S_ISLNK(existing.st_mode)):
        raise SourceError(f"{backup}: exists and is not a file; refusing to save (move it away "
                          "so a backup can be kept)")
    folder = backup.parent if str(backup.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{backup.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, stat.S_IMODE(info.st_mode))
        if info.st_uid != os.geteuid() or info.st_gid != os.getegid():
            with contextlib.suppress(PermissionError):
                os.chown(tmp, info.st_uid, info.st_gid)
        os.replace(tmp, backup)  # replaces a symlink itself, never its target
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise SourceError(f"{backup}: cannot write the backup: {exc.strerror or exc}"
                              ) from None
        raise
    return backup
