"""Recognising and writing Capacity Scheduler files.

`is_capacity_scheduler` tells a ``capacity-scheduler.xml`` (root ``<configuration>``
with ``yarn.scheduler.capacity.`` properties) from an allocation file, so commands
taking either can dispatch. `write_capacity` is the only writer: it refuses a
configuration Hadoop would reject and writes atomically (`whatif.atomic`).
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from whatif.allocation.validate import listed_errors
from whatif.atomic import write_with_backups
from whatif.capacity.document import CapacityConfigError, ConfigurationDocument
from whatif.capacity.validate import validate

logger = logging.getLogger(__name__)

_ROOT = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?configuration[\s>/]")
_HEAD_BYTES = 1 << 20


def is_capacity_scheduler(path: str | os.PathLike[str]) -> bool:
    """Whether `path` looks like ``capacity-scheduler.xml`` (a cheap sniff, no parsing).

    True when its first megabyte has a ``<configuration>`` element and names a
    ``yarn.scheduler.capacity.`` property. Unreadable files give False, so the
    caller's own reader reports them.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError:
        return False
    return looks_like_capacity_scheduler(head)


def looks_like_capacity_scheduler(data: bytes) -> bool:
    """`is_capacity_scheduler`'s sniff of a file's bytes (its first megabyte is read)."""
    head = data[:_HEAD_BYTES]
    return bool(_ROOT.search(head)) and b"yarn.scheduler.capacity." in head


def write_capacity(
    doc: ConfigurationDocument, path: str | os.PathLike[str], *, backups: int = 0
) -> Path:
    """Write `doc` to `path` atomically; refuses (`CapacityConfigError`) a file Hadoop would reject.

    With `backups`, an existing file is first kept as ``path.1`` (older ones shift,
    as `whatif.allocation.write_allocation` keeps them).
    """
    target = Path(path)
    listed = listed_errors(validate(doc))
    if listed:
        raise CapacityConfigError(
            f"{target}: refusing to write a configuration Hadoop would reject: {listed}"
        )
    return write_with_backups(
        target,
        doc.to_bytes(),
        backups=backups,
        error=CapacityConfigError,
        caller="write_capacity",
        what="Capacity Scheduler configuration",
    )
