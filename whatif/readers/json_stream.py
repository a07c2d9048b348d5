"""Streaming reads of JSON traces: concatenated objects and JSON-lines.

SLS, Rumen and SLS ``nodes.json`` files are *concatenated* JSON objects (what
Jackson's ``MappingIterator`` reads), not one JSON document. `iter_json_objects`
yields them one at a time from a buffer that holds roughly one object, so memory
stays bounded however large the file is. Errors name ``path:line:col`` and the
record number.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from whatif.errors import TraceFormatError
from whatif.readers.base import not_utf8

#: Characters read from the file at a time.
CHUNK_CHARS = 1 << 20

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


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
        buffer = ""
        offset_lines = 0  # newlines consumed before buffer[0]
        index = 0
        eof = False
        want = chunk_chars
        while True:
            start = _skip_whitespace(buffer)
            if start:
                offset_lines += buffer.count("\n", 0, start)
                buffer = buffer[start:]
            if not buffer:
                if eof:
                    return
                buffer, eof = _more(handle, buffer, chunk_chars, path)
                continue
            try:
                value, end = _DECODER.raw_decode(buffer)
            except json.JSONDecodeError as error:
                if not eof:
                    # Probably an object cut by the chunk boundary: read at least as much
                    # again (geometric growth keeps re-parsing cost linear overall).
                    want = max(want, len(buffer))
                    buffer, eof = _more(handle, buffer, want, path)
                    continue
                line = offset_lines + error.lineno
                raise TraceFormatError(
                    f"{path}:{line}:{error.colno}: invalid JSON in record {index + 1} "
                    f"({error.msg}{'; truncated file?' if error.pos >= len(buffer.rstrip()) - 1 else ''})"
                ) from None
            index += 1
            yield JsonRecord(value=value, line=offset_lines + 1, index=index)
            offset_lines += buffer.count("\n", 0, end)
            buffer = buffer[end:]
            want = chunk_chars


def _skip_whitespace(text: str) -> int:
    return len(text) - len(text.lstrip(_WHITESPACE))


def _more(handle: TextIO, buffer: str, size: int, path: Path) -> tuple[str, bool]:
    try:
        chunk = handle.read(size)
    except UnicodeDecodeError as error:
        raise not_utf8(path, error.reason) from None
    return buffer + chunk, chunk == ""
