"""A compiled scanner of SLS job objects: bytes straight to the fast path's columns.

Arrow's JSON reader spends most of a large SLS read (about 40 s of CPU for a 2.2 GB,
10M-task file) building generic nested columns. This scanner knows the SLS fields:
one pass of numba code over the bytes validates the JSON and writes each job's and
each task definition's numbers into float64 columns (NaN: absent or null) and its
strings as byte spans, which become Arrow string arrays. `scan_blocks` yields them as
`whatif.readers.sls_columns.Block`s, the fields Arrow's reader gives (a test checks that
they are equal), so every SLS rule stays in `whatif.readers.sls_columns`.

It is stricter than JSON: anything it does not take exactly (a non-ASCII byte, an
escape in a key or a value it reads, a number Clinger's fast path cannot convert
exactly, a value of another type than the schema's, a repeated field, nesting deeper
than `MAX_DEPTH`, invalid JSON) raises `Declined`, and the caller reads the file with
Arrow's reader, then the precise reader, which names ``path:line:col``.
"""

from __future__ import annotations

import functools
import logging
import re
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from numba import njit, types
from numba.extending import intrinsic

from whatif.readers.arrow_json import Declined

#: One block read: the jobs' fields, their task definitions' fields (by their names in
#: `whatif.readers.sls_columns.SCHEMA`) and how many task definitions each job has; the
#: fields of `whatif.readers.sls_columns.Block`, which is made of it.
Block = tuple[dict[str, Any], dict[str, Any], np.ndarray]

logger = logging.getLogger(__name__)

#: Job fields read as numbers and as strings, in the order of their columns.
JOB_NUMBERS = ("job.start.ms", "job.end.ms", "job.count", "am.memory-mb", "am.memory", "am.vcores")
JOB_STRINGS = ("job.id", "job.queue.name", "job.user")
TASK_NUMBERS = (
    "container.start.ms",
    "container.end.ms",
    "container.duration.ms",
    "duration.ms",
    "container.memory-mb",
    "container.memory",
    "container.vcores",
    "container.priority",
    "count",
)
TASK_STRINGS = ("container.type", "container.host")
TASKS_KEY = "job.tasks"
#: Deepest nesting of a skipped value (deeper declines).
MAX_DEPTH = 256
#: Bytes scanned at a time (the file is read in blocks of this size, each job whole).
BLOCK_BYTES = 16 << 20

# Positions the scanning functions return below zero.
_BAD = -1  # invalid JSON, or input the scanner does not take
_MORE = -2  # the buffer ended inside a value
_FULL = -3  # the task columns are full


