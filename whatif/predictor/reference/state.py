"""The reference engine's constants: event kinds and attempt states (as the kernel's)."""

from __future__ import annotations

import math

INF = math.inf
LOG2 = math.log(2.0)
# Event kinds, in the order their tie-breaks do not depend on (heap is (time, seq)).
END, KILL, AM_READY, HEARTBEAT = 0, 1, 2, 3
CONTINUOUS = 4  # a continuous scheduling pass (continuous.py)
AM_ASK = 5  # a MapReduce AM's allocate call sends released stages (allocate_cycle.py)
TC_END = 6  # Hadoop 1: a task-cleanup attempt ends; ident 2 (node + 1) + pool (jobtracker.py)
HANG = 7  # a job's map requests may hang long enough for unconditional preemption (phases.py)
REASK = 8  # an AM's allocate call asks again for a killed or failed task (allocate_cycle.py)
# Attempt states (index into pack.ATTEMPT_STATE_NAMES).
RUNNING, SUCCEEDED, FAILED, KILLED, AM_KILLED = 0, 1, 2, 3, 4
# Hadoop 3 checks with no progress before the livelock search starts (kernel.QUIET_CHECKS)
QUIET_CHECKS = 16
# AM calls in a row at which the ramp-up alone changed something, after which the calls
# wait for the next event (kernel.RAMP_RUN_MAX)
RAMP_RUN_MAX = 10000
