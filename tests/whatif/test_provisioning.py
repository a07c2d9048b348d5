"""Provisioning analysis: bisection on the cluster scale, scenarios, executors, the scale-up check."""

import distributed
import numpy as np
import pandas as pd
import pytest
from samples import map_workload

from whatif import Cluster, EffectiveAllocation, EffectiveQueue, ValidationError, Workload
from whatif.executors import DaskExecutor, ProcessPoolExecutor, SerialExecutor
from whatif.metrics import Metric
from whatif.predictor import NoiseModel
from whatif.provisioning import (
    WorkloadScenario,
    analyze_provisioning,
    monotonicity_flips,
    scenario_workloads,
    smallest_scale,
)
from whatif.scaleup_check import recorded_workload, scale_up_check
from whatif.whatif_model import WhatifModel

GRID = (0.25, 0.5, 1.0, 2.0, 4.0)
#: Eight one-slot nodes: a scale s gives round(8 s) slots.
CLUSTER = Cluster.parse("nodes=8,memory-mb=1024,vcores=1")
ALLOCATION = EffectiveAllocation(root=EffectiveQueue("root", children=(EffectiveQueue("root.a"),)))
AJR = Metric("QS_AJR")


def _workload(n_jobs: int = 1, n_tasks: int = 16) -> Workload:
    """Jobs of `n_tasks` 10-second one-slot map tasks in root.a, submitted a second apart."""
    jobs = pd.DataFrame(
        {
            "job_id": [f"j{i}" for i in range(n_jobs)],
            "queue": "root.a",
            "submit_s": [float(i) for i in range(n_jobs)],
        }
    )
    return map_workload(jobs, n_tasks, 10.0)


def test_bisection_finds_the_threshold_of_a_monotone_function():
    """A step at 0.37 is bracketed within the relative tolerance, off the grid."""
    result = smallest_scale(lambda s: s >= 0.37, GRID, rel_tol=0.01)
    assert result.status == "found" and result.monotone
    assert 0.37 <= result.scale <= 0.37 * 1.01
    assert result.lower < 0.37 and result.scale / result.lower <= 1.01
    assert any(s not in GRID for s, _ in result.points)


def test_bisection_reports_a_non_monotone_predicate():
    """Met at 0.5, missed at 1, met from 1.5: the flip is reported and the answer is above 1."""
    result = smallest_scale(lambda s: 0.4 <= s <= 0.6 or s >= 1.5, GRID, rel_tol=0.01)
    assert not result.monotone and result.flips == (0.5,)
    assert 1.5 <= result.scale <= 1.5 * 1.01 and result.lower >= 1.0


def test_bisection_widens_below_and_above_the_grid():
    """All-feasible grids halve down to min_scale; all-infeasible ones double up to max_scale."""
    below = smallest_scale(lambda s: True, GRID, min_scale=1 / 16)
    assert below.status == "below_min" and below.scale == 1 / 16 and below.lower is None
    above = smallest_scale(lambda s: False, GRID, max_scale=16)
    assert above.status == "above_max" and above.scale is None and above.lower == 16
    beyond = smallest_scale(lambda s: s >= 6, GRID, max_scale=16, rel_tol=0.05)
    assert beyond.status == "found" and 6 <= beyond.scale <= 6.3


def test_bisection_stops_at_the_cluster_resolution():
    """Once both ends build the same cluster, no more probes are made."""
    calls = []

    def holds(s):
        calls.append(s)
        return round(8 * s) >= 11

    result = smallest_scale(holds, GRID, rel_tol=1e-9, key=lambda s: round(8 * s))
    assert round(8 * result.scale) == 11 and round(8 * result.lower) == 10
    assert len(calls) < 20


def test_widening_does_not_simulate_a_scale_of_the_same_cluster_again():
    """A grid of one tiny scale (every scale under 1.5 is one node) doubles up without
    simulating the one-node cluster again at each step (it did, 20 times)."""
    calls = []

    def nodes(s):
        return max(1, round(s))

    def holds(s):
        calls.append(nodes(s))
        return nodes(s) >= 3

    result = smallest_scale(holds, (1e-6,), min_scale=1e-6, max_scale=16, key=nodes)
    assert result.status == "found" and nodes(result.scale) == 3
    assert calls.count(1) == 1 and len(calls) == len(set(calls))
    seen = []
    floor = smallest_scale(lambda s: seen.append(nodes(s)) or True, (4.0,), key=nodes)
    # simulated, and named as the smallest cluster (not "at most": there is no smaller one)
    assert floor.status == "smallest_cluster" and floor.scale in dict(floor.points)
    assert seen == [4, 2, 1]  # halving reached one node once, and stopped there
    same = smallest_scale(lambda s: True, (0.25, 0.5), key=nodes)  # both are one node
    assert same.status == "smallest_cluster" and same.scale == 0.25


