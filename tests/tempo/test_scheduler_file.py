"""`tempo.scheduler_file`: one dispatch on the file type for tuning, and what each kind does."""

import pickle

import numpy as np
import pytest
from samples import REPO

from tempo.optimize import build_problem, optimize
from tempo.scheduler_file import (
    CAPACITY_FILE,
    capacity_diff,
    read_scheduler_document,
    scheduler_file,
)
from tempo.space import CapacitySpace, ConfigurationSpace
from tempo.templates import load_templates
from whatif import Cluster
from whatif.allocation import AllocationDocument
from whatif.capacity import CapacityConfigError, ConfigurationDocument
from whatif.errors import ValidationError
from whatif.predictor.capacity import (
    CapacityAllocation,
    capacity_allocation,
    read_capacity_allocation,
)
from whatif.readers import read_trace

TWO = REPO / "configs" / "two-tenant-capacity.xml"
CLUSTER = Cluster.parse("nodes=24,memory-mb=8192,vcores=8")


def test_the_file_type_picks_the_kind():
    """A capacity-scheduler.xml reads as a ConfigurationDocument and tunes over a
    CapacitySpace; an allocation file as an AllocationDocument over a ConfigurationSpace."""
    capacity = read_scheduler_document(TWO)
    fair = read_scheduler_document(REPO / "configs" / "two-tenant-expert.xml")
    assert isinstance(capacity, ConfigurationDocument)
    assert isinstance(fair, AllocationDocument)
    assert scheduler_file(capacity) is CAPACITY_FILE
    assert scheduler_file(fair).name == "allocation file"
    assert isinstance(CAPACITY_FILE.space(capacity, CLUSTER, False), CapacitySpace)
    assert isinstance(scheduler_file(fair).space(fair, CLUSTER, False), ConfigurationSpace)


def test_the_capacity_allocation_pickles_to_the_same_value():
    """Candidates travel to worker processes: the capacity allocation survives a pickle
    round trip as the same CapacityAllocation the predictor reads from the file."""
    allocation = CAPACITY_FILE.allocation(ConfigurationDocument.from_file(TWO), CLUSTER)
    assert isinstance(allocation, CapacityAllocation)
    again = pickle.loads(pickle.dumps(allocation))
    assert again == allocation
    assert again.capacity == read_capacity_allocation(str(TWO), CLUSTER).capacity


def test_capacity_diff_names_each_changed_property():
    """Changed, added and removed properties, split into queue and setting; nothing else."""
    doc = ConfigurationDocument.from_file(TWO)
    new = (
        doc.set("yarn.scheduler.capacity.root.prod.capacity", "70")
        .set("yarn.scheduler.capacity.root.engineer.capacity", "30")
        .set("yarn.scheduler.capacity.root.engineer.minimum-user-limit-percent", "50")
        .set("yarn.scheduler.capacity.maximum-am-resource-percent", None)
    )
    rows = {(d.queue, d.setting, d.old, d.new) for d in capacity_diff(doc, new)}
    assert rows == {
        ("root.prod", "capacity", "75", "70"),
        ("root.engineer", "capacity", "25", "30"),
        ("root.engineer", "minimum-user-limit-percent", None, "50"),
        ("(scheduler)", "maximum-am-resource-percent", "0.5", None),
    }
    assert capacity_diff(doc, doc) == ()


def test_capacity_check_and_write_refuse_what_hadoop_would_refuse(tmp_path):
    """A capacity sum of 110: `check` names the line, `write` writes nothing."""
    doc = ConfigurationDocument.from_file(TWO).set(
        "yarn.scheduler.capacity.root.engineer.capacity", "35"
    )
    with pytest.raises(ValidationError, match=r"candidate: line 21: .*capacity sum of 110"):
        CAPACITY_FILE.check(doc, "candidate")
    with pytest.raises(CapacityConfigError, match="refusing to write"):
        CAPACITY_FILE.write(doc, tmp_path / "out.xml")
    assert not (tmp_path / "out.xml").exists()


def test_a_space_of_the_other_kind_is_refused():
    """build_problem: a capacity file with an allocation file's space is a ValidationError."""
    fair = AllocationDocument.from_file(REPO / "configs" / "two-tenant-expert.xml")
    space = scheduler_file(fair).space(fair, CLUSTER, False)
    with pytest.raises(ValidationError, match="expected a CapacitySpace"):
        build_problem(
            ConfigurationDocument.from_file(TWO),
            read_trace(REPO / "traces" / "two-tenant").workload,
            load_templates(REPO / "templates" / "two-tenant"),
            CLUSTER,
            space=space,
            radius=0.2,
        )


def test_optimize_tunes_a_capacity_file_and_changes_only_the_moved_properties():
    """PALD over the CapacitySpace: the configuration in force is predicted in the Capacity
    Scheduler mode (the capacity predictor's numbers), the picked point is no worse on the
    objectives, and the tuned document differs from the file only in the properties the
    diff lists (every other byte kept); the result validates."""
    doc = ConfigurationDocument.from_file(TWO)
    outcome = optimize(
        doc,
        read_trace(REPO / "traces" / "two-tenant").workload,
        load_templates(REPO / "templates" / "two-tenant"),
        CLUSTER,
        space=CapacitySpace.default(doc),
        radius=0.5,
        iterations=2,
        batch_size=4,
        executor="serial",
    )
    labels = [c.label for c in outcome.components]
    start = dict(zip(labels, outcome.result.start_mean, strict=True))
    assert start["root.engineer:QS_AJR"] == pytest.approx(79.05, abs=0.05)
    tuned = dict(zip(labels, outcome.result.mean, strict=True))
    assert tuned["root.engineer:QS_AJR"] <= start["root.engineer:QS_AJR"]
    assert CAPACITY_FILE.errors(outcome.document) == []
    changed = {f"yarn.scheduler.capacity.{d.queue}.{d.setting}" for d in outcome.diff}
    assert changed == {
        name
        for name in {*doc.names(), *outcome.document.names()}
        if doc.value(name) != outcome.document.value(name)
    }
    reverted = outcome.document
    for name in changed:
        reverted = reverted.set(name, doc.value(name))
    assert reverted.to_bytes() == doc.to_bytes()
    assert np.isfinite(outcome.result.mean).all()


def test_each_candidate_is_the_file_with_only_its_moved_properties_and_predicts_as_capacity():
    """The evaluator writes a sampled point into the file (the properties it moves, every
    other byte kept, validated) and predicts it in the Capacity Scheduler mode."""
    doc = ConfigurationDocument.from_file(TWO)
    space = CapacitySpace.default(doc)
    problem, context = build_problem(
        doc,
        read_trace(REPO / "traces" / "two-tenant").workload,
        load_templates(REPO / "templates" / "two-tenant"),
        CLUSTER,
        space=space,
        radius=0.5,
        model={"executor": None},
    )
    x = space.sample(np.random.default_rng(3), 1, center=problem.start, radius=0.3)[0]
    candidate = context.evaluator.candidate(x)
    moved = space.changes(doc, x)
    assert moved
    assert {(d.queue, d.setting) for d in CAPACITY_FILE.diff(doc, candidate)} == {
        tuple(name.removeprefix("yarn.scheduler.capacity.").rsplit(".", 1)) for name, _ in moved
    }
    reverted = candidate
    for name, _ in moved:
        reverted = reverted.set(name, doc.value(name))
    assert reverted.to_bytes() == doc.to_bytes()
    allocation = CAPACITY_FILE.allocation(candidate, CLUSTER)
    assert allocation.capacity == capacity_allocation(candidate, CLUSTER).capacity
