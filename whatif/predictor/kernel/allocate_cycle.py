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

A task whose attempt fails or is killed is asked for again at a later call
(`_reask_call`): a failed task at the first call at or after the failure (the task tells
its AM over the umbilical); a killed one (the scheduler's preemption) at the call after
the one whose answer reports the container completed (``getResources`` hands the
completion to the task attempt's state machine, whose new attempt's request is queued on
the allocator's event thread while ``heartbeat`` holds its lock, so the call that learnt
of it cannot send it). In between, the task is neither running nor asked for. A reduce
the AM itself kills (ramp-down) and the tasks of an AM attempt that fails are unassigned
at once (the ramp-up, or the next AM, asks for them).
An interval of 0 turns the cycle off: requests and containers at once.
"""

from __future__ import annotations

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.events import _on_grid


@kernel_jit
def _cycles(W, j):
    """Whether job `j` talks to the RM on an allocate cycle (it has an AM, interval > 0)."""
    return W[25][S.C_AM_HB] > 0.0 and W[6][j, S.JS_HAS_AM] == 1


@kernel_jit
def _am_call(W, j, t, at):
    """Job `j`'s AM's first allocate call after `t` (at or after it with `at`)."""
    return _on_grid(W[8][j, S.JF_AM_T0], W[25][S.C_AM_HB], t, at)


@kernel_jit
def _reask_call(W, j, state):
    """When job `j`'s AM asks again for a task whose attempt ends now in `state`: now, for
    a job without a cycle, or at a later call (see the module)."""
    now = W[23][S.G_NOW]
    if state == S.AM_KILLED or not _cycles(W, j) or W[9][j, S.JI_AM_STATE] != 3:
        return now
    if state == S.FAILED:
        return _am_call(W, j, now, True)
    return _am_call(W, j, _am_call(W, j, now, False), False)


@kernel_jit
def _run_start(W, j, t):
    """When the work of a task container allocated to job `j` at `t` starts: the AM takes
    it at its next allocate call (with a cycle), then launches it."""
    if _cycles(W, j):
        t = _am_call(W, j, t, False)
    return t + W[25][S.C_LAT]
