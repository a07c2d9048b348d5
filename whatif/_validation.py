"""Shared input checks: each message names the field, what is allowed and what was received."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from whatif.errors import ValidationError


def read_utf8(path: str | PathLike[str], *, what: str) -> str:
    """The text of the file at `path`, or a `ValidationError` naming it (and the line of
    the first byte that is not UTF-8) instead of a bare ``UnicodeDecodeError``."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ValidationError(f"{path}: cannot read {what}: {error.strerror}") from error
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ValidationError(
            f"{path}:{line}: {what} is not UTF-8 text (byte {error.start}: {error.reason})"
        ) from None


def require_columns(frame: pd.DataFrame, columns: Iterable[str], *, table: str) -> None:
    """Raise if `frame` lacks any of `columns`."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValidationError(
            f"{table}: missing column(s) {', '.join(missing)}; have {', '.join(map(str, frame.columns))}"
        )


def record_label(frame: pd.DataFrame, positions: Sequence[int] | np.ndarray, key: str) -> str:
    """Describe the first offending record(s) by their key, for error messages."""
    values = frame[key].iloc[np.asarray(positions)[:3]].astype(str).tolist()
    more = len(positions) - len(values)
    label = ", ".join(repr(v) for v in values)
    return label + (f" and {more} more" if more > 0 else "")


def check_numeric(
    frame: pd.DataFrame,
    column: str,
    *,
    table: str,
    key: str,
    allow_nan: bool = False,
    minimum: float | None = None,
    finite: bool = False,
) -> None:
    """Raise if `column` is not numeric, has NaN (unless allowed), values below `minimum`
    or, when `finite`, an infinity."""
    values = frame[column]
    if not pd.api.types.is_numeric_dtype(values):
        converted = pd.to_numeric(values, errors="coerce")
        bad = np.flatnonzero(converted.isna().to_numpy() & values.notna().to_numpy())
        if bad.size:
            raise ValidationError(
                f"{table}.{column}: expected a number, got {values.iloc[bad[0]]!r} "
                f"in record {record_label(frame, bad, key)}"
            )
        values = converted
    array = values.to_numpy(dtype=float)
    if not allow_nan:
        bad = np.flatnonzero(np.isnan(array))
        if bad.size:
            raise ValidationError(
                f"{table}.{column}: missing value in record {record_label(frame, bad, key)}"
            )
    if finite:
        bad = np.flatnonzero(np.isinf(array))
        if bad.size:
            raise ValidationError(
                f"{table}.{column}: expected a finite number, got {float(array[bad[0]])!r} "
                f"in record {record_label(frame, bad, key)}"
            )
    if minimum is not None:
        bad = np.flatnonzero(array < minimum)
        if bad.size:
            raise ValidationError(
                f"{table}.{column}: expected >= {minimum}, got {float(array[bad[0]])!r} "
                f"in record {record_label(frame, bad, key)}"
            )


def check_unique(frame: pd.DataFrame, columns: list[str], *, table: str) -> None:
    """Raise if the combination of `columns` repeats."""
    if len(columns) == 1 and _sorted_strings_unique(frame[columns[0]]):
        return
    dup = frame.duplicated(subset=columns, keep="first").to_numpy()
    if dup.any():
        first = frame.loc[dup, columns].iloc[0].tolist()
        raise ValidationError(
            f"{table}: duplicate id {'/'.join(map(str, first))} ({', '.join(columns)})"
        )


def _sorted_strings_unique(values: pd.Series) -> bool:
    """True if a string column without missing values has no repeats (False: look closer).

    Sorts in Arrow and compares neighbours: hashing millions of ids (pandas or Arrow) takes
    several times the memory of the ids themselves.
    """
    if not isinstance(values.dtype, pd.StringDtype) or len(values) < 2:
        return False
    strings = pa.array(values.array, type=pa.large_string(), from_pandas=True)
    if strings.null_count:
        return False
    order = pc.sort_indices(strings)
    step = 1 << 20  # sorted neighbours a slice at a time: no sorted copy of every id
    for lo in range(0, len(strings) - 1, step):
        run = strings.take(order[lo : lo + step + 1])
        if pc.any(pc.equal(run[1:], run[:-1])).as_py():
            return False
    return True


def check_references(
    frame: pd.DataFrame,
    column: str,
    known: pd.Index | pd.Series | np.ndarray,
    *,
    table: str,
    target: str,
    key: str,
) -> None:
    """Raise if `frame[column]` names an id not in `known`.

    String ids are looked up in Arrow: pandas' ``isin`` on Arrow strings makes a Python
    str of every known id and hashes each row as one.
    """
    values = frame[column]
    if isinstance(values.dtype, pd.StringDtype) and isinstance(
        getattr(known, "dtype", None), pd.StringDtype
    ):
        strings = pa.array(values.array, type=pa.large_string(), from_pandas=True)
        keys = pa.array(known.array, type=pa.large_string(), from_pandas=True)  # type: ignore[union-attr]
        found = pc.is_in(strings, value_set=keys).fill_null(False)
        bad = np.flatnonzero(~found.to_numpy(zero_copy_only=False))
    else:
        bad = np.flatnonzero(~values.isin(known).to_numpy())
    if bad.size:
        raise ValidationError(
            f"{table}.{column}: unknown {target} {frame[column].iloc[bad[0]]!r} "
            f"in record {record_label(frame, bad, key)}"
        )


def check_choice(value: object, allowed: Iterable[object], *, field: str) -> None:
    """Raise if `value` is not one of `allowed`."""
    allowed = list(allowed)
    if value not in allowed:
        raise ValidationError(
            f"{field}: expected one of {', '.join(map(repr, allowed))}, got {value!r}"
        )


def check_range(
    value: float, *, field: str, low: float | None = None, high: float | None = None
) -> None:
    """Raise if `value` is outside [low, high]."""
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        raise ValidationError(f"{field}: expected a value in {bounds}, got {value!r}")


def check_count(value: object, *, field: str, minimum: int) -> None:
    """Raise unless `value` is an int (a bool is not) of at least `minimum`."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValidationError(f"{field}: expected an int >= {minimum}, got {value!r}")
