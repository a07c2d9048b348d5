"""The kernel's parked nodes in two lists (`kernel/resting.py`): the nodes only a
reservation could take (no room, not reserved) apart from the others, so that a settling
pass in which no app could reserve more passes them over. Filed again whenever a
container starts or ends on one or it is reserved or released, with or without
continuous scheduling (whose passes allocate on parked nodes): the same schedules as the
reference engine's one list."""

import pandas as pd
import pytest
from test_blocked_sleepers import run

from whatif.predictor import SchedulerSettings
from whatif.predictor import kernel as K


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("continuous", [False, True], ids=["heartbeats", "continuous"])
@pytest.mark.parametrize("version", [2, 3])
def test_bare_parked_nodes_change_no_schedule(seed, continuous, version):
    sched = SchedulerSettings(
        preemption=True, hadoop_version=version, continuous_scheduling=continuous
    )
    fast, met, _ = run("numba", seed, sched, watch=_bare_nodes)
    slow, _, _ = run("reference", seed, sched)
    assert met
    pd.testing.assert_frame_equal(fast, slow)


def _bare_nodes(gi):
    return gi[K.GI_BARE_N] > 0
