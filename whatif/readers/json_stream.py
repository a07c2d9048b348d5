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
import sys
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
        column = 0  # characters on buffer[0]'s line before it
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
                column = _column(buffer, pos, column)
                buffer, eof = _more(handle, "", chunk_chars, path)
                pos = 0
                continue
            try:
                value, end = _DECODER.raw_decode(buffer, pos)
            except (ValueError, RecursionError):  # ValueError: JSONDecodeError, a huge int
                if not eof:
                    # Probably an object cut by the chunk boundary: read at least as much
                    # again (geometric growth keeps re-parsing cost linear overall).
                    want = max(want, len(buffer) - pos)
                    column = _column(buffer, pos, column)
                    buffer, eof = _more(handle, buffer[pos:], want, path)
                    pos = 0
                    continue
                at = _column(buffer, pos, column)
                raise _invalid(path, buffer[pos:], lines, at, index + 1) from None
            index += 1
            yield JsonRecord(value=value, line=lines + 1, index=index)
            lines += buffer.count("\n", pos, end)
            pos = end
            want = chunk_chars


def _next_value(text: str, pos: int) -> int:
    """The index of the first character at or after `pos` that is not JSON whitespace."""
    found = _VALUE.search(text, pos)
    return found.start() if found is not None else len(text)


def _column(text: str, pos: int, first: int) -> int:
    """Characters before `pos` on its line; `first`: those before ``text[0]`` on its line."""
    newline = text.rfind("\n", 0, pos)
    return pos - newline - 1 if newline >= 0 else first + pos


def _invalid(path: Path, text: str, lines: int, column: int, record: int) -> TraceFormatError:
    """The error for the invalid value that begins `text`, after `lines` lines of the file
    and `column` characters of its line."""
    line, col, problem = json_problem(text, end="file")
    col += column if line == 1 else 0
    return TraceFormatError(
        f"{path}:{lines + line}:{col}: invalid JSON in record {record}: {problem}"
    )


#: Each `json.JSONDecodeError` message, as what was expected there.
_EXPECTED = {
    "Expecting value": "expected a JSON value",
    "Expecting ',' delimiter": "expected ',' or a closing '}' or ']'",
    "Expecting ':' delimiter": "expected ':' after a member name",
    "Expecting property name enclosed in double quotes": "expected a member name in double quotes",
    "Extra data": "expected nothing after the JSON value (one document)",
}
_ESCAPES = '\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX'


def json_problem(text: str, *, end: str = "file", whole: bool = False) -> tuple[int, int, str]:
    """Where the JSON value `text` begins with (`whole`: that `text` is) is invalid and what
    is wrong there: 1-based line and column within `text`, and a complete phrase saying
    what was expected. `end` names what `text` is, for a value cut at its end ("file",
    "line").

    Raises AssertionError for a `text` that decodes.
    """
    at, problem = json_problem_at(text, end=end, whole=whole)
    line, col = line_col(text, at)
    return line, col, problem


def json_problem_at(text: str, *, end: str = "file", whole: bool = False) -> tuple[int, str]:
    """`json_problem` with the place as an index into `text`.

    The stdlib's messages name no position of their own in ``msg`` and some end in "at"
    (e.g. "Unterminated string starting at"); a number too long for Python's int and
    nesting deeper than its recursion limit raise other errors, without a position.
    """
    try:
        if whole:
            _DECODER.decode(text)
        else:
            _DECODER.raw_decode(text, _next_value(text, 0))
    except json.JSONDecodeError as error:
        return error.pos, _decode_problem(error, text, end)
    except ValueError as error:  # "Exceeds the limit (4300 digits) for integer string ..."
        limit = sys.get_int_max_str_digits()
        digits = re.search(f"[0-9]{{{limit + 1},}}", text)
        if digits is None:  # pragma: no cover (no other ValueError is known)
            return 0, " ".join(str(error).split())
        problem = f"a number of {len(digits.group())} digits; expected at most {limit}"
        return digits.start(), f"{problem} (Python's limit for integers)"
    except RecursionError:
        at, depth = _deepest(text, _next_value(text, 0))
        return at, (
            f"arrays or objects nested {depth} deep here, too deep to read "
            "(Python's recursion limit)"
        )
    raise AssertionError("a value that failed to decode decoded")  # pragma: no cover


#: What changes the nesting depth of JSON text: a string (skipped whole) or a bracket.
_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _deepest(text: str, start: int) -> tuple[int, int]:
    """The index of the bracket where the value at `start` first reaches its deepest
    nesting, and that depth (brackets inside strings do not count)."""
    depth = deepest = 0
    at = start
    for match in _NESTING.finditer(text, start):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, match.start()
        elif token in "]}":
            depth -= 1
            if depth == 0:
                break
    return at, deepest


def line_col(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of `text[pos]`."""
    return text.count("\n", 0, pos) + 1, _column(text, pos, 0) + 1


def _decode_problem(error: json.JSONDecodeError, text: str, end: str) -> str:
    """`error`'s message as a complete phrase; "(truncated?)" where the text ends there."""
    at, msg = error.pos, error.msg
    if not text.strip():
        return f"the {end} is empty; expected a JSON value"
    cut = f", but the {end} ends there (truncated?)" if not text[at:].strip() else ""
    if msg.startswith("Unterminated string"):  # the position is the opening quote
        return f"a string starting here has no closing '\"': the {end} ends first (truncated?)"
    if msg.startswith("Invalid control character"):
        char = text[at] if at < len(text) else "\n"
        if char in ("\r", "\n"):
            return "a string has no closing '\"' before the end of the line"
        return (
            f"control character U+{ord(char):04X} in a string; expected it escaped "
            f"(\\u{ord(char):04x})"
        )
    if msg.startswith("Invalid \\escape"):
        return f"invalid escape '{text[at : at + 2]}' in a string; expected one of {_ESCAPES}"
    if msg.startswith("Invalid \\uXXXX"):
        return f"invalid '\\u' escape in a string; expected \\u and 4 hex digits{cut}"
    for stem, expected in _EXPECTED.items():
        if msg.startswith(stem):
            return expected + cut
    return msg.removesuffix(" at").strip() + cut


def _more(handle: TextIO, buffer: str, size: int, path: Path) -> tuple[str, bool]:
    try:
        chunk = handle.read(size)
    except UnicodeDecodeError as error:
        raise not_utf8(path, error.reason) from None
    return buffer + chunk, chunk == ""
