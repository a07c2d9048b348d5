"""The compiled engine: ``@kernel_jit`` (``njit(cache=True)``) functions over arrays and scalars.

The reference engine (``whatif/predictor/reference/``) is its slow, obvious twin: each
module below that models scheduling has a module of the same name there that follows
the same steps, and the tests compare the two engines' schedules.

Modules, by concept (each says what it models, and the Hadoop rules it follows):

- ``loop``: the main loop (the clock jumps from event to event) and the entry points
  `advance`, `rebuild_queue_state`, `promote_waiting`;
- ``events``: the event queue (a 4-ary heap) and the clock's grids and timeouts;
- ``heartbeats``: node heartbeats, when each is scheduled and when an end is reported;
- ``allocation``: assigning containers or slots, on the cluster or a heartbeating node;
- ``continuous``: YARN continuous scheduling passes between heartbeats;
- ``jobtracker``: Hadoop 1's JobTracker handing out setup and cleanup tasks first;
- ``locality``: Hadoop 1 delay scheduling (maps by split location, jobs waiting for one);
- ``allocate_cycle``: the MapReduce AM's allocate calls (requests and containers);
- ``fairshare``: fair shares of queues and of a leaf's apps;
- ``ordering``: the policies' comparators (fair, drf, fifo);
- ``queues``: queue usage, pending demand, runnable counts, maxResources;
- ``phases``: MapReduce job phases: submission, AM, stages and slowstart, attempts,
  job end, and the MapReduce AM's reduce ramp-down and ramp-up;
- ``preemption``: Hadoop 3 starvation and preemption; ``claims``: what Hadoop 3
  preempts for an app, claimed by it on the victim's node; ``preemption_v12``: Hadoop 1
  and 2; ``livelock``: ending a run whose preemption cycles;
- ``capacity``: the Capacity Scheduler mode (``C_CS``): which child queue goes first,
  the leaf, user and AM limits, admission at submission; ``capacity_preemption``: its
  preemption monitor (ProportionalCapacityPreemptionPolicy: ideal allocation, victims,
  marks and kills); ``capacity_locality``: its delay scheduling (node-locality-delay,
  rack-locality-additional-delay) for maps with split locations;
- speed structures with no twin: ``apptree`` (app order trees), ``starvation``
  (Hadoop 3 re-check ring and min-share list), ``victims`` (containers preemption may
  take), ``requests`` (an app's next request), ``blocked_lists`` (blocked jobs the AM's
  reduce preemption passes over), ``lists`` (linked lists), ``live_rows``
  (a running attempt's state in a row recycled at its release: memory for the containers
  held at once, not for every attempt);
- ``state``: the arrays' layout, which every module reads as ``S`` (``S.JF_USE``: numba
  freezes a module's constants as it does a global's); ``resources``: Java arithmetic
  and resource comparisons; ``caching``: numba's cache, stamped with every kernel source.

This package re-exports the layout constants (all of ``state``) and the entry points,
which is what the numba engine's Python side (``compiled.py``) reads.

Speed (none of this changes a schedule; the reference engine scans plainly): apps of a
leaf are ranked by a tournament tree per view (`_tree_put`), so the best app is read at
the root and only apps whose usage or demand changed are re-ranked; in `fair` leaves
without size-based weights each node keeps its winner's sort key (`_put_key`), so
ranking reads adjacent tree rows, not app rows; runnable apps hold recycled slots, so
the trees are only as deep as the apps runnable at once (`_take_slot`); each node also
keeps the smallest next request below it, so allocation skips apps whose request cannot
fit without trying them one by one (`_tree_best_fit`), and each leaf lists the apps whose
next request could reserve a node, which the reservation scans walk instead of every app
(`_list_big`); only jobs that can preempt their
own reduces are checked each event (`_red_refresh`), and of those a job without an
allocate cycle that would not act sleeps until its state changes, a timed rule's time
comes or its leaf's headroom has no room for the largest request of the leaf's sleepers
(`blocked_lists`); victim scans walk only unmarked
task containers their app could give up alone, merged newest first from per-app
container lists (oldest first) only as far as the scans read, over the apps holding any
(kept packed with their leaf and usage in `hold`, so most are passed over without
reading their rows), and resume where the previous scan for the same request took its
first victim (`_victims_for`, `_victim_candidates`, `_cand_at`); a check reads a
leaf's apps from its tree in policy order only as far as its scans go, the re-check
times ahead from a ring in time order and the min-share amounts to reset from the list
of nonzero ones (`_preempt_v3`); alike apps'
fair shares cost one multiplication per bisection round (`_planned`), and an alike leaf
keeps one share for all its apps (`_app_fair`); a `fair` parent whose children all weigh
more than zero ranks them by a key, chosen with selects (`_best_child_fair`); the parked
nodes only a reservation could take are a list of their own, passed over while no app
can reserve (`resting._park`), and a node whose heartbeat grid has the current time is
found from the time, not by a walk (`heartbeats._parked_on_grid`); the event
heap is 4-ary, keyed by `ordered_bits(time)`, its four children picked as two pairs, and
comparisons whose outcome is unpredictable (heap children, tree siblings) are written
with non-short-circuit `&`/`|` and compile to selects, which LLVM is told not to turn
back into branches (the option below the imports); tree nodes keep requests and keys as
integers of the same order (`world.ordered_bits`), since only integer choices compile to
selects, and a keyed re-rank carries the path's winner and key in registers, loading
only each sibling (`_rerank_keyed`); a walk for the best eligible or fitting app
descends a passed-over app's path without comparing it again (`_order_next`,
`_tree_best_fit`); rows read after a long gap are prefetched (`world.prefetch`): a
stage's next tasks when one starts, the attempt, task and job of the next event when one
is popped (heap entries carry them); a tree walk climbs in one shift by the count of
trailing ones (`_preorder_next`); keyed trees compare apps' start time and name as one
precomputed rank (`JS_ORDER`); the newest unmarked container is the highest bit of a
bitset over attempts (`_newest_unmarked`); and the entry points pass their arrays
borrowed and by pointer (``world.py``), each array read through the pointer with a
constant null handle: numba passes a tuple by value, and copying and reference counting
the world at every call took most of the time.
"""

from __future__ import annotations

from whatif.predictor.kernel.apptree import _preorder_next as _preorder_next
from whatif.predictor.kernel.events import _grid_at_or_after as _grid_at_or_after
from whatif.predictor.kernel.loop import advance as advance
from whatif.predictor.kernel.loop import promote_waiting as promote_waiting
from whatif.predictor.kernel.loop import rebuild_queue_state as rebuild_queue_state
from whatif.predictor.kernel.state import *  # noqa: F403 (the layout constants)
