"""Exceptions raised by the what-if engine.

Every error tempo's library raises on bad input derives from `WhatifError`, so a
caller (the CLI) can catch one class and print one line. Messages name the file
and place (``path:line:col``) or the field and record, and say what was expected.
"""

from __future__ import annotations

from pathlib import Path


class WhatifError(Exception):
    """Root of all what-if engine errors."""


class ValidationError(WhatifError, ValueError):
    """A value or table failed validation; the message names the field and record."""


class TraceFormatError(WhatifError):
    """A trace file could not be read; the message names the file and place."""


class OutputWriteError(WhatifError):
    """An output could not be written (a full disk, a directory made read-only): `path`
    and the OS's `reason`, for a caller that names its own option; the writer leaves
    nothing half-written."""

    def __init__(self, message: str, path: str | Path, reason: str) -> None:
        super().__init__(message)
        self.path, self.reason = path, reason


class AllocationError(WhatifError):
    """An allocation file is malformed or rejected by Hadoop's rules."""


class ClusterSpecError(WhatifError, ValueError):
    """A cluster description could not be understood."""


class RemoteServiceError(WhatifError):
    """A remote service the engine uses (a Dask scheduler) could not be reached or failed:
    not the input's fault (the CLI's exit status 3)."""


class UnfinishedJobsError(WhatifError):
    """Jobs that should have finished did not, so QS over them would be meaningless.

    Raised for a predicted schedule in which a job submitted in the evaluation window
    never finishes (a livelock, a task that never fits): its QS would otherwise leave
    the job out and look better. ``count`` is how many, ``job_ids`` a few of them and
    ``queues`` the count per queue.
    """

    def __init__(
        self,
        message: str,
        *,
        count: int = 0,
        job_ids: tuple[str, ...] = (),
        queues: tuple[tuple[str, int], ...] = (),
    ) -> None:
        super().__init__(message)
        self.count, self.job_ids, self.queues = count, job_ids, queues
