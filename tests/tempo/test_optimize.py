"""tempo.optimize: the tuning problem built from templates, and the optimize() driver."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tempo.gain import MinGain
from tempo.optimize import build_problem, last_window, optimize
from tempo.space import ConfigurationSpace
from tempo.templates import parse_templates
from whatif import Cluster
from whatif.allocation import AllocationDocument, effective_allocation, validate
from whatif.errors import UnfinishedJobsError, WhatifError
from whatif.workload import Workload

CLUSTER = Cluster.parse("memory-mb=8192,vcores=8")
REFERENCE = {"engine": "reference"}

ALLOCATION = b"""<?xml version="1.0"?>
<allocations>
  <!-- two tenants -->
  <queue name="a">
    <weight>1.0</weight>
    <maxRunningApps>7</maxRunningApps>
  </queue>
  <queue name="b">
    <weight>1.0</weight>
  </queue>
</allocations>
"""

TEMPLATES = """
QUEUE root.a
OPTIMIZE QS_AJR;
CONSTRAINT QS_PCT(p=95%) <= 2h;
PRIORITY 2;

QUEUE root.b
OPTIMIZE QS_AJR;
CONSTRAINT QS_THR < 0 AND QS_AJR <= 1h;
"""


def _workload() -> Workload:
    """Queue a: 4 long jobs from t=0; queue b: 4 short jobs arriving while a runs."""
    jobs, tasks = [], []
    for queue, n, start, gap, maps, duration in (
        ("root.a", 4, 0.0, 5.0, 10, 120.0),
        ("root.b", 4, 10.0, 30.0, 6, 30.0),
    ):
        for j in range(n):
            job = f"{queue[-1]}{j}"
            jobs.append({"job_id": job, "queue": queue, "submit_s": start + j * gap})
            for t in range(maps):
                tasks.append(
                    {
                        "job_id": job,
                        "task_id": f"{job}_m{t}",
                        "stage": "map",
                        "duration_s": duration + 7.0 * t + 3.0 * j,
                        "memory_mb": 1024.0,
                        "vcores": 1.0,
                    }
                )
    return Workload(jobs=pd.DataFrame(jobs), tasks=pd.DataFrame(tasks))


@pytest.fixture(scope="module")
def setup():
    document = AllocationDocument.from_bytes(ALLOCATION, source="fair-scheduler.xml")
    space = ConfigurationSpace.default(
        effective_allocation(document), CLUSTER, settings=("weight",)
    )
    templates = parse_templates(TEMPLATES, "t.qs")
    return document, _workload(), templates, space


def test_build_problem_lays_out_objectives_then_constraints(setup):
    """The QS vector is the OPTIMIZE metrics, then the constraints, with r = +inf for objectives."""
    document, workload, templates, space = setup
    problem, context = build_problem(
        document, workload, templates, CLUSTER, space=space, model=REFERENCE, radius=0.3
    )
    assert [(c.queue, c.metric.label, c.kind) for c in context.components] == [
        ("root.a", "QS_AJR", "objective"),
        ("root.b", "QS_AJR", "objective"),
        ("root.a", "QS_PCT", "constraint"),
        ("root.b", "QS_THR", "constraint"),
        ("root.b", "QS_AJR", "constraint"),
    ]
    assert problem.thresholds.tolist() == [np.inf, np.inf, 7200.0, 0.0, 3600.0]
    assert problem.optimize_mask.tolist() == [True, True, False, False, False]
    assert problem.weights.tolist() == [2.0, 1.0, 2.0, 1.0, 1.0]
    assert problem.radius == 0.3
    np.testing.assert_array_equal(problem.start, space.encode(effective_allocation(document)))


def test_scales_are_the_qs_in_force(setup):
    """Scales are |QS| under the configuration in force, and that QS is the optimizer's first."""
    document, workload, templates, space = setup
    problem, context = build_problem(
        document, workload, templates, CLUSTER, space=space, model=REFERENCE, radius=0.3
    )
    start = problem.evaluate(problem.start[None, :]).mean[0]
    np.testing.assert_allclose(problem.scales, np.abs(start))
    np.testing.assert_allclose(context.start_qs, start)
    assert start[3] == -4  # QS_THR of root.b: all four jobs finish
    assert context.evaluator.n_predicted == 1  # the start was memoized


