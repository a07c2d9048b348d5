"""The Fair Scheduler's headroom takes the maxResources of the app's leaf queue alone
(FSAppAttempt.getHeadroom: ``fsQueue.getMaxShare()`` less the leaf's usage, then the
component-wise min with the cluster's free resources, then the leaf policy's cap), never
its parents', though its scheduler keeps every maximum up the tree when it assigns a
container (FSQueue.assignContainerPreCheck). A parent's cap the AM does not see makes it
ramp reduces up into room its maps then cannot have, and its headroom rule does not free
that room: only the unconditional rule does. By hand on both engines.
"""

from __future__ import annotations

from predictor_cases import timeline
from test_hanging_maps import FOUR_MAPS_RAMPED, attempts

from whatif import EffectiveAllocation, EffectiveQueue, ResourceLimit, Resources

#: Job j: four 2048 MB maps (10 s) and five 1024 MB reduces (5 s), 1 vcore each.
FOUR_MAPS = [("map", 10.0, 2048.0)] * 4 + [("reduce", 5.0, 1024.0)] * 5

#: At most 3 vcores (memory unbounded in effect).
THREE_VCORES = ResourceLimit(absolute=Resources(100000, 3))


def nested(p_max, a_max=None):
    """root.p (maxResources `p_max`) with one leaf, root.p.a (`a_max`, or none)."""
    a = EffectiveQueue("root.p.a", max_resources=a_max or ResourceLimit())
    p = EffectiveQueue("root.p", max_resources=p_max, children=(a,))
    return EffectiveAllocation(root=EffectiveQueue("root", children=(p,)))


def four_maps_in_p(engine, allocation):
    """`attempts` and the finish of job j (`FOUR_MAPS`) in root.p.a under `allocation`."""
    got, finish = attempts([("j", "root.p.a", 0.0, FOUR_MAPS)], allocation, engine)
    return got, finish["j"]


def test_a_parents_maximum_is_not_in_the_headroom(engine):
    """p has at most 3 vcores, its leaf a none. Two nodes of 3072 MB and 4 vcores; node 0
    heartbeats at 0, 1, 2, ..., node 1 at 0.5, 1.5, ...; one container each; reduces go
    ahead of maps; no AM container, setup, cleanup or reservation. a is the only active
    leaf: its fair share is the cluster's 6144 MB (the fair policy caps memory alone).
    - 0, 0.5: map_000 on node 0, map_001 on node 1; map_002 and map_003 fit neither;
    - 11 (map_000's end reported, 1 of 4 done): the headroom is min(4096 MB, 7 vcores
      free; a has no maximum; 6144 - 2048 under a's fair share) = (4096, 7), not p's
      3 - 1 = 2 vcores; the ramp-up asks for one reduce (as in test_reduce_rampup):
      004 at 11 on node 0;
    - 11.5 (2 of 4 done): map_002 on node 1; the limit, (3072 + 2048 + 1024, 6 + 1 + 1),
      x 0.5 = (3072, 4), less the running reduce: 2 more reduces. 005 at 12 on node 0;
      p is full (004, map_002, 005: 3 vcores), so 006 waits;
    - 21.5: map_002 ends, reported at 22.5 on node 1: 006 first (3 vcores again), then
      map_003 fits node 1's 2048 MB but not p. No map runs, one is unassigned, reduces
      wait for it: the AM's headroom rule asks whether a map fits its headroom, (3072,
      5) free and 6144 - 3072 under the fair share: it does, so no reduce is killed (with
      p's 3 - 3 = 0 vcores in it, it would kill one). The ramp-up asks for 007 (the rest
      of the limit (6144, 8) holds the map left), which p has no room for either;
    - 300: the map requests, made at 0, have waited mapreduce.job.reducer.unconditional-
      preempt.delay.sec: the AM withholds its reduce requests and kills min(max(2
      reduces for a map, 4 for half its limit (6144, 8)), 2 for the one hanging map) = 2
      of its newest waiting reduces, 006 and 005. 300.5: map_003 on node 1, the last map:
      the AM asks for its reduces again: 007 at 301 on node 0;
    - 310.5: map_003 ends, reported at 311.5: 004 and 007 (their 5 s past) end; 008 at
      311.5 on node 1 (004's and 007's containers are reported at 312), 006 at 312 on
      node 0, 005 at 312.5 on node 1, ending at 317.5, reported at 318.5: j finishes.
    The old model walked p's maximum into the headroom: no reduce at 11 or 11.5, every
    map assigned by 11.5, j done at 34, as with the cap on a itself (below)."""
    got, finish = four_maps_in_p(engine, nested(THREE_VCORES))
    assert got[:4] == FOUR_MAPS_RAMPED[:4]  # to 11.5 as in queue a alone
    assert got[4:] == timeline(
        """
        reduce_005   12.0  KILLED
        reduce_006   22.5  KILLED
        map_003     300.5  SUCCEEDED
        reduce_007  301.0  SUCCEEDED
        reduce_008  311.5  SUCCEEDED
        reduce_006  312.0  SUCCEEDED
        reduce_005  312.5  SUCCEEDED
        """
    )
    assert finish == 318.5


def test_the_leafs_own_maximum_is(engine):
    """The same cap on a itself (p uncapped): the AM sees it. At 11 the headroom is (4096,
    3 - 1 = 2), the limit (6144, 3), the reduces' ideal share floor(x 0.25) = (1536, 0):
    no reduce. map_002 at 11 on node 0 and map_003 at 11.5 on node 1: every map is
    assigned, the AM asks for all its reduces; a has 3 vcores: 004 at 12 on node 0. The
    maps end at 21 and 21.5, reported at 22 and 22.5 (004 ends then): 005 at 22, 006 at
    22.5, 007 at 23, ending 5 s later; 008 at 28 on node 0 once 005's end is reported,
    ending at 33, reported at 34: j finishes."""
    uncapped = ResourceLimit(absolute=Resources(100000, 100))
    got, finish = four_maps_in_p(engine, nested(uncapped, THREE_VCORES))
    maps = zip([f"map_00{i}" for i in range(4)], [0.0, 0.5, 11.0, 11.5], strict=True)
    reduces = zip([f"reduce_00{i}" for i in range(4, 9)], [12, 22, 22.5, 23, 28], strict=True)
    assert got == [(task, start, "SUCCEEDED") for task, start in [*maps, *reduces]]
    assert finish == 34.0
