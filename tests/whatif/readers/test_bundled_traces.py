"""The bundled sample traces load, are small, and are rebuilt exactly by their script."""

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from whatif.readers import read_trace, summarize

ROOT = Path(__file__).resolve().parents[3]
TRACES = ROOT / "traces"
DATA = ROOT / ".." / "shared" / "data"
BUNDLED = ["two-tenant", "six-tenant", "hadoop/jhist", "hadoop/sls", "hadoop/rumen", "hadoop/rest"]


def _make_traces():
    spec = importlib.util.spec_from_file_location(
        "make_traces", ROOT / "benchmarks" / "make_traces.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_trace_loads(name):
    """Every bundled trace reads as a native trace with full queue paths."""
    trace = read_trace(TRACES / name)
    assert trace.workload.n_jobs > 0
    assert all(q.startswith("root.") for q in trace.workload.queues)


def test_two_tenant_shape():
    """two-tenant has root.prod and root.engineer, a few hundred jobs and under 20k tasks."""
    s = summarize(read_trace(TRACES / "two-tenant"))
    assert s.queues == ("root.engineer", "root.prod")
    assert 200 <= s.jobs <= 600 and s.tasks <= 20_000
    assert s.last_submit_s - s.first_submit_s <= 3 * 3600


def test_six_tenant_has_the_table_1_tenants():
    """six-tenant has the six Table 1 queues."""
    trace = read_trace(TRACES / "six-tenant")
    assert sorted(trace.workload.queues) == [
        f"root.{t}" for t in ("app", "bi", "dev", "etl", "mv", "str")
    ]


def test_two_tenant_is_reproducible_from_its_script():
    """make_traces.two_tenant rebuilds the bundled two-tenant trace exactly."""
    rebuilt = _make_traces().two_tenant(DATA)
    bundled = read_trace(TRACES / "two-tenant")
    pd.testing.assert_frame_equal(rebuilt.workload.jobs, bundled.workload.jobs)
    pd.testing.assert_frame_equal(rebuilt.workload.tasks, bundled.workload.tasks)


def test_six_tenant_is_reproducible_from_its_script():
    """make_traces.six_tenant rebuilds the bundled six-tenant trace exactly."""
    rebuilt = _make_traces().six_tenant()
    bundled = read_trace(TRACES / "six-tenant")
    pd.testing.assert_frame_equal(rebuilt.workload.tasks, bundled.workload.tasks)
