"""Pieces shared by the readers' columnar fast paths (SLS, Rumen, jhist).

Arrow's JSON reader parses a file block by block against a fixed schema
(`iter_batches`); the helpers turn its columns into checked numpy arrays and pandas
string columns without a Python object per row. A fast path is strict: whatever it
does not take exactly as the format's precise reader would raises `Declined`, and
the caller reads the input with the precise reader, which names ``path:line:col``.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from whatif.readers.base import normalize_queue

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

#: Largest block Arrow is asked to parse: a record larger than this is declined.
MAX_BLOCK_BYTES = 1 << 30

P = TypeVar("P")
T = TypeVar("T")


class Declined(Exception):
    """A fast path does not take this input (the message says why); read it precisely."""


class _Watched(io.RawIOBase):
    """A read-only file that reports the bytes read, whether `forbidden` was seen, and
    whether the bytes are not UTF-8 (Arrow's JSON reader does not check: invalid bytes
    would reach Python as `UnicodeDecodeError` when a string is converted)."""

    def __init__(
        self,
        handle: io.BufferedIOBase,
        progress: Callable[[int], None] | None,
        forbidden: re.Pattern[bytes] | None,
    ) -> None:
        self.handle, self.progress, self.forbidden = handle, progress, forbidden
        self.done, self.seen, self.tail = 0, False, b""
        self.utf8 = codecs.getincrementaldecoder("utf-8")()
        self.not_utf8 = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        n = self.handle.readinto(buffer) or 0
        self.done += n
        data = memoryview(buffer)[:n]
        if not self.not_utf8:
            self._check_utf8(data)
        if self.forbidden is not None and n and not self.seen:
            chunk = self.tail + bytes(data)
            self.seen = self.forbidden.search(chunk) is not None
            self.tail = chunk[-64:]
        if self.progress is not None:
            self.progress(self.done)
        return n

    def _check_utf8(self, data: memoryview) -> None:
        """Decode `data` (the end of the file when empty); ASCII skips the decoder (10x faster)."""
        pending = self.utf8.getstate()[0]
        if len(data) and not pending and np.frombuffer(data, np.uint8).max() < 0x80:
            return
        try:
            self.utf8.decode(data, final=not len(data))
        except UnicodeDecodeError:
            self.not_utf8 = True

    def check(self) -> None:
        """`Declined` when the bytes read so far are not UTF-8 or matched `forbidden`."""
        if self.not_utf8:
            raise Declined("bytes that are not UTF-8")
        if self.seen:
            raise Declined(f"input matching {self.forbidden.pattern!r}")  # type: ignore[union-attr]


def iter_batches(
    path: Path,
    schema: pa.Schema,
    *,
    block_bytes: int,
    offset: int = 0,
    progress: Callable[[int], None] | None = None,
    forbidden: re.Pattern[bytes] | None = None,
    one_per_line: bool = False,
) -> Iterator[pa.RecordBatch]:
    """The JSON objects of `path` from byte `offset` on, as record batches of `schema`.

    Objects may be concatenated or one a line, pretty-printed or not; fields outside
    `schema` are skipped. A record larger than a block makes the read start again with
    8 times larger blocks (records already yielded are not repeated). `progress` gets
    the bytes of the file read so far. Raises `Declined` for invalid JSON, a value of
    another type than `schema` says, bytes that are not UTF-8, or bytes matching
    `forbidden` (checked before each batch is yielded, so a yielded batch never comes
    from such bytes). `one_per_line` (JSON lines: no object spans lines) lets Arrow
    split blocks at newlines, ~1.5x faster.
    """
    parse = pj.ParseOptions(
        explicit_schema=schema,
        newlines_in_values=not one_per_line,
        unexpected_field_behavior="ignore",
    )
    first = 0  # records yielded so far
    block = block_bytes
    while True:
        seen = 0  # records parsed in this pass
        try:
            with open(path, "rb") as raw:
                raw.seek(offset)
                source = _Watched(raw, _shifted(progress, offset), forbidden)
                reader = pj.open_json(
                    source,
                    read_options=pj.ReadOptions(block_size=block, use_threads=False),
                    parse_options=parse,
                )
                for batch in reader:
                    source.check()
                    skip = min(max(first - seen, 0), batch.num_rows)
                    seen += batch.num_rows
                    if batch.num_rows > skip:
                        first += batch.num_rows - skip
                        yield batch.slice(skip)
                source.check()  # bytes read after the last batch (the end of the file)
            return
        except (pa.ArrowException, OSError) as error:
            message = " ".join(str(error).split())
            if "straddl" in message and block < MAX_BLOCK_BYTES:
                block *= 8  # one record is larger than a block: parse again, larger
                continue
            raise Declined(message) from None


def _shifted(progress: Callable[[int], None] | None, offset: int) -> Callable[[int], None] | None:
    return None if progress is None else (lambda done: progress(offset + done))


def file_head(path: Path, size: int = 4096) -> bytes:
    """The first `size` bytes of `path`; `Declined` when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read(size)
    except OSError as error:
        raise Declined(str(error)) from None


