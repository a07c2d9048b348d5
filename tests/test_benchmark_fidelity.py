"""benchmarks/fidelity.py runs end to end on real traces (so the fidelity table of docs/predictor.md
cannot rot), and its allocation file and versions are what it says (issue 21)."""

import math

import pytest

from tests.test_benchmark_optimize import _load
from whatif.allocation import AllocationDocument, effective_allocation


@pytest.fixture(scope="module")
def fidelity():
    return _load("fidelity")


def test_prints_a_row_per_queue_on_the_hadoop1_trace_and_says_what_is_left_out(fidelity, capsys):
    text = fidelity.main(["--trace", "hadoop1", "--engine", "reference"])
    assert capsys.readouterr().out.strip() == text.strip()
    rows = [r for r in map(str.split, text.splitlines()) if r[:1] == ["hadoop1"] and len(r) == 8]
    assert [r[:4] for r in rows] == [
        ["hadoop1", "1", "root.user1", "1"],  # USER's pool (no mapred.fairscheduler.pool)
        ["hadoop1", "1", "(all)", "1"],
    ]
    assert rows[0][4:6] == ["nan", "nan"]  # one job: no spread
    assert float(rows[0][6]) == abs(float(rows[0][7]))  # one job: MAE = |bias|
    assert "--cluster map-slots=4,reduce-slots=4, allocation: equal weights" in text
    assert "NaN for a queue of one job" in text
    assert "two-tenant, contended, six-tenant (simulated recordings" in text


def test_yarn_trace_is_predicted_for_hadoop_2_and_3_on_its_derived_cluster(fidelity):
    trace = fidelity.read_trace(fidelity.REPO / "traces" / "hadoop" / "rumen")
    assert fidelity.versions(trace) == (2, 3)
    case = fidelity.run_case("hadoop/rumen", 3, engine="reference", site=None)
    assert case.cluster == "nodes=4,memory-mb=8192,vcores=8"
    row = case.errors.set_index("queue").loc["root.sls_queue_1"]
    assert row["jobs"] == 2 and math.isfinite(row["rae"]) and row["mae_s"] >= abs(row["bias_s"])


def test_equal_weights_file_nests_yarn_queues_and_flattens_hadoop1_pools(fidelity):
    yarn = effective_allocation(
        AllocationDocument.from_bytes(
            fidelity.equal_weights_xml(["root.a", "root.b.c", "root.b.d"], 3)
        ),
        hadoop_version=3,
    )
    assert {q.name for q in yarn.queues()} == {"root", "root.a", "root.b", "root.b.c", "root.b.d"}
    assert all(q.weight == 1 for q in yarn.queues())
    pools = fidelity.equal_weights_xml(["root.default", "root.x"], 1).decode()
    assert '<pool name="default">' in pools and '<pool name="x">' in pools
