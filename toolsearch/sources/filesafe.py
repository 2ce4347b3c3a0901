"""Writing the operator's files without losing or clobbering anything (SPEC §11).

* :func:`atomic_replace` writes through a temporary file in the same folder and
  ``os.replace``; the new file keeps the old one's owner, group and mode; a read-only file is
  refused, not replaced; a symlinked path is written through to its target (the link stays);
  the temporary file is removed whatever goes wrong.
* :func:`read_bounded` reads a file the operator or a SOURCE names: a regular file of a
  bounded size only (a FIFO would hang the reader, ``/dev/zero`` would fill memory).
* :func:`replace_with_backup` does that and keeps the current content as ``NAME.bak``, written
  the same way: a ``.bak`` that is a symlink is replaced as a link (its target is never
  written), one that is a folder or anything but a regular file is refused. The previous
  ``NAME.bak`` stays until the new content is in place: the copy of the current file waits in
  a temporary file beside it and replaces it only once the write has succeeded (a failed
  write leaves the file and its older backup as they were).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .errors import SourceError

BACKUP_SUFFIX = ".bak"
MAX_FILE_BYTES = 64 * 1024 * 1024
"""The largest file read (a catalog, a config, a query file, a theme)."""

_KIND_OF_MODE = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                 (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def read_bounded(path: Path, what: str = "file", limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of *path*, after checking it is a regular file of at most *limit* bytes: a
    FIFO, ``/dev/zero`` or a socket is refused before it is opened. Raises
    :class:`SourceError` with one line naming the path (*what*: "catalog file", "query file")."""
    try:
        info = path.stat()
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise SourceError(f"{path}: is a directory, not a {what}")
    if not stat.S_ISREG(info.st_mode):
        kind = next((label for test, label in _KIND_OF_MODE if test(info.st_mode)),
                    "not a regular file")
        raise SourceError(f"{path}: is {kind}, not a file; refusing to read it")
    if info.st_size > limit:
        raise SourceError(f"{path}: too large ({info.st_size} bytes, limit {limit})")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            raw = handle.read(limit + 1)
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise SourceError(f"{path}: too large (over {limit} bytes)")
    return raw


def why_not_read(path: Path) -> str | None:
    """Why a file found in a folder (a dump folder) is not read, in words, without opening
    it: ``""`` for a folder (walked, not read), ``None`` for a regular file (read), else a
    reason for the operator: a FIFO (opening it would wait for a writer for ever), a device
    or socket, a symlink loop, a dangling symlink."""
    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symlink loop; nothing to read"
        if os.path.islink(path) and exc.errno == errno.ENOENT:
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            return f"a symlink to {target!r}, which does not exist"
        return f"cannot read: {exc.strerror or exc}"
    if stat.S_ISDIR(info.st_mode):
        return ""
    if stat.S_ISREG(info.st_mode):
        return None
    kind = next((label for test, label in _KIND_OF_MODE if test(info.st_mode)),
                "not a regular file")
    return f"is {kind}, not a file; not opened"


def files_under(folder: Path, suffix: str) -> tuple[list[Path], list[str]]:
    """The regular files named ``*<suffix>`` under *folder* (recursively, sorted by their path
    inside it), and ``REL: skipped: why`` for each entry of that name that is not read (see
    :func:`why_not_read`; a FIFO is never opened), each link to a folder (not followed: a
    link back up would walk for ever) and each folder that cannot be listed."""
    folder = Path(folder)
    found: list[tuple[str, Path]] = []
    skipped: list[tuple[str, str]] = []

    def rel(path: Path | str) -> str:
        return Path(path).relative_to(folder).as_posix()

    def unlisted(exc: OSError) -> None:
        if exc.filename and Path(exc.filename) != folder:
            skipped.append((rel(exc.filename), f"cannot read: {exc.strerror or exc}"))

    for root, dirs, names in os.walk(folder, onerror=unlisted):
        for name in dirs:
            link = Path(root, name)
            if os.path.islink(link):  # os.walk lists it, and does not go in
                target = os.path.realpath(link)
                above = os.path.commonpath([target, os.path.realpath(root)]) == target
                skipped.append((rel(link), "a symlink back to a folder above it (a loop); not "
                                           "followed" if above else
                                "a symlink to a folder; not followed"))
        for name in names:
            if not name.endswith(suffix):
                continue
            file = Path(root, name)
            why = why_not_read(file)
            if why is None:
                found.append((rel(file), file))
            elif why:
                skipped.append((rel(file), why))
    return ([file for _, file in sorted(found)],
            [f"{where}: skipped: {why}" for where, why in sorted(skipped)])