def test_zero_qs_in_force_falls_back_to_threshold_or_one(setup):
    """A QS that is 0 under the configuration in force is scaled by |r|, or 1 without one."""
    document, workload, templates, space = setup
    late = parse_templates("QUEUE root.a\nOPTIMIZE QS_WASTE;\nCONSTRAINT QS_WASTE <= 20%;", "w.qs")
    problem, context = build_problem(
        document, workload, late, CLUSTER, space=space, model=REFERENCE, radius=0.3
    )
    assert context.start_qs.tolist() == [0.0, 0.0]
    assert problem.scales.tolist() == [1.0, 0.2]


def test_failing_candidate_becomes_a_nan_row(setup):
    """A candidate the predictor fails on is a NaN row, recorded; the rest of the batch is kept."""
    document, workload, templates, space = setup
    problem, context = build_problem(
        document, workload, templates, CLUSTER, space=space, model=REFERENCE, radius=1.0
    )
    evaluator = context.evaluator
    real = evaluator.model.evaluate

    def flaky(allocations, workload):
        if any(a.queue("root.a").weight > 5 for a in allocations):
            raise WhatifError("predictor exploded")
        return real(allocations, workload)

    evaluator.model.evaluate = flaky
    X = space.project(np.array([[0.5, 0.5], [0.99, 0.5], [0.6, 0.4]]))
    evaluation = problem.evaluate(X)
    assert np.isnan(evaluation.mean[1]).all()
    assert np.isfinite(evaluation.mean[[0, 2]]).all()
    assert len(evaluator.failures) == 1
    assert "predictor exploded" in evaluator.failures[0].reason
    np.testing.assert_array_equal(evaluator.failures[0].vector, X[1])


BLOCKING = b"""<?xml version="1.0"?>
<allocations>
  <queue name="a"><maxAMShare>0.5</maxAMShare></queue>
  <queue name="b"><maxAMShare>0.5</maxAMShare></queue>
</allocations>
"""


def _with_ams(workload: Workload) -> Workload:
    """Every job runs a 1 GB, 1 vcore AM: a maxAMShare under 1/8 of 8 GB holds none."""
    return Workload(
        jobs=workload.jobs.assign(am_memory_mb=1024.0, am_vcores=1.0), tasks=workload.tasks
    )


def _blocking_problem(document, space, templates):
    """build_problem over the workload with AMs, radius 1 (the BLOCKING file's tests)."""
    return build_problem(
        document,
        _with_ams(_workload()),
        templates,
        CLUSTER,
        space=space,
        model=REFERENCE,
        radius=1.0,
    )


def test_candidate_whose_jobs_never_finish_is_a_failure_not_a_smaller_average(setup):
    """Queue b's maxAMShare at the bottom of its range (0.1 of 8 GB) holds no 1 GB AM: b's jobs
    never start. root.a's AJR alone is measurable, but the candidate is a failed NaN row whose
    reason names the unfinished jobs; the configuration in force is evaluated as usual."""
    document = AllocationDocument.from_bytes(BLOCKING, source="fair-scheduler.xml")
    space = ConfigurationSpace.default(
        effective_allocation(document), CLUSTER, settings=("maxAMShare",)
    )
    templates = parse_templates("QUEUE root.a\nOPTIMIZE QS_AJR;", "a.qs")
    problem, context = _blocking_problem(document, space, templates)
    blocked = problem.start.copy()
    blocked[[d.queue for d in space.dimensions].index("root.b")] = 0.0
    evaluation = problem.evaluate(np.array([problem.start, space.project(blocked[None, :])[0]]))
    assert np.isfinite(evaluation.mean[0]).all() and np.isnan(evaluation.mean[1]).all()
    [failure] = context.evaluator.failures
    assert "4 jobs (root.b: 4; e.g. b0, b1, b2, b3) never finished" in failure.reason


def test_configuration_in_force_whose_jobs_never_finish_cannot_be_tuned(setup):
    """If jobs never finish under the file in force, there is nothing honest to compare with:
    `UnfinishedJobsError`, the answer "no" (exit 1 on the command line), naming them."""
    document = AllocationDocument.from_bytes(
        BLOCKING.replace(b'<queue name="b"><maxAMShare>0.5', b'<queue name="b"><maxAMShare>0.1'),
        source="fair-scheduler.xml",
    )
    space = ConfigurationSpace.default(
        effective_allocation(document), CLUSTER, settings=("weight",)
    )
    templates = parse_templates("QUEUE root.a\nOPTIMIZE QS_AJR;", "a.qs")
    with pytest.raises(
        UnfinishedJobsError, match=r"cannot be evaluated: .*4 jobs \(root\.b: 4.*never finished"
    ):
        _blocking_problem(document, space, templates)


