"""Field-by-field agreement of two reads of one trace (fast and precise path, streamed and whole)."""

import pandas as pd

from whatif.trace import Trace


def assert_same_trace(a: Trace, b: Trace, *, notes: bool = True) -> None:
    """Every table of `a` equals `b`'s, dtypes included (and the notes, unless told not to)."""
    pd.testing.assert_frame_equal(a.workload.jobs, b.workload.jobs)
    pd.testing.assert_frame_equal(a.workload.tasks, b.workload.tasks)
    assert (a.observed is None) == (b.observed is None)
    if a.observed is not None:
        pd.testing.assert_frame_equal(a.observed.jobs, b.observed.jobs)
        pd.testing.assert_frame_equal(a.observed.attempts, b.observed.attempts)
    if notes:
        assert a.notes == b.notes
