"""Streaming reads of JSON traces: concatenated objects and JSON-lines.

SLS, Rumen and SLS ``nodes.json`` files are *concatenated* JSON objects (what
Jackson's ``MappingIterator`` reads), not one JSON document. `iter_json_objects`
yields them one at a time from a buffer that holds roughly one object, so memory
stays bounded however large the file is. Errors name ``path:line:col`` and the
record number.

Objects are decoded in place in the read buffer, which is cut only when more of the file
is read: the 1M-task SLS file of ``benchmarks/scale.py`` (224 MB) streams in 3.0 s of
CPU, against 2.5-2.8 s for the stdlib decoding the whole text at once and 8.5-9.3 s when
every object was sliced off the buffer (two runs each, one process; issue 22).

Why the stdlib decoder stays here (issue 25 asked for the readers' fast parser where it
keeps the error quality): this module is the *precise* path that the readers' fast paths
fall back to, and what it is for is naming ``path:line:col`` of bad input. The fast
parser chosen for the readers, Arrow's JSON reader (`whatif.readers.arrow_json`), turns
records of a fixed schema into columns; it yields no Python values for the per-record
checks and reports no positions. The fast paths already parse with it first and come
here only for input it declines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from whatif.errors import TraceFormatError
from whatif.readers.base import not_utf8

#: Characters read from the file at a time.
CHUNK_CHARS = 1 << 20

_DECODER = json.JSONDecoder()
_VALUE = re.compile(r"[^ \t\n\r]")


@dataclass(frozen=True)
class JsonRecord:
    """One decoded top-level value, with where it started (1-based line, 1-based index)."""

    value: object
    line: int
    index: int


def iter_json_objects(path: Path, *, chunk_chars: int = CHUNK_CHARS) -> Iterator[JsonRecord]:
    """Yield each top-level JSON value of a file of concatenated values.

    A file holding a single JSON array yields the array itself (one record); callers
    that accept arrays iterate it.

    Raises
    ------
    TraceFormatError
        Invalid or truncated JSON, naming ``path:line:col`` and the record number.
    """
    try:
        handle = open(path, encoding="utf-8")
    except OSError as error:
        raise TraceFormatError(f"{path}: cannot read ({error.strerror or error})") from error
    with handle:
        buffer, pos = "", 0  # buffer[pos:] is not decoded yet
        lines = 0  # newlines in the file before buffer[pos]
        index = 0
        eof = False
        want = chunk_chars
        while True:
            start = _next_value(buffer, pos)
            lines += buffer.count("\n", pos, start)
            pos = start
            if pos == len(buffer):
                if eof:
                    return
                buffer, eof = _more(handle, "", chunk_chars, path)
                pos = 0
                continue
            try:
                value, end = _DECODER.raw_decode(buffer, pos)
            except json.JSONDecodeError:
                if not eof:
                    # Probably an object cut by the chunk boundary: read at least as much
                    # again (geometric growth keeps re-parsing cost linear overall).
                    want = max(want, len(buffer) - pos)
                    buffer, eof = _more(handle, buffer[pos:], want, path)
                    pos = 0
                    continue
                raise _invalid(path, buffer[pos:], lines, index + 1) from None
            index += 1
            yield JsonRecord(value=value, line=lines + 1, index=index)
            lines += buffer.count("\n", pos, end)
            pos = end
            want = chunk_chars


def _next_value(text: str, pos: int) -> int:
    """The index of the first character at or after `pos` that is not JSON whitespace."""
    found = _VALUE.search(text, pos)
    return found.start() if found is not None else len(text)


def _invalid(path: Path, text: str, lines: int, record: int) -> TraceFormatError:
    """The error for the invalid value that begins `text`, after `lines` lines of the file;
    positions are counted from the value's start, as the decoder gives them for `text`."""
    try:
        _DECODER.raw_decode(text)
    except json.JSONDecodeError as error:
        truncated = "; truncated file?" if error.pos >= len(text.rstrip()) - 1 else ""
        return TraceFormatError(
            f"{path}:{lines + error.lineno}:{error.colno}: invalid JSON in record {record} "
            f"({error.msg}{truncated})"
        )
    raise AssertionError("a value that failed to decode decoded")  # pragma: no cover


def _more(handle: TextIO, buffer: str, size: int, path: Path) -> tuple[str, bool]:
    try:
        chunk = handle.read(size)
    except UnicodeDecodeError as error:
        raise not_utf8(path, error.reason) from None
    return buffer + chunk, chunk == ""