def _optimize(setup, **options):
    """optimize() on the setup fixture's inputs with the reference engine, radius 0.25 and
    width 0.15; `options` adds keywords or overrides these."""
    document, workload, templates, space = setup
    defaults = {
        "space": space,
        "radius": 0.25,
        "algorithm_params": {"width": 0.15},
        "engine": "reference",
    }
    return optimize(document, workload, templates, CLUSTER, **(defaults | options))


def test_optimize_moves_within_radius_and_changes_only_tuned_settings(setup):
    """The tuned document validates, lies within the radius and differs only in weights."""
    document, workload, templates, space = setup
    records = []
    outcome = _optimize(setup, iterations=3, batch_size=4, callback=records.append)
    assert [r.iteration for r in records] == [1, 2, 3, 4]
    assert records[-1].evaluations == outcome.result.evaluations == 13
    assert 0 < outcome.distance <= 0.25 + 1e-9
    assert not [i for i in validate(outcome.document) if i.severity == "error"]
    assert outcome.diff and {d.setting for d in outcome.diff} == {"weight"}
    assert outcome.document.queue("root.a").get("maxRunningApps").text == "7"
    assert b"<!-- two tenants -->" in outcome.document.to_bytes()
    weighted = np.array([2.0, 1.0]) / outcome.result.start_mean[:2]  # priorities / scales
    assert outcome.result.mean[:2] @ weighted < outcome.result.start_mean[:2] @ weighted
    tuned = space.encode(effective_allocation(outcome.document))
    assert space.distance(tuned, space.encode(effective_allocation(document))) == pytest.approx(
        outcome.distance
    )


def test_optimize_is_deterministic_under_a_seed(setup):
    """The same inputs and seed give the same evaluations and the same document."""
    runs = [_optimize(setup, iterations=2, batch_size=3, seed=seed) for seed in (7, 7, 8)]
    pd.testing.assert_frame_equal(runs[0].result.history, runs[1].result.history)
    assert runs[0].document.to_bytes() == runs[1].document.to_bytes()
    assert not runs[0].result.history.equals(runs[2].result.history)


def test_last_window_keeps_recent_submissions(setup):
    """last_window keeps the jobs submitted in the last L seconds of the workload."""
    workload = setup[1]
    assert sorted(last_window(workload, 50).jobs["job_id"]) == ["b2", "b3"]


def test_unmeasurable_qs_is_left_out(setup):
    """A QS with nothing to measure under the configuration in force leaves the vector."""
    document, workload, templates, space = setup
    more = [
        *templates,
        *parse_templates("QUEUE root.a\nCONSTRAINT QS_AJR(window=1s) <= 1h;", "d.qs"),
    ]
    more = [t for t in more if t.queue == "root.b"] + more[-1:]
    problem, context = build_problem(
        document, workload, more, CLUSTER, space=space, model=REFERENCE, radius=0.3
    )
    assert [c.metric.label for c in context.components] == ["QS_AJR", "QS_THR", "QS_AJR"]
    assert problem.evaluate(problem.start[None, :]).mean.shape == (1, 3)


def test_a_value_in_force_outside_the_tuned_range_is_compared_as_the_file_in_force(setup):
    """root.a's maxRunningApps 7 tuned over 1:3: the search starts from 3 (clipped), the
    QS "in force" are the file's own (7 running apps), and the answer stays in 1:3 even
    where it predicts worse than the file (the clipped start was reported as the
    configuration in force, and "no change" wrote the file out of the range)."""
    from tempo.space import SpaceSpec

    document, workload, templates, space = setup
    _, context = build_problem(
        document, workload, templates, CLUSTER, space=space, model=REFERENCE, radius=0.3
    )
    narrow = ConfigurationSpace.from_spec(
        SpaceSpec(settings=()).with_overrides(["root.a.maxRunningApps=1:3"]),
        effective_allocation(document),
        CLUSTER,
    )
    outcome = optimize(
        document, workload, templates, CLUSTER, space=narrow, iterations=1, batch_size=2,
        radius=1.0, engine="reference", min_gain=MinGain(0.5, 0.0, 0.0),
    )  # fmt: skip
    assert [d.describe() for d in outcome.clipped] == ["root.a  maxRunningApps: 7 -> 3"]
    np.testing.assert_allclose(outcome.result.start_mean, context.start_qs)
    tuned = effective_allocation(outcome.document).queue("root.a").max_running_apps
    assert tuned is not None and 1 <= tuned <= 3 and outcome.diff and not outcome.held_back
