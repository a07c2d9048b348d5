"""The compiled SLS scanner on damaged bytes: it gives Arrow's columns or declines.

The scanner reads the file through a raw pointer, so a bound it gets wrong reads past
the buffer rather than raising. Random byte edits of a small generated trace (flips,
deletions, insertions of JSON's own characters, truncations) must each end in one of
two ways: the scanner's columns equal Arrow's for the same bytes, or the scanner
declines (and then the reader falls back). Accepting bytes Arrow rejects, any other
exception, or a crash fails.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tests.whatif.readers.test_sls_columns import _generated
from tests.whatif.readers.test_sls_scan import _arrow, _scanned
from whatif.readers.arrow_json import Declined

#: Characters an edit inserts: JSON's structure, digits, signs, exponents, a quote, an
#: escape, a non-ASCII byte and a NUL.
INSERTS = b'{}[]:,"\\ 0123456789.-+eE\xc3\x00tfn'


def _mutated(good: bytes, rng: np.random.Generator) -> bytes:
    """`good` with one to three random edits, or cut short."""
    data = bytearray(good)
    if rng.random() < 0.15:
        return bytes(data[: int(rng.integers(1, len(data)))])
    for _ in range(int(rng.integers(1, 4))):
        at = int(rng.integers(0, len(data)))
        kind = rng.integers(0, 3)
        if kind == 0:
            data[at] = INSERTS[int(rng.integers(0, len(INSERTS)))]
        elif kind == 1:
            del data[at]
        else:
            data.insert(at, INSERTS[int(rng.integers(0, len(INSERTS)))])
    return bytes(data)


def _arrow_or_none(path: Path) -> pa.Table | None:
    try:
        return _arrow(path).combine_chunks()
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None


@pytest.mark.parametrize("seed", range(4))
def test_damaged_bytes_scan_as_arrow_parses_them_or_are_declined(tmp_path, seed):
    source = tmp_path / "good.json"
    _generated(source, 300, timed=True, seed=seed)
    good = source.read_bytes()
    rng = np.random.default_rng(seed)
    path = tmp_path / "t.json"
    outcomes = {"same": 0, "declined": 0}
    for _ in range(60):
        path.write_bytes(_mutated(good, rng))
        try:
            scanned = _scanned(path, block_bytes=4096).combine_chunks()
        except Declined:
            outcomes["declined"] += 1
            continue
        parsed = _arrow_or_none(path)
        assert parsed is not None, f"the scanner took bytes Arrow rejects: {path.read_bytes()!r}"
        assert scanned.equals(parsed)
        outcomes["same"] += 1
    assert outcomes["declined"] > 0 and outcomes["same"] > 0  # both ways were exercised
