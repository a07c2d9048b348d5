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
    SS_DIM,
    SS_HI,
    SS_PRIO,
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