def test_monotonicity_flips_lists_feasible_points_below_an_infeasible_one():
    """Only points that hold below a larger failing point are flips."""
    assert monotonicity_flips([(1, False), (2, True), (3, False), (4, True)]) == (2,)
    assert monotonicity_flips([(1, False), (2, True), (4, True)]) == ()


def test_bad_grids_and_thresholds_are_named():
    """Non-positive scales and malformed thresholds raise ValidationError naming them."""
    with pytest.raises(ValidationError, match="cluster scales"):
        smallest_scale(lambda s: True, [0.0, 1.0])
    with pytest.raises(ValidationError, match=r"thresholds\[0\]"):
        analyze_provisioning(_workload(), ALLOCATION, CLUSTER, [("root.a", "QS_AJR", 1.0)])
    with pytest.raises(ValidationError, match="op"):
        analyze_provisioning(_workload(), ALLOCATION, CLUSTER, [("root.a", AJR, 1.0, ">")])


def _analyze(thresholds, **options):
    """analyze_provisioning of the tiny workload on scales 0.5, 1 and 4 with the reference
    engine; `options` adds keywords."""
    return analyze_provisioning(
        _workload(),
        ALLOCATION,
        CLUSTER,
        thresholds,
        scales=(0.5, 1.0, 4.0),
        engine="reference",
        **options,
    )


def test_smallest_cluster_meeting_the_slo_on_a_tiny_workload():
    """16 ten-second tasks within 12.5 s (a node heartbeat to start each, one to report its
    end) need 16 one-container nodes: the answer is 16 nodes, and 15 miss it."""
    analysis = _analyze([("root.a", AJR, 12.5)], details=False)
    result = analysis.scenarios[0]
    assert result.source == "trace" and result.bisection.status == "found"
    found = result.smallest.cluster
    assert len(found.nodes) == 16 and result.smallest.feasible
    fewer = WhatifModel(
        Cluster.parse("nodes=15,memory-mb=1024,vcores=1"), [("root.a", AJR)], engine="reference"
    )
    assert fewer.evaluate([ALLOCATION], _workload()).mean[0, 0] > 12.5
    assert [r.feasible for r in result.scales if r.on_grid] == [False, False, True]


def test_scenarios_generate_every_workload_from_one_model_when_any_changes():
    """Baseline alone replays the trace; with growth, every scenario is generated with one seed."""
    workload = _workload(n_jobs=40, n_tasks=4)
    only = scenario_workloads(workload, [WorkloadScenario()])
    assert only[0][0] == "trace" and only[0][1] is workload
    base, grown = scenario_workloads(workload, [WorkloadScenario(), WorkloadScenario(growth=2.0)])
    assert base[0] == grown[0] == "model"
    maps = lambda w: (w.tasks["stage"] == "map").sum() / w.n_jobs  # noqa: E731
    assert maps(grown[1]) > 1.5 * maps(base[1])


def test_sweep_gives_identical_numbers_on_serial_local_and_dask():
    """The same analysis on the serial executor, a local pool and a Dask LocalCluster agree exactly."""
    noise = NoiseModel(jitter_cv=0.3, straggler_probability=0.1)

    def run(executor):
        analysis = analyze_provisioning(
            _workload(n_jobs=3, n_tasks=6),
            ALLOCATION,
            CLUSTER,
            [("root.a", AJR, 25.0)],
            scales=(0.5, 2.0),
            replicates=2,
            noise=noise,
            engine="reference",
            executor=executor,
        )
        s = analysis.scenarios[0]
        return (
            np.array([r.mean for r in s.scales]),
            s.bisection.scale,
            [d.usage["root.a"] for d in s.details.values()],
        )

    serial = run(SerialExecutor())
    with ProcessPoolExecutor(max_workers=2) as pool:
        local = run(pool)
    np.testing.assert_array_equal(local[0], serial[0])
    assert local[1] == serial[1]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as dc:
        with DaskExecutor(dc.scheduler_address) as dask_executor:
            dask = run(dask_executor)
    np.testing.assert_array_equal(dask[0], serial[0])
    assert dask[1] == serial[1]
    for a, b in zip(dask[2], serial[2], strict=True):
        np.testing.assert_array_equal(a, b)


