"""`write_atomic`: the one way tempo writes a file (allocation files, reports, models, CSVs).

The bytes go to a temporary file in the target's directory, which is fsynced and
renamed over the target, so a reader (the ResourceManager reloads its allocation
file every 10 s) sees either the old file or the new one, never half of one.

The new file keeps the target's permission bits (and its owner and group when
running as root); a new target gets `NEW_FILE_MODE` (0644), so the user the
ResourceManager runs as can read an allocation file tempo wrote. ``mkstemp``'s
0600 is never left on a written file. A target that is a symbolic link is written
through: the file it points to is replaced and the link stays (``/etc/hadoop/conf``
files are often links into a managed directory, and the ResourceManager reads the file
the link names).
"""

from __future__ import annotations

import glob
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

logger = logging.getLogger(__name__)

#: Permission bits of a file that did not exist before: owner read/write, others read.
NEW_FILE_MODE = 0o644

#: Temporary files are ``.NAME.XXXXXXXX.tmp`` beside the target.
TEMPORARY_SUFFIX = ".tmp"


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes | str,
    *,
    before_replace: Callable[[Path], None] | None = None,
) -> Path:
    """Write `data` (text is UTF-8) to `path` atomically, keeping the target's mode.

    `before_replace` is called with the target after the new bytes are safely on
    disk and just before the rename (the scheduler-file writers pass `rotate_backups`
    there, keeping the old file as numbered backups). On any failure the temporary file is removed and the
    target is left as it was; an `OSError` (a full disk, a read-only directory) names
    `path` as its ``filename``. Returns `path`.
    """
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    directory = target.parent if str(target.parent) else Path(".")
    previous = target.stat() if target.exists() else None
    try:
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=TEMPORARY_SUFFIX, dir=directory
        )
    except OSError as error:
        raise _naming(error, target) from error
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if previous is None:
            os.chmod(temporary, NEW_FILE_MODE)
        else:
            os.chmod(temporary, previous.st_mode & 0o7777)
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                os.chown(temporary, previous.st_uid, previous.st_gid)
        if before_replace is not None:
            before_replace(target)
        os.replace(temporary, target)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        if error.filename not in (None, temporary):  # about another file (a backup)
            raise
        raise _naming(error, target) from error
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    fsync_directory(directory)
    logger.debug("wrote %s (%d bytes)", target, len(payload))
    return Path(path)


def _naming(error: OSError, target: Path) -> OSError:
    """`error` about `target` (a full disk's ENOSPC names no file; mkstemp names the directory).

    Same class and errno, so callers still tell ENOSPC from EROFS or EACCES; the message
    reads ``[Errno 28] No space left on device: 'TARGET'``.
    """
    if error.errno is None or error.filename == str(target):
        return error
    return type(error)(error.errno, error.strerror, str(target))


def fsync_directory(directory: str | os.PathLike[str]) -> None:
    """Make a rename in `directory` durable (skipped where the file system cannot)."""
    try:
        handle = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError as error:  # some file systems cannot fsync a directory
        logger.debug("fsync of %s failed: %s", directory, error)
    finally:
        os.close(handle)


def stray_temporaries(path: str | os.PathLike[str]) -> list[Path]:
    """Temporary files `write_atomic` left beside `path` when its process was killed mid-write.

    Only a crash leaves one (any error removes it), so after a crash they are safe to
    delete; while another process writes `path`, one of them may be its.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    pattern = f".{glob.escape(target.name)}.*{TEMPORARY_SUFFIX}"
    return sorted(p for p in directory.glob(pattern) if p.is_file())


def rotate_backups(target: Path, backups: int) -> None:
    """Keep `target` as ``target.1`` before it is replaced (``.1`` shifts to ``.2`` ... up to
    ``.backups``; the oldest is dropped), with its permission bits; nothing when there is no
    target or `backups` is 0. Pass it as `write_atomic`'s ``before_replace``."""
    if backups == 0 or not target.exists():
        return
    oldest = target.with_name(f"{target.name}.{backups}")
    oldest.unlink(missing_ok=True)
    for number in range(backups - 1, 0, -1):
        older = target.with_name(f"{target.name}.{number}")
        if older.exists():
            os.replace(older, target.with_name(f"{target.name}.{number + 1}"))
    first = target.with_name(f"{target.name}.1")
    first.write_bytes(target.read_bytes())
    os.chmod(first, target.stat().st_mode & 0o7777)


def write_with_backups(
    target: Path,
    data: bytes,
    *,
    backups: int,
    error: Callable[[str], Exception],
    caller: str,
    what: str,
) -> Path:
    """Write a scheduler file's validated `data` to `target` atomically, keeping `backups`
    numbered copies of what was there (`rotate_backups`): the one body of
    ``write_allocation`` and ``write_capacity``.

    A negative `backups` raises `error` naming `caller`; `what` names the file in the log
    line. Returns the path written.
    """
    if backups < 0:
        raise error(f"{caller} backups: expected >= 0, got {backups}")
    write_atomic(target, data, before_replace=lambda t: rotate_backups(t, backups))
    logger.info("wrote %s %s (%d bytes)", what, target, len(data))
    return target