def _key_table(names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """`names` as a padded byte matrix and their lengths, for `_key_id`."""
    width = max(len(n) for n in names)
    table = np.zeros((len(names), width), dtype=np.uint8)
    for row, name in enumerate(names):
        table[row, : len(name)] = np.frombuffer(name.encode("ascii"), dtype=np.uint8)
    return table, np.array([len(n) for n in names], dtype=np.int64)


#: Job keys: numbers, then strings, then job.tasks; task keys: numbers, then strings.
_JOB_KEYS = _key_table((*JOB_NUMBERS, *JOB_STRINGS, TASKS_KEY))
_TASK_KEYS = _key_table((*TASK_NUMBERS, *TASK_STRINGS))
_POW10 = np.array([10.0**k for k in range(23)])  # exact in float64
#: Bytes a string holds as they are: printable ASCII but the quote and the backslash.
_PLAIN = np.array([32 <= c < 128 and c not in (34, 92) for c in range(256)], dtype=np.uint8)
_TRUE, _FALSE, _NULL = (
    np.frombuffer(w, dtype=np.uint8).copy() for w in (b"true", b"false", b"null")
)


def _borrowed_view(typingctx: object, array: Any) -> object:  # pragma: no cover - compiled
    """`array` without its reference count (a view the caller keeps alive): numba's atomic
    reference counting of arrays passed between the scanner's functions took most of its
    time."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        source = context.make_array(array)(context, builder, args[0])
        view = context.make_array(array)(context, builder)
        context.populate_array(
            view,
            data=source.data,
            shape=source.shape,
            strides=source.strides,
            itemsize=source.itemsize,
            meminfo=None,
        )
        return view._getvalue()

    return array(array), codegen


_borrowed: Any = intrinsic(_borrowed_view)


def _pointer_to(typingctx: object, array: Any) -> object:  # pragma: no cover - compiled
    """A pointer to `array`'s first item (the caller keeps the array alive): the bytes are
    read through it, with no reference counting at all where they are passed."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return context.make_array(array)(context, builder, args[0]).data

    return types.CPointer(array.dtype)(array), codegen  # type: ignore[no-untyped-call]


_pointer: Any = intrinsic(_pointer_to)


@njit(cache=True, nogil=True, inline="always")
def _ws(b: np.ndarray, i: int, n: int) -> int:  # pragma: no cover - compiled
    """The first position at or after `i` that is not JSON whitespace."""
    while i < n:
        c = b[i]
        if c > 32 or (c != 32 and c != 10 and c != 13 and c != 9):
            break
        i += 1
    return i


@njit(cache=True, nogil=True, inline="always")
def _string(b: np.ndarray, i: int, n: int, escapes: bool) -> tuple[int, bool]:  # pragma: no cover
    """The position after the string whose quote is at `i`, and whether it has an escape
    (declined unless `escapes`); `_BAD` for a control or non-ASCII byte."""
    i += 1
    escaped = False
    while i < n:
        c = b[i]
        if _PLAIN[c]:
            i += 1
            continue
        if c == 34:  # "
            return i + 1, escaped
        if c < 32 or c >= 128:
            return _BAD, escaped
        if c == 92:  # backslash
            if not escapes:
                return _BAD, True
            escaped = True
            if i + 1 >= n:
                return _MORE, escaped
            e = b[i + 1]
            if e == 117:  # \uXXXX
                if i + 6 > n:
                    return _MORE, escaped
                for k in range(i + 2, i + 6):
                    h = b[k]
                    if not (48 <= h <= 57 or 65 <= h <= 70 or 97 <= h <= 102):
                        return _BAD, escaped
                i += 6
                continue
            if not (
                e == 34
                or e == 92
                or e == 47
                or e == 98
                or e == 102
                or e == 110
                or e == 114
                or e == 116
            ):
                return _BAD, escaped
            i += 2
            continue
        i += 1
    return _MORE, escaped


@njit(cache=True, nogil=True, inline="always")
def _digits(b: np.ndarray, i: int, n: int) -> tuple[int, int, int]:  # pragma: no cover
    """From `i`: the position after a run of digits, their value (up to 18 digits) and count."""
    value = 0
    count = 0
    while i < n and 48 <= b[i] <= 57:
        if count < 18:
            value = value * 10 + (b[i] - 48)
        count += 1
        i += 1
    return i, value, count


@njit(cache=True, nogil=True, inline="always")
def _number(
    b: np.ndarray, i: int, n: int, pow10: np.ndarray
) -> tuple[int, float]:  # pragma: no cover
    """The JSON number at `i`: (position after it, value); `_BAD` when it is not one, or
    not exactly convertible by Clinger's fast path (at most 15 significant digits, a
    decimal exponent within +-22), `_MORE` when the buffer ends in it."""
    negative = b[i] == 45  # -
    if negative:
        i += 1
    if i >= n:
        return _MORE, 0.0
    if not 48 <= b[i] <= 57:
        return _BAD, 0.0
    start = i
    i, mantissa, count = _digits(b, i, n)
    if count > 1 and b[start] == 48:
        return _BAD, 0.0  # a leading zero
    exponent = 0
    if i < n and b[i] == 46:  # .
        i, fraction, places = _digits(b, i + 1, n)
        if places == 0:
            return (_MORE if i >= n else _BAD), 0.0
        if count + places > 18:
            return _BAD, 0.0
        for _ in range(places):
            mantissa *= 10
        mantissa += fraction
        count += places
        exponent = -places
    if i < n and (b[i] == 101 or b[i] == 69):  # e E
        i += 1
        sign = 1
        if i < n and (b[i] == 43 or b[i] == 45):
            sign = -1 if b[i] == 45 else 1
            i += 1
        i, power, places = _digits(b, i, n)
        if places == 0:
            return (_MORE if i >= n else _BAD), 0.0
        if places > 4:
            return _BAD, 0.0
        exponent += sign * power
    if i >= n:
        return _MORE, 0.0  # more digits may follow in the file
    if count > 18 or mantissa >= 1 << 53:
        return _BAD, 0.0
    if exponent > 22 or exponent < -22:
        return _BAD, 0.0
    value = float(mantissa)
    if exponent > 0:
        value *= pow10[exponent]
    elif exponent < 0:
        value /= pow10[-exponent]
    if negative:
        value = -value
    return i, value


@njit(cache=True, nogil=True, inline="always")
def _literal(b: np.ndarray, i: int, n: int, word: np.ndarray) -> int:  # pragma: no cover
    """The position after `word` (true, false, null) at `i`, or `_BAD`/`_MORE`."""
    for k in range(len(word)):
        if i + k >= n:
            return _MORE
        if b[i + k] != word[k]:
            return _BAD
    return i + len(word)


@njit(cache=True, nogil=True, inline="always")
def _scalar(b: np.ndarray, i: int, n: int, pow10: np.ndarray) -> int:  # pragma: no cover
    """The position after the string, number or literal at `i` (not an object or array)."""
    c = b[i]
    if c == 34:
        return _string(b, i, n, True)[0]
    if c == 45 or 48 <= c <= 57:
        return _number(b, i, n, pow10)[0]
    if c == 116:
        return _literal(b, i, n, _TRUE)
    if c == 102:
        return _literal(b, i, n, _FALSE)
    if c == 110:
        return _literal(b, i, n, _NULL)
    return _BAD


@njit(cache=True, nogil=True, inline="always")
def _key(b: np.ndarray, i: int, n: int) -> int:  # pragma: no cover
    """The position after ``"key" :`` at `i` (whitespace skipped), escapes allowed."""
    if i >= n:
        return _MORE
    if b[i] != 34:
        return _BAD
    i = _string(b, i, n, True)[0]
    if i < 0:
        return i
    i = _ws(b, i, n)
    if i >= n:
        return _MORE
    if b[i] != 58:  # :
        return _BAD
    return _ws(b, i + 1, n)


@njit(cache=True, nogil=True)
def _skip(
    b: np.ndarray, i: int, n: int, stack: np.ndarray, pow10: np.ndarray
) -> int:  # pragma: no cover
    """The position after the JSON value at `i`, validated (objects and arrays iteratively)."""
    depth = 0
    while True:
        if i >= n:
            return _MORE
        c = b[i]
        if c == 123 or c == 91:  # { [
            close = 125 if c == 123 else 93
            i = _ws(b, i + 1, n)
            if i >= n:
                return _MORE
            if b[i] == close:
                i += 1
            else:
                if depth >= len(stack):
                    return _BAD
                stack[depth] = c
                depth += 1
                if c == 123:
                    i = _key(b, i, n)
                    if i < 0:
                        return i
                continue
        else:
            i = _scalar(b, i, n, pow10)
            if i < 0:
                return i
        while True:  # a value ended: close containers, or go on to the next value
            if depth == 0:
                return i
            i = _ws(b, i, n)
            if i >= n:
                return _MORE
            c = b[i]
            top = stack[depth - 1]
            if c == 44:  # ,
                i = _ws(b, i + 1, n)
                if top == 123:
                    i = _key(b, i, n)
                    if i < 0:
                        return i
                break
            if (c == 125 and top == 123) or (c == 93 and top == 91):
                depth -= 1
                i += 1
                continue
            return _BAD


@njit(cache=True, nogil=True, inline="always")
def _key_id(
    b: np.ndarray, start: int, n: int, table: np.ndarray, lengths: np.ndarray
) -> int:  # pragma: no cover
    """The row of `table` spelled at `start` up to a closing quote, or -1 (an unknown key,
    or one that ends past `n`: `_string` then tells which)."""
    for row in range(len(lengths)):
        size = lengths[row]
        if start + size >= n or b[start + size] != 34:
            continue
        same = True
        for k in range(size):
            if table[row, k] != b[start + k]:
                same = False
                break
        if same:
            return row
    return -1


@njit(cache=True, nogil=True, inline="always")
def _field(
    b: np.ndarray, i: int, n: int, column: int, row: int, out: Any, pow10: np.ndarray
) -> int:  # pragma: no cover
    """Read the value at `i` into column `column` of `out` (numbers, spans: number columns
    first, then string columns) at `row`; null leaves it absent; another type declines."""
    numbers, spans = out
    n_numbers = numbers.shape[0]
    c = b[i]
    if c == 110:  # null
        return _literal(b, i, n, _NULL)
    if column < n_numbers:
        if not (c == 45 or 48 <= c <= 57):
            return _BAD
        end, value = _number(b, i, n, pow10)
        if end >= 0:
            numbers[column, row] = value
        return end
    if c != 34:
        return _BAD
    end = _string(b, i, n, False)[0]
    if end >= 0:
        spans[column - n_numbers, row, 0] = i + 1
        spans[column - n_numbers, row, 1] = end - 1
    return end


@njit(cache=True, nogil=True, inline="always")
def _member(
    b: np.ndarray, i: int, n: int, keys: Any, seen: int
) -> tuple[int, int, int]:  # pragma: no cover
    """At a key's quote: (position of its value, its row in `keys` (table, lengths) or -1,
    the rows seen in this object so far); escapes in a key, or a repeated field, decline."""
    table, lengths = keys
    if i >= n:
        return _MORE, -1, seen
    if b[i] != 34:
        return _BAD, -1, seen
    key = _key_id(b, i + 1, n, table, lengths)
    if key >= 0:
        if seen & (1 << key):
            return _BAD, -1, seen
        seen |= 1 << key
        end = i + lengths[key] + 2
    else:
        end = _string(b, i, n, False)[0]
        if end < 0:
            return end, -1, seen
    i = _ws(b, end, n)
    if i >= n:
        return _MORE, -1, seen
    if b[i] != 58:
        return _BAD, -1, seen
    i = _ws(b, i + 1, n)
    return (_MORE if i >= n else i), key, seen


@njit(cache=True, nogil=True, inline="always")
def _clear(out: Any, row: int) -> None:  # pragma: no cover
    """Row `row` of the columns `out` (numbers, spans) absent: numbers NaN, spans -1."""
    numbers, spans = out
    for k in range(numbers.shape[0]):
        numbers[k, row] = np.nan
    for k in range(spans.shape[0]):
        spans[k, row, 0] = -1
        spans[k, row, 1] = -1


@njit(cache=True, nogil=True, inline="always")
def _next_member(b: np.ndarray, i: int, n: int) -> tuple[int, bool]:  # pragma: no cover
    """After a member's value: (position of the next key, True) after a comma, (position
    after the object, False) at its closing brace."""
    i = _ws(b, i, n)
    if i >= n:
        return _MORE, False
    if b[i] == 44:
        return _ws(b, i + 1, n), True
    if b[i] == 125:
        return i + 1, False
    return _BAD, False


@njit(cache=True, nogil=True)
def _task(
    b: np.ndarray, i: int, n: int, row: int, out: Any, keys: Any, aux: Any
) -> int:  # pragma: no cover
    """Read the task object at `i` into row `row` of the task columns `out`."""
    stack, pow10 = aux
    _clear(out, row)
    i = _ws(b, i + 1, n)
    if i >= n:
        return _MORE
    if b[i] == 125:
        return i + 1
    seen = 0
    more = True
    while more:
        i, key, seen = _member(b, i, n, keys, seen)
        if i >= 0:
            i = _field(b, i, n, key, row, out, pow10) if key >= 0 else _skip(b, i, n, stack, pow10)
        if i >= 0:
            i, more = _next_member(b, i, n)
        if i < 0:
            return i
    return i


@njit(cache=True, nogil=True)
def _tasks(
    b: np.ndarray, i: int, n: int, first: int, out: Any, keys: Any, aux: Any
) -> tuple[int, int]:  # pragma: no cover
    """Read the non-empty array of task objects at `i` into rows of `out` from `first` on:
    (position after it, tasks read)."""
    if b[i] != 91:
        return _BAD, 0
    count = 0
    i = _ws(b, i + 1, n)
    if i < n and b[i] == 93:
        return _BAD, 0  # an empty job.tasks: the precise path says where
    while True:
        if i >= n:
            return _MORE, 0
        if b[i] != 123:
            return _BAD, 0
        if first + count >= out[0].shape[1]:
            return _FULL, 0
        i = _task(b, i, n, first + count, out, keys, aux)
        if i < 0:
            return i, 0
        count += 1
        i = _ws(b, i, n)
        if i >= n:
            return _MORE, 0
        if b[i] == 93:
            return i + 1, count
        if b[i] != 44:
            return _BAD, 0
        i = _ws(b, i + 1, n)


@njit(cache=True, nogil=True)
def _job(
    b: np.ndarray, i: int, n: int, rows: Any, jobs: Any, tasks: Any, aux: Any
) -> tuple[int, int]:  # pragma: no cover
    """Read the job object at `i` into job row ``rows[0]`` and its tasks from task row
    ``rows[1]`` on (`jobs`, `tasks`: columns and keys): (position after it, tasks read)."""
    (jout, jkeys), (tout, tkeys) = jobs, tasks
    stack, pow10 = aux
    tasks_key = len(jkeys[1]) - 1
    _clear(jout, rows[0])
    i = _ws(b, i + 1, n)
    seen = 0
    count = -1
    more = True
    while more:
        i, key, seen = _member(b, i, n, jkeys, seen)
        if i >= 0:
            if key == tasks_key:
                i, count = _tasks(b, i, n, rows[1], tout, tkeys, aux)
            elif key >= 0:
                i = _field(b, i, n, key, rows[0], jout, pow10)
            else:
                i = _skip(b, i, n, stack, pow10)
        if i >= 0:
            i, more = _next_member(b, i, n)
        if i < 0:
            return i, 0
    if count < 0:
        return _BAD, 0  # no job.tasks (or null)
    return i, count


@njit(cache=True, nogil=True)
def scan(
    b: np.ndarray, start: int, n: int, jobs: Any, tasks: Any, ntasks: np.ndarray, aux: Any
) -> tuple[int, int, int, bool]:  # pragma: no cover
    """Read whole job objects of ``b[start:n]`` into the columns (rows from 0), until the
    bytes, the job rows or the task rows end. `jobs` and `tasks` are ((numbers, spans),
    (key table, key lengths)) of the job and task columns, `aux` (stack, powers of 10).

    Returns (position after the last whole job read, or `_BAD`; jobs read; tasks read;
    whether more bytes are needed to read the next job)."""
    (jnum, jspans), jkeys = jobs
    (tnum, tspans), tkeys = tasks
    b, ntasks = _pointer(b), _borrowed(ntasks)
    jout = (_borrowed(jnum), _borrowed(jspans))
    tout = (_borrowed(tnum), _borrowed(tspans))
    jkeys = (_borrowed(jkeys[0]), _borrowed(jkeys[1]))
    tkeys = (_borrowed(tkeys[0]), _borrowed(tkeys[1]))
    aux = (_borrowed(aux[0]), _borrowed(aux[1]))
    jobs_read = 0
    tasks_read = 0
    i = _ws(b, start, n)
    while i < n:
        if jobs_read >= jnum.shape[1]:
            return i, jobs_read, tasks_read, False
        if b[i] != 123:
            return _BAD, jobs_read, tasks_read, False
        rows = (jobs_read, tasks_read)
        end, count = _job(b, i, n, rows, (jout, jkeys), (tout, tkeys), aux)
        if end == _MORE:
            return i, jobs_read, tasks_read, True
        if end == _FULL:
            return i, jobs_read, tasks_read, False
        if end < 0:
            return _BAD, jobs_read, tasks_read, False
        ntasks[jobs_read] = count
        jobs_read += 1
        tasks_read += count
        i = _ws(b, end, n)
    return i, jobs_read, tasks_read, False


@njit(cache=True, nogil=True)
def _gather(b: np.ndarray, spans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """The bytes of `spans` (start, end rows; -1: absent) laid end to end, and their
    int32 Arrow offsets."""
    offsets = np.zeros(len(spans) + 1, dtype=np.int32)
    total = 0
    for row in range(len(spans)):
        if spans[row, 0] >= 0:
            total += spans[row, 1] - spans[row, 0]
        offsets[row + 1] = total
    data = np.empty(total, dtype=np.uint8)
    at = 0
    for row in range(len(spans)):
        s = spans[row, 0]
        if s >= 0:
            for k in range(s, spans[row, 1]):
                data[at] = b[k]
                at += 1
    return data, offsets


class _Columns:
    """The columns one `scan` call fills (each row it reads is set whole)."""

    def __init__(self, jobs: int, tasks: int) -> None:
        self.jnum = np.empty((len(JOB_NUMBERS), jobs))
        self.jspans = np.empty((len(JOB_STRINGS), jobs, 2), dtype=np.int64)
        self.ntasks = np.empty(jobs, dtype=np.int64)
        self.tnum = np.empty((len(TASK_NUMBERS), tasks))
        self.tspans = np.empty((len(TASK_STRINGS), tasks, 2), dtype=np.int64)

    def scan(self, buffer: np.ndarray, start: int, end: int) -> tuple[int, int, int, bool]:
        """`scan` of ``buffer[start:end]`` into these columns."""
        jobs = ((self.jnum, self.jspans), _JOB_KEYS)
        tasks = ((self.tnum, self.tspans), _TASK_KEYS)
        aux = (np.empty(MAX_DEPTH, dtype=np.uint8), _POW10)
        return scan(buffer, start, end, jobs, tasks, self.ntasks, aux)

    def block(self, buffer: np.ndarray, jobs: int, tasks: int, hosts: bool) -> Block:
        """The first `jobs` jobs and `tasks` tasks read: numbers as float64 (NaN: absent),
        strings as Arrow arrays (null: absent); without `hosts`, container.host null."""
        task_columns: dict[str, Any] = {
            **{name: self.tnum[k, :tasks] for k, name in enumerate(TASK_NUMBERS)},
            **{name: _texts(buffer, self.tspans[k, :tasks]) for k, name in enumerate(TASK_STRINGS)},
        }
        if not hosts:
            task_columns["container.host"] = pa.nulls(tasks, pa.string())
        job_columns: dict[str, Any] = {
            **{name: self.jnum[k, :jobs] for k, name in enumerate(JOB_NUMBERS)},
            **{name: _texts(buffer, self.jspans[k, :jobs]) for k, name in enumerate(JOB_STRINGS)},
        }
        return job_columns, task_columns, self.ntasks[:jobs].copy()


def _texts(buffer: np.ndarray, spans: np.ndarray) -> pa.Array:
    """The strings of `spans` of `buffer` (start -1: null) as an Arrow string array."""
    data, offsets = _gather(buffer, spans)
    valid = spans[:, 0] >= 0
    bitmap = None if valid.all() else pa.array(valid).buffers()[1]
    return pa.StringArray.from_buffers(
        len(spans), pa.py_buffer(offsets), pa.py_buffer(data), bitmap
    )


#: A boundary between two top-level objects: a closing brace, whitespace holding a newline,
#: an opening brace. In valid JSON nothing else matches (a string holds no raw newline, and
#: within an object or array a comma or a closing bracket follows a closed object).
_BOUNDARY = re.compile(rb"\}[ \t\r]*\n[ \t\r\n]*\{")
#: How far past a nominal cut `segments` looks for a boundary (none: no cut there).
_SEARCH_BYTES = 1 << 20


def segments(path: Path, size: int, every: int) -> list[tuple[int, int]]:
    """`path`'s bytes cut into (start, end) pieces of about `every` bytes, each cut at the
    first object boundary (`_BOUNDARY`) at or after a multiple of `every`: each piece
    holds whole job objects when the JSON is valid (when it is not, a piece ends inside
    an object and the scanner declines)."""
    cuts = [0]
    with open(path, "rb") as handle:
        for nominal in range(every, size, every):
            if nominal <= cuts[-1]:
                continue
            handle.seek(nominal - 1)
            window = handle.read(_SEARCH_BYTES)
            match = _BOUNDARY.search(window)
            if match is not None:
                cuts.append(nominal - 1 + match.end() - 1)  # at the opening brace
    cuts.append(size)
    return list(zip(cuts[:-1], cuts[1:], strict=True))


def _scan_segment(path: Path, start: int, end: int, hosts: bool) -> list[Block]:
    """The job objects of bytes `start` to `end` of `path` (whole objects) as blocks."""
    buffer = np.empty(end - start, dtype=np.uint8)
    with open(path, "rb") as handle:
        handle.seek(start)
        if handle.readinto(memoryview(buffer)) != len(buffer):  # type: ignore[arg-type]
            raise Declined("the file changed while it was read")
    blocks = []
    at, task_rows = 0, len(buffer) // 128 + 16
    while at < len(buffer):
        columns = _Columns(len(buffer) // 512 + 16, task_rows)
        stop, jobs, tasks, more = columns.scan(buffer, at, len(buffer))
        if stop < 0 or more:
            raise Declined("input the SLS scanner does not take (invalid JSON, escapes, ...)")
        if jobs:
            blocks.append(columns.block(buffer, jobs, tasks, hosts))
        elif stop < len(buffer):
            task_rows *= 2  # one job with more tasks than the rows
        at = stop
    return blocks


def scan_blocks(
    path: Path,
    *,
    hosts: bool = True,
    block_bytes: int = BLOCK_BYTES,
    threads: int = 2,
    progress: Callable[[int], None] | None = None,
) -> Iterator[Block]:
    """The SLS job objects of `path` as `Block`s (numbers as float64 with NaN where
    absent), in file order, read in
    pieces of about `block_bytes` (`segments`) by up to `threads` threads (the scanner
    holds no lock: two cores read about twice as fast); without `hosts` the blocks'
    container.host is null. `progress` gets the bytes read so far. `Declined` for what
    the scanner does not take (module doc); blocks already yielded stay valid."""
    size = path.stat().st_size
    pieces = segments(path, size, block_bytes)
    if not cache_is_warm():
        logger.warning(
            "compiling the SLS scanner (numba): about a minute, once after an install or "
            "upgrade; later runs load it from the cache"
        )
    threads = max(1, threads)
    pool = ThreadPoolExecutor(max_workers=threads)
    pending: deque[tuple[int, Future[list[Block]]]] = deque()
    try:
        for start, end in pieces:
            pending.append((end, pool.submit(_scan_segment, path, start, end, hosts)))
            if len(pending) > threads:  # the threads a piece ahead of the caller, no more
                yield from _finished(pending.popleft(), progress)
        while pending:
            yield from _finished(pending.popleft(), progress)
    finally:
        pool.shutdown(cancel_futures=True)


@functools.cache
def cache_is_warm() -> bool:
    """Whether numba's cache holds the scanner compiled from this file (an index newer
    than it, in the folder numba caches `scan` in); once a process."""
    try:
        dispatcher: Any = scan  # numba has no public accessor for its cache folder
        folder = Path(dispatcher._cache._cache_path)
    except AttributeError:  # another numba's layout: say nothing
        return True
    source = Path(__file__).stat().st_mtime
    return any(index.stat().st_mtime >= source for index in folder.glob("sls_scan.scan-*.nbi"))


def _finished(
    piece: tuple[int, Future[list[Block]]], progress: Callable[[int], None] | None
) -> list[Block]:
    """The blocks of a piece once read (its `Declined` raised); reports its end."""
    end, future = piece
    blocks = future.result()
    if progress is not None:
        progress(end)
    return blocks
