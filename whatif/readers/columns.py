"""Row-at-a-time table building for streaming readers, stored column-wise in chunks.

Readers append plain tuples while they stream; every ``chunk_rows`` rows the
tuples are turned into typed columns (float64 numpy arrays, pandas ``string``
arrays), so Python objects never pile up for more than one chunk.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

#: Rows held as Python tuples before they are converted to typed columns.
CHUNK_ROWS = 1 << 17


class TableBuilder:
    """Accumulate rows (tuples in ``columns`` order) into a DataFrame.

    Parameters
    ----------
    columns : Mapping[str, str]
        Column name -> dtype (``string``, ``float64``, ``int64`` or ``bool``).
    """

    def __init__(self, columns: Mapping[str, str], *, chunk_rows: int = CHUNK_ROWS) -> None:
        self.columns = dict(columns)
        self.chunk_rows = chunk_rows
        self._rows: list[tuple[Any, ...]] = []
        self._chunks: list[pd.DataFrame] = []
        self.n_rows = 0

    def append(self, row: tuple[Any, ...]) -> None:
        """Add one row; its values are in ``columns`` order."""
        self._rows.append(row)
        self.n_rows += 1
        if len(self._rows) >= self.chunk_rows:
            self._flush()

    def _flush(self) -> None:
        if not self._rows:
            return
        values = list(zip(*self._rows, strict=True))
        self._rows = []
        data: dict[str, ExtensionArray | np.ndarray] = {}
        for (name, dtype), column in zip(self.columns.items(), values, strict=True):
            if dtype == "string":
                data[name] = pd.array(column, dtype="string")
            elif dtype == "float64":
                data[name] = np.array(column, dtype=np.float64)
            else:
                data[name] = np.array(column, dtype=dtype)
        self._chunks.append(pd.DataFrame(data))

    def frame(self) -> pd.DataFrame:
        """All rows appended so far, as one DataFrame with the declared dtypes."""
        self._flush()
        if not self._chunks:
            return pd.DataFrame(
                {
                    name: pd.array([], dtype="string")
                    if dtype == "string"
                    else np.array([], dtype=dtype)
                    for name, dtype in self.columns.items()
                }
            )
        if len(self._chunks) == 1:
            return self._chunks[0]
        merged = pd.concat(self._chunks, ignore_index=True)
        self._chunks = [merged]
        return merged
