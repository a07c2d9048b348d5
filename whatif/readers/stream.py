"""Convert a trace to the native format in bounded memory, block by block.

SLS and Rumen job files go through their columnar fast paths
(`whatif.readers.sls_columns`, `whatif.readers.rumen_columns`) in pieces of about 64k
tasks, jhist files (`whatif.readers.jhist_columns`) a few whole files at a time: each
piece becomes a validated Workload (and observed Schedule) and is appended to the
native tables as Parquet row groups, so memory holds one piece, not the trace. Other
formats, and files with input only the precise readers read, are read whole and
written (`convert_trace`).

`read_window` reads only the last window of a trace: from a native Parquet trace the
filter is applied while reading (`read_native`), from other formats after.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal

from whatif.errors import TraceFormatError, WhatifError
from whatif.readers.arrow_json import Declined
from whatif.readers.jhist import JhistReader
from whatif.readers.jhist_columns import iter_jhist_blocks
from whatif.readers.native import read_native, write_native_stream
from whatif.readers.registry import (
    convert_trace,
    detect_format,
    read_trace,
    read_workload_trace,
)
from whatif.readers.rumen import RumenReader
from whatif.readers.rumen_columns import iter_rumen_blocks
from whatif.readers.sls import SlsReader
from whatif.readers.sls_columns import iter_sls_blocks
from whatif.trace import Trace, last_window

logger = logging.getLogger(__name__)


def convert_streaming(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    *,
    format: str | None = None,
    kind: Literal["parquet", "csv"] = "parquet",
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Convert `source` to a native trace at `target`; returns the target path.

    `progress(done, total)` is called with bytes of `source` read so far and its size
    (of all its files, for a jhist directory; streamed formats only). Same errors as
    `whatif.readers.convert_trace`. A jhist trace streamed in pieces notes the attempts
    without a recorded start per piece.
    """
    path = Path(source)
    name = format if format is not None else detect_format(path)
    streamed = {"sls": _sls_pieces, "rumen": _rumen_pieces, "jhist": _jhist_pieces}
    if name not in streamed or not (path.is_file() or name == "jhist"):
        return convert_trace(path, target, format=name, kind=kind, overwrite=overwrite)
    files = JhistReader.files(path) if name == "jhist" else [path]
    total = sum(file.stat().st_size for file in files)
    report = (lambda done: progress(done, total)) if progress is not None else None
    try:
        return write_native_stream(
            streamed[name](path, report), target, kind=kind, overwrite=overwrite
        )
    except Declined as declined:
        # Which path reads the file is internal: bad input gets only the precise reader's
        # error (path:line:col, what was expected); a warning is for a file it converts, as
        # that one was held whole in memory, not in pieces.
        logger.debug("%s: streaming %s path declined (%s); reading it whole", path, name, declined)
        written = convert_trace(path, target, format=name, kind=kind, overwrite=overwrite)
        logger.warning(
            "%s: converted whole in memory by the precise %s reader, not in pieces (%s)",
            path,
            name,
            declined,
        )
        return written


def _sls_pieces(path: Path, progress: Callable[[int], None] | None) -> Iterator[Trace]:
    reader = SlsReader()
    for tables in iter_sls_blocks(
        path, memory_mb=reader.memory_mb, vcores=reader.vcores, progress=progress
    ):
        yield reader.trace(path, tables)


def _rumen_pieces(path: Path, progress: Callable[[int], None] | None) -> Iterator[Trace]:
    reader = RumenReader()
    for tables in iter_rumen_blocks(path, reader.options(), progress):
        yield reader.trace(path, tables)


def _jhist_pieces(path: Path, progress: Callable[[int], None] | None) -> Iterator[Trace]:
    reader = JhistReader()
    for tables in iter_jhist_blocks(reader, reader.files(path), progress):
        yield reader.trace(path, tables)


def read_window(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    window_s: float | None = None,
    observed: bool = True,
    **options: object,
) -> Trace:
    """The trace at `path`, or with `window_s` only its jobs submitted in the last `window_s`
    seconds (`whatif.trace.last_window`), read without the rest where the format allows;
    `options` are the format's reader options (`read_trace`); without `observed`, the
    trace's observed schedule is not read (`read_workload_trace`)."""
    read = read_trace if observed else read_workload_trace
    if window_s is None:
        return read(path, format=format, **options)
    name = format if format is not None else detect_format(path)
    if name == "native" and not options:
        root = Path(path)
        return read_native(
            root.parent if root.name == "trace.json" else root,
            window_s=window_s,
            observed=observed,
        )
    try:
        return last_window(read(path, format=name, **options), window_s)
    except WhatifError as error:
        raise TraceFormatError(f"{path}: {error}") from error
