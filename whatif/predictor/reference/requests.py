"""What an app asks for next: its released stage with pending tasks of the best priority
in a dimension, and that stage's next task; where a re-queued task goes.

The pure-Python twin of ``whatif/predictor/kernel/requests.py``, on the
`ReferenceEngine`'s state (a mixin of it; see ``loop.py``). A stage's re-queued tasks are
one list, ``stage_retry``; the first ``stage_front[s]`` of them go before its fresh
tasks, the others after (`_requeue`, by the stage's retry rule).
"""

from __future__ import annotations

from whatif.predictor.pack import FAST_FAIL_PRIORITY, RETRY_FAILED_FIRST, RETRY_FIRST
from whatif.predictor.reference.protocol import EngineState


class Requests(EngineState):
    """Stages' next requests (twin of ``kernel/requests.py``)."""

    def _next_stage(self, j: int, d: int) -> int:
        """The app's highest-priority released stage with unassigned tasks in pool `d`."""
        p = self.p
        best = -1
        for s in range(int(p.job_stage_ptr[j]), int(p.job_stage_ptr[j + 1])):
            if (
                self.stage_released[s]
                and not self.stage_held[s]
                and self.stage_pending[s] > 0
                and self.stage_ramp[s] != 0
                and p.stage_dim[s] == d
                and not p.stage_jobtracker[s]
            ):
                if best < 0 or self._stage_priority(s) < self._stage_priority(best):
                    best = s
        return best

    def _stage_priority(self, s: int) -> int:
        """The priority stage `s` asks at: a MapReduce AM asks for a map whose task failed
        before at PRIORITY_FAST_FAIL_MAP, ahead of the job's reduces and other maps."""
        if self.p.stage_retry_rule[s] == RETRY_FAILED_FIRST and self.stage_front[s] > 0:
            return FAST_FAIL_PRIORITY
        return int(self.p.stage_priority[s])

    def _head(self, s: int) -> int:
        """Stage `s`'s next task: a re-queued one that goes first, else its lowest
        unassigned, else the first other re-queued one."""
        if self.stage_front[s] == 0 and self.stage_next[s] < self.p.stage_task_end[s]:
            return int(self.stage_next[s])
        return self.stage_retry[s][0]

    def _take_head(self, s: int) -> int:
        """Take stage `s`'s next task (`_head`) off its unassigned tasks."""
        task = self._head(s)
        if self.stage_front[s] > 0:
            self.stage_front[s] -= 1
        elif self.stage_next[s] < self.p.stage_task_end[s]:
            self.stage_next[s] += 1
            return task
        self.stage_retry[s].pop(0)
        return task

    def _requeue(self, s: int, task: int) -> None:
        """Put `task` on stage `s`'s retry list where Hadoop hands it out again: at the end,
        after the fresh tasks; or among the first ``stage_front[s]``, which go before them:
        after those already there (the AM's failed maps), or in `failComparator` order
        (Hadoop 1: more failed attempts first, then the lower task)."""
        rule = int(self.p.stage_retry_rule[s])
        failed = self.task_failures[task] > 0
        if rule != RETRY_FIRST and not (rule == RETRY_FAILED_FIRST and failed):
            self.stage_retry[s].append(task)
            return
        front = self.stage_retry[s][: self.stage_front[s]]
        place = len(front)
        if rule == RETRY_FIRST:
            key = (-self.task_failures[task], task)
            place = next(
                (i for i, t in enumerate(front) if key < (-self.task_failures[t], t)), place
            )
        self.stage_retry[s].insert(place, task)
        self.stage_front[s] += 1

    def _tracker_task(self, s: int, n: int) -> int:
        """Hadoop 1's next task of stage `s` for tracker `n` (findTaskFromList): the first
        re-queued task that goes first and did not last fail on `n` (`_front_task`), else
        the next fresh task; -1 if none."""
        task = self._front_task(s, n)
        if task >= 0:
            return task
        if self.stage_next[s] < self.p.stage_task_end[s]:
            return int(self.stage_next[s])
        return -1

    def _front_task(self, s: int, n: int) -> int:
        """The first re-queued task of stage `s` that goes first and did not last fail on
        tracker `n` (or failed as often as there are trackers); -1 if none."""
        hosts = len(self.node_cap)
        for task in self.stage_retry[s][: self.stage_front[s]]:
            if self.task_failed_on[task] != n or self.task_failures[task] >= hosts:
                return task
        return -1
