"""`write_allocation`: the only function that writes allocation files.

The last step of the package's pipeline (bytes -> `xml_io` -> `model` -> `validate`
-> `resolve`; writing needs only validation): a file Hadoop would refuse is never
written, so the ResourceManager never reloads one.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from whatif.allocation.model import AllocationDocument, file_hadoop_version
from whatif.allocation.validate import listed_errors, validate
from whatif.atomic import write_with_backups
from whatif.errors import AllocationError

logger = logging.getLogger(__name__)


def write_allocation(
    doc: AllocationDocument,
    path: str | os.PathLike[str],
    *,
    backups: int = 5,
    hadoop_version: int | None = None,
) -> Path:
    """Write `doc` to `path` atomically, keeping numbered backups of what was there.

    Refuses (`AllocationError`) a document that `validate` finds errors in as Hadoop
    `hadoop_version` reads it (default: the file's own dialect, ``<pool>`` elements
    meaning Hadoop 1, `file_hadoop_version`), naming the lines of the document's
    source. The bytes
    go to a temporary file in the target's directory, which is fsynced and renamed
    over the target, so a reader (the ResourceManager reloads every 10 s) sees either
    the old file or the new one. An existing target is first copied to
    ``path.1`` (older backups shift to ``.2`` ... ``.backups``; the oldest is dropped).
    The target's permission bits, and its owner when running as root, are kept; a new
    file is 0644, so the ResourceManager's user can read it (`whatif.atomic.write_atomic`).

    Returns the path written.
    """
    target = Path(path)
    version = file_hadoop_version(doc) if hadoop_version is None else hadoop_version
    listed = listed_errors(validate(doc, hadoop_version=version))
    if listed:
        lines = "" if doc.source == str(target) else f" (lines of {doc.source})"
        raise AllocationError(
            f"{target}: refusing to write an invalid allocation file{lines}: {listed}"
        )
    return write_with_backups(
        target,
        doc.to_bytes(),
        backups=backups,
        error=AllocationError,
        caller="write_allocation",
        what="allocation file",
    )


__all__ = ["write_allocation"]