def test_recorded_workload_takes_observed_durations():
    """Each task's duration becomes its successful attempt's run time."""
    from whatif.predictor import predict

    workload = _workload(n_tasks=4)
    schedule = predict(
        workload, ALLOCATION, CLUSTER, engine="reference", seed=3, noise=NoiseModel(jitter_cv=0.5)
    )
    recorded = recorded_workload(workload, schedule)
    ok = schedule.attempts[schedule.attempts["state"] == "SUCCEEDED"]
    expected = (ok["finish_s"] - ok["start_s"]).to_numpy()
    np.testing.assert_allclose(np.sort(recorded.tasks["duration_s"]), np.sort(expected))
    assert not np.allclose(recorded.tasks["duration_s"], 10.0)


def test_scale_up_check_is_exact_without_noise_and_not_with_it():
    """Noise-free, a trace from a smaller cluster predicts the larger one exactly; with noise it errs."""
    workload = _workload(n_jobs=3, n_tasks=8)
    qs = [("root.a", AJR)]
    exact = scale_up_check(
        workload,
        ALLOCATION,
        CLUSTER,
        qs,
        factors=(1, 2, 4),
        noise=NoiseModel(),
        replicates=1,
        engine="reference",
    )
    assert list(exact.table["factor"]) == [1.0, 2.0, 4.0]
    assert exact.table["recording_cluster"].tolist()[2] == "nodes=2,memory-mb=1024,vcores=1"
    assert exact.max_rel_error(4.0) == 0.0
    noisy = scale_up_check(
        workload,
        ALLOCATION,
        CLUSTER,
        qs,
        factors=(2,),
        noise=NoiseModel(jitter_cv=0.4),
        replicates=2,
        engine="reference",
    )
    assert noisy.max_rel_error(2.0) > 0.0 and noisy.table["direct_spread"].iloc[0] > 0


def test_configure_hook_gives_each_cluster_its_own_configuration():
    """With `configure`, every evaluated scale uses the configuration returned for its cluster."""
    seen = []

    def configure(cluster, workload):
        seen.append(len(cluster.nodes))
        return ALLOCATION

    analysis = _analyze([("root.a", AJR, 10.0)], configure=configure)
    evaluated = {len(r.cluster.nodes) for r in analysis.scenarios[0].scales}
    assert set(seen) == evaluated and len(seen) == len(evaluated)
    assert analysis.configuration == "re-tuned"


def test_an_slo_that_more_resources_break_is_reported_per_threshold():
    """A utilization floor met on a small cluster and missed on a large one is a threshold flip."""
    analysis = _analyze(
        [("root.a", AJR, 1000.0), ("root.a", Metric("QS_UTIL"), -0.5)], details=False
    )
    result = analysis.scenarios[0]
    assert result.threshold_flips.get(0) is None
    assert result.threshold_flips[1] and max(result.threshold_flips[1]) < 4.0


def test_an_slo_with_nothing_to_measure_is_never_met():
    """A threshold whose QS is NaN (no job of the queue, no deadline) makes the scale
    infeasible: an SLO that cannot be evaluated is not an SLO kept."""
    from whatif.provisioning import ScaleResult

    cluster = Cluster.parse("memory-mb=1024,vcores=1")
    nan = np.array([np.nan])
    assert not ScaleResult(1.0, cluster, nan, nan, (None,), True).feasible
    assert ScaleResult(1.0, cluster, np.zeros(1), np.zeros(1), (True,), True).feasible


def test_a_scale_whose_jobs_never_finish_misses_every_slo_and_the_analysis_goes_on(
    monkeypatch, caplog
):
    """A probe whose predicted jobs never finish (a livelock) answers "no" at that scale,
    with a warning naming the scenario, scale and cluster; the analysis and its details go
    on, and the report says why."""
    from whatif.errors import UnfinishedJobsError
    from whatif.report.text import render_text

    real = WhatifModel.evaluate

    def evaluate(self, allocations, workload):
        if len(self.cluster.nodes) == 4:
            raise UnfinishedJobsError("1 job (root.a: 1) never finished")
        return real(self, allocations, workload)

    monkeypatch.setattr(WhatifModel, "evaluate", evaluate)
    analysis = _analyze([("root.a", AJR, 12.5)], details=True)
    result = analysis.scenarios[0]
    half = result.at(0.5)
    assert half.unfinished == "1 job (root.a: 1) never finished" and not half.feasible
    assert np.isnan(half.mean).all() and half.met == (False,)
    assert result.bisection.status == "found" and len(result.smallest.cluster.nodes) == 16
    assert "scale 0.5 (nodes=4" in caplog.text and "counted as missing every SLO" in caplog.text
    assert "At scale 0.5 jobs never finish (1 job (root.a: 1) never finished)" in render_text(
        analysis
    )
