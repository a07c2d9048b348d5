"""The MapReduce ApplicationMaster's allocate cycle (YARN): when the RM sees an app's
requests, and when the app gets the containers the RM allocated to it.

The reference engine's ``reference/allocate_cycle.py`` is this module's pure-Python twin;
it follows the same steps.

MRv2's ``RMContainerAllocator`` talks to the ResourceManager only in its heartbeat, every
``yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms`` (1 s), from the moment the AM is
ready (its container started, ``am_start_latency_s`` later): each call sends the requests
made since the last one and returns the containers allocated since. So, for a job whose
trace records its AM (an app without one has no cycle):

- a stage the AM releases (the next stage once one completes, the reduces once slowstart
  is met) reaches the RM at the AM's first call at or after the release (``phases``
  marks it ``SI_RELEASED`` 2 and an ``AM_ASK`` event at that call releases it); its first
  stage goes with the call at the AM's start;
- a container allocated at ``t`` is taken by the AM at its first call after ``t`` and
  then launched (``container_launch_latency_s``): the task's work starts then, while the
  container holds its node's resources from ``t`` (`_run_start`).

The AM's reduce ramp-up runs at its calls: with node heartbeats at the call itself,
seeing the state then (an iteration of its own at a call that changes what the AM asks
for, `phases._ramp_due`: what it asks for is there for the nodes' next heartbeats); in
the instant model at the first event time at or after each call. Its reduce ramp-down
runs at its calls (`phases._at_am_call`: a job blocked between calls acts at the next).

Not modeled: a failed or killed attempt's task is asked for again at once (not at the next
call).
An interval of 0 turns the cycle off: requests and containers at once.
"""

from __future__ import annotations

from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.events import _on_grid
from whatif.predictor.kernel.state import C_AM_HB, C_LAT, JF_AM_T0, JS_HAS_AM


@kernel_jit
def _cycles(W, j):
    """Whether job `j` talks to the RM on an allocate cycle (it has an AM, interval > 0)."""
    return W[25][C_AM_HB] > 0.0 and W[6][j, JS_HAS_AM] == 1


@kernel_jit
def _am_call(W, j, t, at):
    """Job `j`'s AM's first allocate call after `t` (at or after it with `at`)."""
    return _on_grid(W[8][j, JF_AM_T0], W[25][C_AM_HB], t, at)


@kernel_jit
def _run_start(W, j, t):
    """When the work of a task container allocated to job `j` at `t` starts: the AM takes
    it at its next allocate call (with a cycle), then launches it."""
    if _cycles(W, j):
        t = _am_call(W, j, t, False)
    return t + W[25][C_LAT]