def pieces(
    parts: Iterable[P], tasks_of: Callable[[P], int], join: Callable[[list[P]], T], size: int
) -> Iterator[T]:
    """`join` of consecutive `parts` holding at least `size` tasks (the last: the rest)."""
    pending: list[P] = []
    count = 0
    for part in parts:
        pending.append(part)
        count += tasks_of(part)
        if count >= size:
            yield join(pending)
            pending, count = [], 0
    if pending:
        yield join(pending)


def numbers(column: pa.Array | np.ndarray, default: float | np.ndarray | None) -> np.ndarray:
    """float64 values, nulls as `default` (None: a null declines); non-finite declines.

    A numpy `column` (`whatif.readers.sls_scan`'s) holds NaN where a value is absent (JSON
    has no NaN, and the scanner declines numbers it cannot convert)."""
    if isinstance(column, np.ndarray):
        return _filled(column.astype(np.float64, copy=True), np.isnan(column), default)
    values: np.ndarray = column.to_numpy(zero_copy_only=False).astype(np.float64, copy=True)
    if not column.null_count:
        if not np.isfinite(values).all():
            raise Declined("a number is not finite")
        return values
    missing = np.asarray(column.is_null())
    if not np.isfinite(values[~missing]).all():
        raise Declined("a number is not finite")
    return _filled(values, missing, default)


def _filled(
    values: np.ndarray, missing: np.ndarray, default: float | np.ndarray | None
) -> np.ndarray:
    """`values` with the `missing` ones set to `default` (None: a missing one declines)."""
    if not missing.any():
        return values
    if default is None:
        raise Declined("a required number is missing")
    values[missing] = default[missing] if isinstance(default, np.ndarray) else default
    return values


def times(column: pa.Array, *, required: bool = False) -> np.ndarray:
    """Millisecond times as float seconds; absent or negative is NaN (required: declines)."""
    values = numbers(column, None if required else -1.0)
    negative = values < 0
    if required and negative.any():
        raise Declined("a required time is negative")
    values /= 1000.0
    values[negative] = np.nan
    return values


def present(column: pa.Array | np.ndarray) -> np.ndarray:
    """Which rows of `column` hold a value (numpy: not NaN, as in `numbers`)."""
    if isinstance(column, np.ndarray):
        return ~np.isnan(column)
    return np.asarray(column.is_valid())


def whole(values: np.ndarray, maximum: int, what: str) -> np.ndarray:
    """`values` as int64 when each is a whole number in ``[0, maximum]``, else declines."""
    if ((values < 0) | (values > maximum) | (values != np.floor(values))).any():
        raise Declined(f"{what} out of range")
    return values.astype(np.int64)


def texts(column: pa.Array, default: str | None) -> pa.Array:
    """Strings, nulls as `default` (None: a null declines)."""
    if default is None:
        if column.null_count:
            raise Declined("a required string is missing")
        return column
    return pc.fill_null(column, default)


def mapped(column: pa.Array, table: dict[str, str], other: str | None) -> pa.Array:
    """Each string through `table`, once per distinct value; `other` for the rest (None: declines)."""
    encoded = pc.dictionary_encode(column)
    names = encoded.dictionary.to_pylist()
    if other is None and any(name not in table for name in names):
        raise Declined(f"a value outside {', '.join(table)}")
    values = pa.array([table.get(name, other) for name in names], pa.string())
    return values.take(encoded.indices)


def queues(column: pa.Array) -> pa.Array:
    """Full queue paths, each distinct recorded name normalised once (null: default)."""
    encoded = pc.dictionary_encode(pc.fill_null(column, "default"))
    paths = pa.array([normalize_queue(q) for q in encoded.dictionary.to_pylist()], pa.string())
    return paths.take(encoded.indices)


def strings(values: pa.Array | pa.ChunkedArray) -> pd.arrays.ArrowStringArray:
    """An Arrow string array as a pandas ``string`` column, without a Python str per row."""
    array: pd.arrays.ArrowStringArray = pd.array(values, dtype="string")
    return array


def constant(value: str, n: int) -> pa.Array:
    """`value` repeated `n` times, as a dictionary-backed Arrow string array."""
    return pa.array([value], pa.string()).take(pa.array(np.zeros(n, dtype=np.int64)))


def first_and_last(group: np.ndarray, keep: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group of the sorted `group` array, the first and last row where `keep` (-1: none)."""
    rows = np.flatnonzero(keep)
    owners = group[rows]
    first = np.full(n, -1, dtype=np.int64)
    last = np.full(n, -1, dtype=np.int64)
    if len(rows):
        starts = np.r_[True, owners[1:] != owners[:-1]]
        ends = np.r_[owners[1:] != owners[:-1], True]
        first[owners[starts]] = rows[starts]
        last[owners[ends]] = rows[ends]
    return first, last


def frame(table: pa.Table) -> pd.DataFrame:
    """`table` as a DataFrame: string columns as pandas ``string``, the rest as numpy."""
    return pd.DataFrame(
        {
            name: strings(column) if pa.types.is_string(column.type) else column.to_numpy()
            for name, column in zip(table.column_names, table.columns, strict=True)
        }
    )
