"""Live attempts' rows: an attempt's state while it holds a container lives in a row of
its own (its slot, ``AI_LIVE``) that it gives back when the container is released.

Every attempt keeps a record (``af``, ``ai``: its task, start, finish, state), the
schedule's; what only a live attempt needs (its outcome, list links, preemption mark,
node, heartbeat end) is in ``lf``/``li`` by slot, so those rows scale with the
containers held at once, not with every attempt the run starts: at 1M tasks that is
56 bytes an attempt less, about 60 MB. An ended attempt's slot is 0, a row no live
attempt is given, so that a stray write through it (an attempt's list links reset after
its release) touches no live attempt; what reads an attempt's live state checks first
that it is running. The engine grows the rows (`CompiledEngine._grow`) when fewer than
a container per possible allocation are free (`advance` returns 1 first).
"""

from __future__ import annotations

from whatif.predictor.kernel import state as S
from whatif.predictor.kernel.caching import kernel_jit

#: The row of every ended attempt (never handed out).
ENDED = 0


@kernel_jit
def _take_live_row(W, a):
    """Give attempt `a`, starting, a free live row: the last one given back, else a new one."""
    gi, lfree = W[24], W[53]
    if gi[S.GI_LIVE_FREE] > 0:
        gi[S.GI_LIVE_FREE] -= 1
        slot = lfree[gi[S.GI_LIVE_FREE]]
    else:
        slot = gi[S.GI_LIVE_TOP]
        gi[S.GI_LIVE_TOP] = slot + 1
    W[20][a, S.AI_LIVE] = slot
    return slot


@kernel_jit
def _give_live_row(W, a):
    """Attempt `a`'s container is released: its live row is free again."""
    gi, lfree = W[24], W[53]
    lfree[gi[S.GI_LIVE_FREE]] = W[20][a, S.AI_LIVE]
    gi[S.GI_LIVE_FREE] += 1
    W[20][a, S.AI_LIVE] = ENDED


@kernel_jit
def _live_rows_room(W):
    """How many attempts could start before the live rows run out."""
    gi = W[24]
    return W[51].shape[0] - gi[S.GI_LIVE_TOP] + gi[S.GI_LIVE_FREE]
