"""The one mapping from format names (as the CLI spells them) to reader classes.

The mapping is a literal, read-only table: adding a reader means adding one line
here (and its fixtures to the contract suite in ``tests/contracts``). The order is
the order `detect_format` tries the readers' ``sniff`` methods in.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from whatif.errors import TraceFormatError
from whatif.readers.base import SNIFF_BYTES, TraceReader
from whatif.readers.hadoop1_history import Hadoop1HistoryReader
from whatif.readers.jhist import JhistReader
from whatif.readers.native import NativeReader, write_native
from whatif.readers.rest_dump import RestDumpReader
from whatif.readers.rumen import RumenReader
from whatif.readers.sls import SlsReader
from whatif.readers.swim import SwimReader
from whatif.trace import Trace

logger = logging.getLogger(__name__)

#: Format name -> reader class, in detection order.
READERS: Mapping[str, type[TraceReader]] = MappingProxyType(
    {
        "native": NativeReader,
        "jhist": JhistReader,
        "hadoop1": Hadoop1HistoryReader,
        "rumen": RumenReader,
        "sls": SlsReader,
        "rest": RestDumpReader,
        "swim": SwimReader,
    }
)


def reader_for(name: str, *, path: Path | None = None) -> type[TraceReader]:
    """The reader class registered under `name`."""
    try:
        return READERS[name]
    except KeyError:
        where = f"{path}: " if path is not None else ""
        raise TraceFormatError(
            f"{where}unknown trace format {name!r}; expected one of {', '.join(READERS)}"
        ) from None


def _head(path: Path) -> bytes:
    """The first bytes of `path`, or of the first regular file in a directory."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            return b""
        path = files[0]
    with open(path, "rb") as handle:
        return handle.read(SNIFF_BYTES)


def detect_format(path: str | os.PathLike[str]) -> str:
    """The registered format name of the trace at `path`, judged from its content.

    Raises `TraceFormatError` (one line naming the file) when the path does not
    exist or no reader recognises it.
    """
    target = Path(path)
    if not target.exists():
        raise TraceFormatError(f"{target}: no such file or directory")
    try:
        head = _head(target)
    except OSError as error:
        raise TraceFormatError(f"{target}: cannot read ({error.strerror or error})") from error
    for name, reader in READERS.items():
        if reader.sniff(target, head):
            return name
    raise TraceFormatError(
        f"{target}: not a trace this tool can read (expected one of: {', '.join(READERS)})"
    )


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
    target, reader = _reader(path, format, options)
    return reader.read(target)


def read_workload_trace(
    path: str | os.PathLike[str], *, format: str | None = None, **options: object
) -> Trace:
    """`read_trace` without the observed schedule (``observed`` None), which SLS and native
    traces then do not build at all: less time and memory for a caller that only predicts
    (``tempo predict`` without ``--compare-observed``). Same options and errors."""
    target, reader = _reader(path, format, options)
    return reader.read_workload(target)


def _reader(
    path: str | os.PathLike[str], format: str | None, options: dict[str, object]
) -> tuple[Path, TraceReader]:
    """The path and the reader of the trace at `path` (`read_trace`'s checks)."""
    target = Path(path)
    if not target.exists():
        raise TraceFormatError(f"{target}: no such file or directory")
    name = format if format is not None else detect_format(target)
    reader = reader_for(name, path=target).create(target, **options)
    logger.info("reading %s as %s", target, name)
    return target, reader


def convert_trace(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    *,
    format: str | None = None,
    kind: Literal["parquet", "csv"] = "parquet",
    overwrite: bool = False,
    **options: object,
) -> Path:
    """Read any trace and write it as a native trace directory; returns the target path."""
    return write_native(
        read_trace(source, format=format, **options), target, kind=kind, overwrite=overwrite
    )
