"""The Fair Scheduler's delay scheduling on YARN: located map stages placed node-local,
rack-local or off-switch as FSAppAttempt allows, by counting scheduling opportunities.

The pure-Python twin of ``whatif/predictor/kernel/fair_locality.py`` (which describes the
rules): the same steps with Python objects, on the `ReferenceEngine`'s state (a mixin of
it; see ``loop.py``).
"""

from __future__ import annotations

from whatif.predictor.pack import Packed
from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.settings import SchedulerSettings


class FairLocality(EngineState):
    """Allowed levels and opportunities per located stage (twin of ``kernel/fair_locality.py``)."""

    def init_fair_locality(self, p: Packed, settings: SchedulerSettings) -> None:
        """On where the thresholds are and the trace's splits name the cluster's nodes."""
        ns = len(p.stage_task_start)
        fair = settings.fair_locality
        self.floc_on = fair is not None and p.locality is not None and p.queues.capacity is None
        self.floc_node, self.floc_rack = fair if fair is not None else (0.0, 0.0)
        self.stage_floc_level = [-1] * ns
        self.stage_floc_opp = [0] * ns

    def _fl_level(self, s: int) -> int:
        """FSAppAttempt.getAllowedLocalityLevel for located stage `s` (kernel `_fl_level_at`
        and `_fl_level`)."""
        level = self.stage_floc_level[s]
        if level < 0:
            self.stage_floc_level[s] = 0
            return 0
        if level >= 2:
            return 2
        threshold = self.floc_node if level == 0 else self.floc_rack
        if self.stage_floc_opp[s] > self.nn * threshold:
            level += 1
            self.stage_floc_level[s] = level
            self.stage_floc_opp[s] = 0
        return level

    def _fl_pick(self, s: int, n: int) -> tuple[int, int]:
        """A scheduling opportunity of located stage `s` on node `n`: (task, type) or (-1, -1)."""
        self.stage_floc_opp[s] += 1
        self.changed = True  # the next heartbeats see one more opportunity
        level = self._fl_level(s)
        task = self._loc_first(s, n)
        if task >= 0:
            return task, 0
        task = self._loc_first(s, self.nn + self.node_rack[n])
        if task >= 0 and level >= 1:
            return task, 1
        if level == 2:
            return self._head(s), 2
        return -1, -1

    def _fl_try_located(self, j: int, leaf: int, s: int, n: int) -> bool:
        """`_try_app` for a located stage: an opportunity where the stage's request fits the
        node's capability and the queues' maxResources, then the task its level allows."""
        p = self.p
        head = p.task_req[self._head(s)]
        if (head > self.node_cap[n]).any() or not self._fits_max(leaf, head):
            return False
        task, kind = self._fl_pick(s, n)
        return task >= 0 and self._fl_start(j, leaf, s, task, kind)

    def _fl_offer(self, j: int, leaf: int, s: int, n: int) -> int:
        """A located stage's turn at a node with reservations on (its request fits the
        node's capability and the queues' maxResources): 1 it takes the container its
        level allows, 2 that container does not fit the node and it reserves the node
        (`_res_offer`, capped by the container's type), 0 neither (kernel
        `allocation._res_pick`)."""
        task, kind = self._fl_pick(s, n)
        if task < 0:
            return 0
        if self._fl_start(j, leaf, s, task, kind):
            return 1
        req = self.p.task_req[task]
        if (req <= self.node_free[n]).all():
            return 0  # it fits the node, not its queues' maxResources: passed over
        return 2 if self._res_offer(j, leaf, s, req, kind) else 0

    def _fl_start(self, j: int, leaf: int, s: int, task: int, kind: int) -> bool:
        """Start `task` in a container of type `kind` if it fits (`_run_task`)."""
        if not self._run_task(j, leaf, s, task):
            return False
        self._claim_used(j, self.p.task_req[task])
        if kind < self.stage_floc_level[s]:  # FSAppAttempt.allocate
            self.stage_floc_level[s] = kind
        return True
