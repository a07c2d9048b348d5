"""TableBuilder: rows appended across chunk boundaries come back typed and in order."""

import numpy as np

from whatif.readers.columns import TableBuilder


def test_rows_across_chunks_keep_order_and_dtypes():
    """Rows flushed in several chunks concatenate in order with the declared dtypes."""
    builder = TableBuilder(
        {"id": "string", "x": "float64", "n": "int64", "ok": "bool"}, chunk_rows=2
    )
    for i in range(5):
        builder.append((f"r{i}", i / 2, i, i % 2 == 0))
    frame = builder.frame()
    assert frame["id"].tolist() == [f"r{i}" for i in range(5)]
    assert (
        frame["x"].dtype == np.float64
        and frame["n"].dtype == np.int64
        and frame["ok"].dtype == bool
    )
    assert str(frame["id"].dtype) == "string" and builder.n_rows == 5


def test_empty_builder_gives_typed_empty_frame():
    """With no rows the frame still has every column and dtype."""
    frame = TableBuilder({"id": "string", "x": "float64"}).frame()
    assert list(frame.columns) == ["id", "x"] and len(frame) == 0 and frame["x"].dtype == np.float64
