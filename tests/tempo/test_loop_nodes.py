"""The tuner re-reads the RM's nodes at each window: predictions on the cluster of that
window, a failed read keeps the last cluster, a shrunk cluster is not blamed on a step,
and each iteration's cluster SPEC is journalled."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from test_loop import LABEL, TEMPLATES, XML, Clock, FileApplier, _trace, _weight

from tempo.errors import RMError
from tempo.journal import MemoryJournal, SQLiteJournal
from tempo.loop import Step, Tuner
from whatif import Trace, Workload
from whatif.allocation import AllocationDocument
from whatif.cluster import Cluster

FOUR = Cluster.parse("nodes=4,memory-mb=1024,vcores=1")
THREE = Cluster.parse("nodes=3,memory-mb=1024,vcores=1")


def response_s(weight: float, cluster: Cluster) -> float:
    """The engineer response time of weight `weight` on `cluster`: 100 s at weight 1 and 90 s
    at weight 2 on four nodes, longer in proportion on fewer."""
    return (110.0 - 10.0 * weight) * 4 / len(cluster.nodes)


class RealCluster:
    """The cluster as it is (``nodes``, which a test changes) and an observer of its windows:
    the engineer job runs `response_s` of the weight in the file on disk."""

    def __init__(self, path: Path, nodes: Cluster) -> None:
        self.path, self.nodes, self.reads = path, nodes, 0

    def read(self) -> Cluster:
        """What `RMClient.cluster` reads: the nodes now."""
        self.reads += 1
        return self.nodes

    def window(self, begin_s: float, end_s: float) -> Trace:
        weight = _weight(AllocationDocument.from_file(self.path))
        return _trace(begin_s, response_s(weight, self.nodes))


class ModelStepper:
    """Doubles the engineer weight and predicts with `response_s` on the cluster it is given
    (the tuner's when None is given: `fixed`); records the clusters it predicted on."""

    def __init__(self, fixed: Cluster) -> None:
        self.fixed, self.seen = fixed, []

    def _qs(self, weight: float, cluster: Cluster | None) -> dict[str, float]:
        cluster = cluster or self.fixed
        self.seen.append(cluster)
        return {LABEL: response_s(weight, cluster)}

    def step(self, document: AllocationDocument, workload: Workload, cluster=None) -> Step:
        w = _weight(document)
        candidate = document.set("root.engineer", "weight", 2 * w)
        return Step(candidate, self._qs(2 * w, cluster), self._qs(w, cluster), distance=0.05)

    def predict(self, document: AllocationDocument, workload: Workload, cluster=None):
        return self._qs(_weight(document), cluster)


@pytest.fixture
def allocation(tmp_path: Path) -> Path:
    path = tmp_path / "fair-scheduler.xml"
    path.write_bytes(XML)
    return path


def _tuner(path: Path, real: RealCluster, *, reread: bool, journal=None) -> Tuner:
    """The tuner of a live run: without --cluster (`reread`) it reads the nodes at each
    window; with --cluster the cluster of the start stays."""
    stepper = ModelStepper(real.nodes)
    return Tuner(
        observer=real,
        stepper=stepper,
        applier=FileApplier(path),
        journal=journal if journal is not None else MemoryJournal(),
        templates=TEMPLATES,
        allocation_path=path,
        cluster=real.nodes,
        nodes=real.read if reread else None,
        predictor=stepper,
        window_s=600.0,
        clock=Clock(),
    )


def test_the_cluster_is_read_again_at_each_window(allocation):
    """One read of the nodes per window; the window's step, the load adjustment's
    prediction and the report use that window's cluster; the change is said once."""
    real = RealCluster(allocation, FOUR)
    loop = _tuner(allocation, real, reread=True)
    first = loop.step()
    assert real.reads == 1 and first.decision == "accepted"
    assert first.cluster == FOUR.spec() and first.cluster_change == ""
    assert loop.stepper.seen == [FOUR, FOUR]  # the candidate and the configuration in force
    real.nodes = THREE
    second = loop.step()
    assert real.reads == 2 and loop.cluster == THREE
    assert second.cluster == THREE.spec()
    assert second.cluster_change.startswith("4 RUNNING node(s), 4,096 MB")
    assert second.cluster_change.endswith(
        "-> 3 RUNNING node(s), 3,072 MB and 3 vcores in all, 1 node size(s)"
    )
    assert loop.stepper.seen[2:] == [THREE, THREE, THREE]  # the adjustment, then the step
    third = loop.step()
    assert real.reads == 3 and third.cluster_change == ""  # said once, on the change


def test_a_failed_read_keeps_the_last_cluster_with_a_warning(allocation, caplog):
    """The RM's node list unreadable at a window: a warning, the last cluster read is
    predicted on and journalled, and the loop goes on."""
    real = RealCluster(allocation, FOUR)
    loop = _tuner(allocation, real, reread=True)
    loop.step()

    def down() -> Cluster:
        raise RMError("http://rm:8088/ws/v1/cluster/nodes: connection refused")

    loop.nodes = down
    with caplog.at_level(logging.WARNING, logger="tempo.loop.tuner"):
        report = loop.step()
    assert "cannot read the cluster's nodes" in caplog.text and "connection refused" in caplog.text
    assert report.decision == "accepted" and "the previous step held" in report.reason
    assert report.cluster == FOUR.spec() and report.cluster_change == ""
    assert loop.stepper.seen[-1] == FOUR
    assert loop.journal.iterations()[-1].cluster == FOUR.spec()


@pytest.mark.parametrize(
    ("shrinks", "reread", "decision"),
    [
        (False, True, "accepted"),  # the same step on a constant cluster holds
        (True, True, "accepted"),  # a node lost, the window predicted on three: it holds
        (True, False, "rolled_back"),  # a node lost, predicted on the four of the start
    ],
)
def test_a_node_lost_between_windows_is_not_blamed_on_the_step(
    allocation, shrinks, reread, decision
):
    """The step (weight 1 -> 2) cuts the response time 100 s -> 90 s. A node lost before
    the next window makes it 120 s, worse than the 100 s before the step: predicted on
    the three nodes left, the previous file would have taken 133 s there, so the step
    held; on the four nodes of the start the loss is blamed on the step, rolled back."""
    real = RealCluster(allocation, FOUR)
    loop = _tuner(allocation, real, reread=reread)
    assert loop.step().decision == "accepted"
    if shrinks:
        real.nodes = THREE
    report = loop.step()
    observed = report.observed[LABEL]
    assert observed == pytest.approx(120.0 if shrinks else 90.0)
    assert report.decision == decision, report.reason
    if decision == "rolled_back":
        assert allocation.read_bytes() == XML
    else:
        assert "the previous step held" in report.reason


def test_the_journal_records_each_iterations_cluster_spec(allocation, tmp_path):
    """Each journalled iteration carries the SPEC of the cluster it predicted on."""
    real = RealCluster(allocation, FOUR)
    with SQLiteJournal(tmp_path / "journal.sqlite") as journal:
        loop = _tuner(allocation, real, reread=True, journal=journal)
        loop.step()
        real.nodes = THREE
        loop.step()
        assert [i.cluster for i in journal.iterations()] == [FOUR.spec(), THREE.spec()]


def test_with_cluster_given_the_nodes_are_not_read(allocation):
    """--cluster: the cluster stays the one given, whatever the RM's nodes do."""
    real = RealCluster(allocation, FOUR)
    loop = _tuner(allocation, real, reread=False)
    loop.step()
    real.nodes = THREE
    report = loop.step()
    assert real.reads == 0 and loop.cluster == FOUR and report.cluster == FOUR.spec()
    assert report.cluster_change == ""


def test_the_same_nodes_listed_in_another_order_are_no_change(allocation):
    """An RM may list its nodes in another order: the cluster, and what is predicted on
    it, stays the one read first, and no change is said."""
    from dataclasses import replace

    real = RealCluster(allocation, FOUR)
    loop = _tuner(allocation, real, reread=True)
    loop.step()
    real.nodes = replace(FOUR, nodes=FOUR.nodes[::-1])
    report = loop.step()
    assert loop.cluster is FOUR and report.cluster_change == ""
