"""With preemption off, the space leaves preemption timeouts alone and says so."""

from samples import REPO

from tempo.space import ConfigurationSpace, SpaceSpec
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.cluster import Cluster

CLUSTER = Cluster.parse("nodes=24,memory-mb=8192,vcores=8")


def _allocation():
    return effective_allocation(
        AllocationDocument.from_file(REPO / "configs" / "two-tenant-expert.xml")
    )


def _timeouts(space: ConfigurationSpace) -> list[str]:
    return [d.name for d in space.dimensions if "Preemption" in d.setting]


def test_default_spaces_tune_timeouts_only_with_preemption():
    on = ConfigurationSpace.default(_allocation(), CLUSTER, preemption=True)
    off = ConfigurationSpace.default(_allocation(), CLUSTER, preemption=False)
    assert _timeouts(on) and not _timeouts(off)
    assert any(
        n.startswith(
            "preemption is off (yarn.scheduler.fair.preemption=false): "
            "minSharePreemptionTimeout, fairSharePreemptionTimeout not tuned"
        )
        for n in off.notes
    )
    built = ConfigurationSpace.from_spec(SpaceSpec(), _allocation(), CLUSTER, preemption=False)
    assert not _timeouts(built) and built.notes[0] == off.notes[0]


def test_timeouts_the_operator_names_stay_with_a_note():
    spec = SpaceSpec().with_overrides(["root.prod.fairSharePreemptionTimeout=60:600"])
    space = ConfigurationSpace.from_spec(spec, _allocation(), CLUSTER, preemption=False)
    assert _timeouts(space) == ["root.prod.fairSharePreemptionTimeout"]
    assert any("tuned as asked but change no prediction" in n for n in space.notes)
