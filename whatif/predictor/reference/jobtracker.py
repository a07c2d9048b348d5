"""Hadoop 1's JobTracker pass: job setup and cleanup tasks handed out ahead of the Fair
Scheduler.

The pure-Python twin of ``whatif/predictor/kernel/jobtracker.py`` (which describes the
rules): the same steps with Python objects, on the `ReferenceEngine`'s state (a mixin of
it; see ``loop.py``). The hand-out itself is ``allocation._assign_jobtracker``.
"""

from __future__ import annotations

from whatif.predictor.reference.protocol import EngineState

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
        """Keep job `j` listed while it is runnable with a task to hand out."""
        if self.job_state[j] == 2 and self._jt_stage(j) >= 0:
            self.jt_jobs[j] = None
        else:
            self.jt_jobs.pop(j, None)

    def _jt_pick(self) -> tuple[int, int]:
        """(job, stage) of the task getSetupAndCleanupTasks hands out: the first job (in job
        order) with a cleanup task, else the first with a setup task."""
        stages = {j: self._jt_stage(j) for j in self.jt_jobs}
        j = min(stages, key=lambda k: (self.p.stage_jobtracker[stages[k]] != CLEANUP, k))
        return j, stages[j]
