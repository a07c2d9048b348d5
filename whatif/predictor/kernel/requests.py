"""What an app asks for next: its released stage with pending tasks of the best priority
in a dimension, and that stage's next task.
"""

from __future__ import annotations

from whatif.predictor.kernel.caching import kernel_jit
from whatif.predictor.kernel.state import (
    JS_ST_HI,
    JS_ST_LO,
    SI_HELD,
    SI_NEXT,
    SI_PENDING,
    SI_RELEASED,
    SI_RETRY_HEAD,
    SI_RETRY_TAIL,
    SS_DIM,
    SS_HI,
    SS_JT,
    SS_PRIO,
    TI_RETRY_NEXT,
)


@kernel_jit
def _next_stage(W, j, d):
    js, ss, si = W[6], W[12], W[14]
    best = -1
    for s in range(js[j, JS_ST_LO], js[j, JS_ST_HI]):
        if (
            si[s, SI_RELEASED] == 1
            and si[s, SI_HELD] == 0
            and si[s, SI_PENDING] > 0
            and ss[s, SS_DIM] == d
            and ss[s, SS_JT] == 0
        ):
            if best < 0 or ss[s, SS_PRIO] < ss[best, SS_PRIO]:
                best = s
    return best


@kernel_jit
def _head_task(W, s):
    ss, si = W[12], W[14]
    if si[s, SI_NEXT] < ss[s, SS_HI]:
        return si[s, SI_NEXT]
    return si[s, SI_RETRY_HEAD]


@kernel_jit
def _take_head(W, s):
    """Take stage `s`'s next task (`_head_task`) off its unassigned tasks."""
    ss, si, ti = W[12], W[14], W[18]
    if si[s, SI_NEXT] < ss[s, SS_HI]:
        task = si[s, SI_NEXT]
        si[s, SI_NEXT] += 1
        return task
    task = si[s, SI_RETRY_HEAD]
    nxt = ti[task, TI_RETRY_NEXT]
    si[s, SI_RETRY_HEAD] = nxt
    if nxt < 0:
        si[s, SI_RETRY_TAIL] = -1
    return task
