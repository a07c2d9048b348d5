"""Per-coordinate steps: the smallest normalized move that changes an integer or categorical setting."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from samples import allocation_file

from tempo.optimize import build_problem
from tempo.space import MRV1, OFF_BAND, ConfigurationSpace, Dimension, SpaceSpec
from tempo.templates import parse_templates
from whatif import Cluster
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.workload import Workload

SLOTS = Cluster.parse("map-slots=30,reduce-slots=10")
TOP = 1 - OFF_BAND  # where the on part of an off-band dimension ends

POOLS = allocation_file("pool", {"a": {"minMaps": 10, "maxRunningJobs": 20}, "b": {"weight": 2.0}})


def pools() -> AllocationDocument:
    return AllocationDocument.from_bytes(POOLS, source="pools.xml")


def space() -> ConfigurationSpace:
    return ConfigurationSpace.from_spec(
        SpaceSpec(settings=MRV1.settings), effective_allocation(pools(), hadoop_version=1), SLOTS
    )


SPACE = space()


def step(name: str, at: np.ndarray | None = None) -> float:
    steps = SPACE.steps if at is None else SPACE.steps_at(at)
    return float(steps[SPACE.index(name)])


def test_steps_by_kind_of_setting():
    """Linear integers 1/(high - low); categorical 1/choices; continuous 0; log integers at the bottom."""
    assert step("root.a.minMaps") == pytest.approx(1 / 15)  # [0, 15]
    assert step("root.a.minReduces") == pytest.approx(1 / 5)  # [0, 5]
    assert step("root.a.maxMaps") == pytest.approx(1 / 15)  # [15, 30]
    assert step("root.a.schedulingMode") == 0.5  # fair | fifo
    assert step("root.a.weight") == 0.0
    # [5, 3600] s on a log scale over [0, 0.9]: from 5 s to 6 s, the widest unit step
    assert step("root.fairSharePreemptionTimeout") == pytest.approx(
        math.log(6 / 5) / math.log(3600 / 5) * TOP
    )
    # [1, 100] jobs: from 1 to 2
    assert step("root.a.maxRunningJobs") == pytest.approx(math.log(2) / math.log(100) * TOP)
    three = Dimension("root.a", "schedulingPolicy", low=0, high=2, domain="categorical",
                      choices=("fair", "fifo", "drf"))  # fmt: skip
    assert ConfigurationSpace((three,), hadoop_version=3).steps.tolist() == [pytest.approx(1 / 3)]


def test_steps_at_a_point_go_to_the_next_value():
    """On a log scale the step is from the value to the next whole value: 20 -> 21 jobs."""
    start = SPACE.encode(effective_allocation(pools(), hadoop_version=1))
    assert step("root.a.maxRunningJobs", start) == pytest.approx(
        math.log(21 / 20) / math.log(100) * TOP
    )
    assert step("root.a.minMaps", start) == pytest.approx(1 / 15)
    # b has no job limit (off): the step is into the on part of the band
    assert step("root.b.maxRunningJobs", start) == pytest.approx(OFF_BAND / 2)
    # at the top of its range, the step goes down: 100 -> 99 jobs
    top = start.copy()
    top[SPACE.index("root.a.maxRunningJobs")] = TOP
    assert step("root.a.maxRunningJobs", top) == pytest.approx(
        math.log(100 / 99) / math.log(100) * TOP
    )


def decoded(vector: np.ndarray, i: int):
    return SPACE.decode(SPACE.project(vector)).entries[i][2]


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, len(SPACE), elements=st.floats(0, 1)))
def test_a_move_by_the_step_changes_the_setting(raw):
    """From any valid point, moving one coordinate by its step (up or down) changes its value."""
    point = SPACE.project(raw)
    steps = SPACE.steps_at(point)
    for i, size in enumerate(steps):
        if size == 0:
            continue
        values = {decoded(point, i)}
        for sign in (1, -1):
            moved = point.copy()
            moved[i] = min(max(point[i] + sign * size, 0.0), 1.0)
            values.add(decoded(moved, i))
        assert len(values) > 1, SPACE.names[i]


def test_build_problem_gives_the_optimizer_the_steps_at_the_start():
    """Problem.steps are the space's steps at the configuration in force (Hadoop 1, reference engine)."""
    jobs = pd.DataFrame(
        {"job_id": ["a0", "b0"], "queue": ["root.a", "root.b"], "submit_s": [0.0, 5.0]}
    )
    tasks = pd.DataFrame(
        {
            "job_id": ["a0", "a0", "b0"],
            "task_id": ["a0_m0", "a0_m1", "b0_m0"],
            "stage": ["map", "map", "map"],
            "duration_s": [60.0, 60.0, 30.0],
            "memory_mb": [1024.0] * 3,
            "vcores": [1.0] * 3,
        }
    )
    templates = parse_templates("QUEUE root.b\nOPTIMIZE QS_AJR;\n", "b.qs")
    problem, context = build_problem(
        pools(),
        Workload(jobs=jobs, tasks=tasks),
        templates,
        SLOTS,
        space=SPACE,
        model={"engine": "reference"},
        radius=0.2,
    )
    assert context.hadoop_version == 1  # the space's
    np.testing.assert_array_equal(problem.steps, SPACE.steps_at(problem.start))
    assert problem.steps[SPACE.index("root.a.schedulingMode")] == 0.5
