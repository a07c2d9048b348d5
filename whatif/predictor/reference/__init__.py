"""The reference engine: the numba kernel's slow, obvious pure-Python twin.

Its modules carry the names of the kernel's (``whatif/predictor/kernel/``): ``loop``
(the main loop and the engine's state), ``events``, ``heartbeats``, ``allocation``,
``fairshare``, ``ordering``, ``queues``, ``phases``, ``preemption``,
``preemption_v12``, ``livelock``, ``resources``, ``state``, ``capacity`` and
``capacity_preemption`` (the Capacity Scheduler mode and its preemption monitor).
"""

from __future__ import annotations

from whatif.predictor.reference.loop import ReferenceEngine
from whatif.predictor.reference.state import (
    AM_KILLED,
    AM_READY,
    END,
    FAILED,
    HEARTBEAT,
    INF,
    KILL,
    KILLED,
    LOG2,
    QUIET_CHECKS,
    RUNNING,
    SUCCEEDED,
)

__all__ = [
    "AM_KILLED",
    "AM_READY",
    "END",
    "FAILED",
    "HEARTBEAT",
    "INF",
    "KILL",
    "KILLED",
    "LOG2",
    "QUIET_CHECKS",
    "RUNNING",
    "SUCCEEDED",
    "ReferenceEngine",
]
