"""Hadoop 1's JobTracker pass: job setup and cleanup tasks handed out ahead of the Fair
Scheduler.

The pure-Python twin of ``whatif/predictor/kernel/jobtracker.py`` (which describes the
rules): the same steps with Python objects, on the `ReferenceEngine`'s state (a mixin of
it; see ``loop.py``). The hand-out itself is ``allocation._assign_jobtracker``.
"""

from __future__ import annotations

from whatif.predictor.nodes import next_heartbeat
from whatif.predictor.reference.protocol import EngineState
from whatif.predictor.reference.state import TC_END

#: ``Packed.stage_jobtracker`` of a cleanup stage (a setup stage is 1).
CLEANUP = 2


class JobTracker(EngineState):
    """The jobs with a setup or cleanup task to hand out (twin of ``kernel/jobtracker.py``)."""

    def _jt_stage(self, j: int) -> int:
        """Job `j`'s JobTracker stage with a task to hand out now (-1: none): released, a
        task pending and none running (one attempt at a time)."""
        p = self.p
        for s in range(int(p.job_stage_ptr[j]), int(p.job_stage_ptr[j + 1])):
            size = int(p.stage_task_end[s] - p.stage_task_start[s])
            running = size - self.stage_pending[s] - self.stage_done[s]
            if p.stage_jobtracker[s] and self.stage_released[s] and self.stage_pending[s] > 0:
                if running == 0:
                    return s
        return -1

    def _jt_refresh(self, j: int) -> None:
        """Keep job `j` listed while it is runnable with a task (or a task-cleanup attempt)
        to hand out."""
        if self.job_state[j] == 2 and (any(self.job_tc[j]) or self._jt_stage(j) >= 0):
            self.jt_jobs[j] = None
        else:
            self.jt_jobs.pop(j, None)

    def _jt_pick(self, d: int) -> tuple[int, int]:
        """(job, stage) of what getSetupAndCleanupTasks hands out in a free slot of pool
        `d`: the first job (in job order) with a cleanup task, else the first with a
        task-cleanup attempt of that pool (stage -1), else the first with a setup task
        ((-1, -1): none)."""
        best: tuple[int, int, int] = (3, -1, -1)  # (rank, job, stage)
        for j in sorted(self.jt_jobs):
            s = self._jt_stage(j)
            rank = 3 if s < 0 else (0 if self.p.stage_jobtracker[s] == CLEANUP else 2)
            if rank > 1 and self.job_tc[j][d] > 0:
                rank, s = 1, -1
            if rank < best[0]:
                best = (rank, j, s)
        return best[1], best[2]

    def _start_task_cleanup(self, j: int, d: int) -> None:
        """A task-cleanup attempt of job `j` holds a slot of pool `d` on the node
        heartbeating (or the cluster) for `task_cleanup_s`, until the node reports it."""
        self.job_tc[j][d] -= 1
        self.free[d] -= 1.0
        n = self.cur_node
        end = self.now + self.s.task_cleanup_s
        if n >= 0:
            self.node_free[n, d] -= 1.0
            end = next_heartbeat(n, self.nn, self.p.heartbeat_interval_s, end)
        self.changed = True
        self._push(end, TC_END, 2 * (n + 1) + d)

    def _end_task_cleanup(self, ident: int) -> int:
        """A task-cleanup attempt ends: its slot is free again; returns its node (-1: the
        cluster), which heartbeats now."""
        n, d = ident // 2 - 1, ident % 2
        self.free[d] += 1.0
        self.changed = True
        if n >= 0:
            self.node_free[n, d] += 1.0
        return n
