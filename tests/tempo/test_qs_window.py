"""`read_qs_trace`: observed QS over the last window of a native trace, read without the rest,
gives the values of the whole trace."""

from pathlib import Path

import pytest

from tempo.qs import qs_report, read_qs_trace
from whatif import Cluster
from whatif.metrics import Window
from whatif.readers import read_trace, write_native

TRACES = Path(__file__).resolve().parents[2] / "traces"
SAMPLE = TRACES / "two-tenant"
CLUSTER = Cluster.parse("nodes=24,memory-mb=8192,vcores=8")


def _report(trace, window):
    return qs_report(
        trace.observed, window=window, cluster=CLUSTER, workload=trace.workload
    ).to_dict()


@pytest.mark.parametrize(
    ("sample", "kind"),
    [
        ("two-tenant", "parquet"),
        ("two-tenant", "csv"),
        ("six-tenant", "parquet"),
        ("contended", "parquet"),
    ],
)
@pytest.mark.parametrize("fraction", [0.05, 0.3, 2.0])
def test_window_read_gives_the_whole_traces_values(tmp_path, sample, kind, fraction):
    """Same window and report (every metric, queue and count) as reading the whole trace;
    fewer tasks and attempts read when the window leaves some out."""
    whole = read_trace(TRACES / sample)
    native = write_native(whole, tmp_path / "trace", kind=kind)
    covering = Window.covering(whole.observed)
    length = covering.length_s * fraction
    trace, window = read_qs_trace(native, window_s=length)
    assert window == covering.last(length)
    assert _report(trace, window) == _report(whole, window)
    assert trace.workload.n_jobs == whole.workload.n_jobs
    if fraction < 1:
        assert trace.workload.n_tasks < whole.workload.n_tasks
        assert trace.observed.n_attempts < whole.observed.n_attempts


def test_without_a_window_or_from_another_format_the_whole_trace_is_read():
    """No window, or a format whose rows cannot be picked while reading: no window placed."""
    trace, window = read_qs_trace(SAMPLE)
    assert window is None and trace.workload.n_tasks == read_trace(SAMPLE).workload.n_tasks
    history = TRACES / "hadoop1"
    trace, window = read_qs_trace(history, window_s=60.0)
    assert window is None and trace.workload.n_tasks == read_trace(history).workload.n_tasks