def open_regular(path: Path | str) -> BinaryIO | None:
    """*path* open for reading when it is a regular file, else None (a FIFO is opened without
    waiting for a writer, then closed: a plain ``open`` would hang on it). Raises OSError when
    it cannot be opened."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return os.fdopen(fd, "rb")


def target_of(path: Path) -> Path:
    """Where writing *path* lands: a symlink's final target, else the path itself."""
    path = Path(path)
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def check_writable(path: Path, shown: Path | None = None) -> os.stat_result | None:
    """The file's stat (None when it does not exist yet); :class:`SourceError` when it is not
    a regular file or is read-only (mode without any write bit, even for root)."""
    shown = shown or path
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SourceError(f"{shown}: cannot write: {exc.strerror or exc}") from None
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
    failed = f"{shown}: cannot write"
    tmp = _staged(path, data, like, failed, sync=True,
                  foreign=f"{shown}: owned by another user or group; refusing to replace it "
                          "with a file of a different owner")
    with _removed_on_failure(tmp, failed):
        os.replace(tmp, path)


@contextlib.contextmanager
def _removed_on_failure(tmp: str, failed: str) -> Iterator[None]:
    """Remove the temporary file *tmp* when the block fails; an OSError there becomes
    ``SourceError(failed: reason)``."""
    try:
        yield
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise SourceError(f"{failed}: {exc.strerror or exc}") from None
        raise


def _staged(path: Path, data: bytes, like: os.stat_result | None, failed: str, *,
            sync: bool, foreign: str | None) -> str:
    """*data* in a new temporary file beside *path*, with the mode, owner and group of *like*
    (the umask's mode when None): the file's name, ready for ``os.replace``. An owner that
    cannot be given raises *foreign* (None: the file stays ours); any other failure is
    ``SourceError(failed: reason)``, and no temporary file is left."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise SourceError(f"{failed}: {exc.strerror or exc}") from None
    with _removed_on_failure(tmp, failed):
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, stat.S_IMODE(like.st_mode) if like else _default_mode())
        if like is not None and (like.st_uid != os.geteuid() or like.st_gid != os.getegid()):
            try:
                os.chown(tmp, like.st_uid, like.st_gid)
            except PermissionError:
                if foreign is not None:
                    raise SourceError(foreign) from None
    return tmp


def backup_path_for(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def replace_with_backup(path: Path, data: bytes, *, shown: Path | None = None,
                        read: bytes | None = None) -> Path | None:
    """:func:`atomic_replace` *path* with *data*, keeping the current content as
    ``<path>.bak``; the previous ``.bak`` is replaced only once the write has succeeded.
    *read*: the content *data* was made from; a file that no longer holds it (changed by
    another program while the caller worked) is refused, nothing written.
    Returns where the previous content is kept (None when *path* did not exist)."""
    staged = _stage_backup(path, shown=shown, read=read)
    try:
        atomic_replace(path, data, shown=shown)
    except BaseException:
        if staged is not None:
            with contextlib.suppress(OSError):
                os.unlink(staged[0])
        raise
    if staged is None:
        return None
    try:
        return _commit_backup(*staged)
    except SourceError:
        return Path(staged[0])  # saved; the previous content is kept under the temporary name


def _stage_backup(path: Path, *, shown: Path | None = None, read: bytes | None = None
                  ) -> tuple[str, Path] | None:
    """The current content of *path* (a symlink: its target) copied to a temporary file
    beside ``<path>.bak``: (the temporary file, the backup path); None when *path* does not
    exist."""
    shown = shown or Path(path)
    source = target_of(Path(path))
    try:
        info = os.stat(source)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SourceError(f"{shown}: cannot read for a backup: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):  # a FIFO would block the read, /dev/zero fill memory
        raise SourceError(f"{shown}: not a regular file; refusing to replace it")
    try:
        data = read_bounded(source, "file to back up", limit=max(info.st_size, MAX_FILE_BYTES))
    except SourceError as exc:
        raise SourceError(f"{shown}: cannot read for a backup: {exc}") from None
    if read is not None and data != read:
        raise SourceError(f"{shown}: changed while it was being saved (another program wrote "
                          "it); nothing written, save again")
    backup = backup_path_for(Path(path))
    try:
        existing = os.lstat(backup)
    except FileNotFoundError:
        existing = None
    if existing is not None and not (stat.S_ISREG(existing.st_mode)
                                     or stat.S_ISLNK(existing.st_mode)):
        raise SourceError(f"{backup}: exists and is not a file; refusing to save (move it away "
                          "so a backup can be kept)")
    tmp = _staged(backup, data, info, f"{backup}: cannot write the backup", sync=False,
                  foreign=None)
    return tmp, backup


def _commit_backup(tmp: str, backup: Path) -> Path:
    """The staged copy *tmp* in place as *backup* (a symlink there is replaced as a link,
    never its target written)."""
    try:
        os.replace(tmp, backup)
    except OSError as exc:
        raise SourceError(f"{backup}: cannot write the backup: {exc.strerror or exc}"
                          ) from None
    return backup
