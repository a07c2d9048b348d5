"""One tuner per allocation file and journal: a lock file beside each, naming its holder.

Two ``tempo tune`` processes on the same allocation file and journal would
interleave their iterations, each applying its own steps. `TuneLock` makes the
second one fail at start-up with a `LockedError` naming the holder.

The lock is ``.NAME.tempo-lock`` in the directory of the file it guards: an
advisory ``flock`` held while the tuner runs, so the kernel releases it on any exit
(SIGKILL included), plus the holder's pid, host, process start time, start date and
command as JSON in the file, for the message. A clean release removes the file.

A lock file whose ``flock`` is free but whose content names a holder is left over
from a process that died. On this host it is *stale* when that pid no longer runs,
or runs another program (its start time differs): it is taken over with a warning.
A holder on another host (the file on a shared file system) cannot be checked from
here, so the lock is refused, saying how to remove it once that process is gone.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import socket
import sys
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from tempo.errors import TempoError
from tempo.rm.redact import redact

try:  # POSIX; elsewhere the pid and host in the file are the only guard
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

#: Suffix of lock files (``.fair-scheduler.xml.tempo-lock``).
LOCK_SUFFIX = ".tempo-lock"


class LockedError(TempoError):
    """Another tuner holds the lock of the allocation file or journal (`holder` says who)."""

    def __init__(self, message: str, *, holder: Holder | None = None) -> None:
        super().__init__(message)
        self.holder = holder


@dataclass(frozen=True)
class Holder:
    """Who holds a lock: pid, host, process start ticks (Linux), start date, command."""

    pid: int
    host: str
    start_ticks: int | None = None
    since: str = ""
    command: str = ""

    def describe(self) -> str:
        since = f" since {self.since}" if self.since else ""
        command = f" ({self.command})" if self.command else ""
        return f"pid {self.pid} on host {self.host}{since}{command}"

    @classmethod
    def current(cls) -> Holder:
        """This process."""
        return cls(
            pid=os.getpid(),
            host=socket.gethostname(),
            start_ticks=process_start_ticks(os.getpid()),
            since=datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
            command=redact(" ".join([Path(sys.argv[0]).name, *sys.argv[1:]]))[:200],
        )

    @classmethod
    def parse(cls, text: str) -> Holder | None:
        """The holder recorded in a lock file, or None when it is empty or unreadable."""
        try:
            fields = json.loads(text)
            return cls(
                pid=int(fields["pid"]),
                host=str(fields["host"]),
                start_ticks=None
                if fields.get("start_ticks") is None
                else int(fields["start_ticks"]),
                since=str(fields.get("since", "")),
                command=str(fields.get("command", "")),
            )
        except (ValueError, TypeError, KeyError):
            return None


def process_start_ticks(pid: int) -> int | None:
    """When `pid` started, in clock ticks after boot (Linux ``/proc``), or None if unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    try:  # the command name (field 2) may hold spaces and parentheses: split after it
        return int(stat[stat.rindex(")") + 2 :].split()[19])
    except (ValueError, IndexError):
        return None


def is_running(holder: Holder) -> bool:
    """Whether `holder` (a process on this host) still runs: its pid lives, with its start time."""
    try:
        os.kill(holder.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        pass
    if holder.start_ticks is None:
        return True
    ticks = process_start_ticks(holder.pid)
    return ticks is None or ticks == holder.start_ticks


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The lock file guarding `path`: ``.NAME.tempo-lock`` beside the file it names (through
    any symbolic link, which `whatif.atomic.write_atomic` writes through: two runs reaching
    one file by different paths take one lock)."""
    target = Path(path).resolve()
    return target.with_name(f".{target.name}{LOCK_SUFFIX}")


class TuneLock:
    """An exclusive, process-lifetime lock on one file (see the module docstring).

    Use as a context manager, or `acquire` and `release`. `guarded` is the file
    guarded (the allocation file or the journal), `path` the lock file.
    """

    def __init__(self, guarded: str | os.PathLike[str]) -> None:
        self.guarded = Path(guarded)
        self.path = lock_path(guarded)
        self._fd: int | None = None
        self._me: Holder | None = None

    def acquire(self) -> TuneLock:
        """Take the lock, or raise `LockedError` naming the holder."""
        if self._fd is not None:
            return self
        for _ in range(10):  # a holder removing the file while we open it: retry
            fd = self._open()
            try:
                if self._try_flock(fd) and self._same_file(fd):
                    self._take(fd)
                    return self
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)
        raise LockedError(f"{self.path}: could not take the lock (it kept changing); try again")

    def _open(self) -> int:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise TempoError(
                f"{self.path}: cannot create the lock file that keeps a second tuner off "
                f"{self.guarded} ({error.strerror})"
            ) from error

    def _try_flock(self, fd: int) -> bool:
        if fcntl is None:
            return True
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise TempoError(f"{self.path}: cannot lock ({error.strerror})") from error
            holder = Holder.parse(_read(fd))
            who = holder.describe() if holder else "another process (it is starting)"
            raise LockedError(
                f"{self.guarded} is being tuned by {who}: only one tempo tune may run on an "
                f"allocation file and journal (lock {self.path})",
                holder=holder,
            ) from None
        return True

    def _same_file(self, fd: int) -> bool:
        """Whether the locked descriptor is still the file at `path` (not one just removed)."""
        try:
            on_disk = os.stat(self.path)
        except FileNotFoundError:
            return False
        mine = os.fstat(fd)
        return (mine.st_dev, mine.st_ino) == (on_disk.st_dev, on_disk.st_ino)

    def _take(self, fd: int) -> None:
        previous = Holder.parse(_read(fd))
        me = Holder.current()
        if previous is not None and previous.pid != me.pid:
            self._check_stale(previous, me)
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, (json.dumps(asdict(me)) + "\n").encode())
        os.fsync(fd)
        self._fd, self._me = fd, me

    def _check_stale(self, previous: Holder, me: Holder) -> None:
        if previous.host != me.host:
            raise LockedError(
                f"{self.guarded} is locked by {previous.describe()}, which cannot be checked from "
                f"{me.host}; if that process is gone, remove {self.path} and start again",
                holder=previous,
            )
        if is_running(previous):  # a file system where flock is not enforced
            raise LockedError(
                f"{self.guarded} is being tuned by {previous.describe()}: only one tempo tune may "
                f"run on an allocation file and journal (lock {self.path}; if that process is "
                "not tempo, remove the lock file)",
                holder=previous,
            )
        logger.warning(
            "%s: a stale lock of %s, which is no longer running; taking it over",
            self.path,
            previous.describe(),
        )

    def release(self) -> None:
        """Give the lock up and remove the lock file (idempotent)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            if self._same_file(fd):
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
        finally:
            os.close(fd)  # releases the flock

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> TuneLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read(fd: int) -> str:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 4096):
        chunks.append(chunk)
        if sum(map(len, chunks)) > 65536:
            break
    return b"".join(chunks).decode("utf-8", "replace")
