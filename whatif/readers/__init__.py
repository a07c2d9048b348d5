"""Trace readers: every supported trace format into one `Trace` (Workload + observed Schedule).

Public entry points:

- `read_trace(path, format=None, **options)`: read any supported trace, detecting
  the format from the content when `format` is None;
- `detect_format(path)`: the format name of a file or directory;
- `write_native(trace, path, kind="parquet")`: save a trace in tempo's native format;
- `READERS`: format name -> `TraceReader` class (the extension point is
  `whatif.readers.base.TraceReader`).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from whatif.errors import TraceFormatError
from whatif.readers.base import TraceReader, normalize_queue
from whatif.readers.native import read_native, write_native
from whatif.readers.registry import READERS, detect_format, reader_for
from whatif.trace import Trace

logger = logging.getLogger(__name__)

__all__ = [
    "READERS",
    "TraceReader",
    "detect_format",
    "normalize_queue",
    "read_native",
    "read_trace",
    "reader_for",
    "write_native",
]


def read_trace(
    path: str | os.PathLike[str], *, format: str | None = None, **options: object
) -> Trace:
    """Read the trace at `path` into a `Trace`.

    Parameters
    ----------
    path : path-like
        A trace file, or a directory (a native trace, or a directory of ``.jhist`` files).
    format : str, optional
        A name in `READERS`; detected from the content when None.
    **options
        Keyword options of that format's reader (e.g. SWIM's ``seed``).

    Raises
    ------
    TraceFormatError
        The path is missing, not a trace, or malformed; the message is one line
        naming the file (and the line or record when known).
    """
    target = Path(path)
    if not target.exists():
        raise TraceFormatError(f"{target}: no such file or directory")
    name = format if format is not None else detect_format(target)
    reader = reader_for(name, path=target).create(target, **options)
    logger.info("reading %s as %s", target, name)
    return reader.read(target)
