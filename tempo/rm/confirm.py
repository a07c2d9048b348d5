"""Does the Fair Scheduler's live queue tree show a given allocation in force?

After writing an allocation file and asking the RM to reload it, tempo reads
``/ws/v1/cluster/scheduler`` and compares what the RM reports with what the new
effective allocation implies: the steady fair shares Hadoop computes from the
weights, minimum and maximum shares (`whatif.allocation.fairshare.fair_shares` on the
cluster size the RM reports), the minimum and maximum resources, maxApps and the
scheduling policy. Settings the REST API does not show (preemption timeouts and
thresholds, ACLs, placement rules) cannot be confirmed this way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tempo.rm.scheduler import QueueState, SchedulerState
from whatif.allocation import (
    EffectiveAllocation,
    EffectiveQueue,
    Resources,
    with_undeclared_queues,
)
from whatif.allocation.fairshare import fair_shares

#: What the RM reports as maxApps for "no limit".
UNLIMITED_APPS = 2**31 - 1


@dataclass(frozen=True)
class Tolerance:
    """How far a reported resource may be from the expected one and still match.

    A value matches when ``|reported - expected| <= max(absolute, relative * |expected|)``,
    per resource type (memory in MB).
    """

    relative: float = 0.01
    memory_mb: float = 64.0
    vcores: float = 1.0

    def close(self, reported: Resources, expected: Resources) -> bool:
        return self._near(reported.memory_mb, expected.memory_mb, self.memory_mb) and self._near(
            reported.vcores, expected.vcores, self.vcores
        )

    def _near(self, reported: float, expected: float, absolute: float) -> bool:
        if math.isinf(expected) or math.isinf(reported):
            return reported == expected
        return abs(reported - expected) <= max(absolute, self.relative * abs(expected))


#: 1 % or 64 MB / 1 vcore.
DEFAULT_TOLERANCE = Tolerance()


def scheduler_mismatches(
    state: SchedulerState,
    allocation: EffectiveAllocation,
    *,
    cluster: Resources | None = None,
    tolerance: Tolerance = DEFAULT_TOLERANCE,
    hadoop_version: int = 3,
) -> list[str]:
    """Every way the RM's queue tree differs from `allocation` (empty: it is in force)
    as an RM of Hadoop `hadoop_version` reports it (its maxima: `EffectiveQueue.max_share`).

    Queues the RM has and the allocation does not declare (created on the fly by a
    placement rule) are added to the expected tree with the defaults, as Hadoop
    creates them, since they take part in the fair-share computation. The cluster
    size is the RM's ``clusterResources`` unless `cluster` is given; without either,
    steady fair shares are not compared. Under a ``fair`` or ``fifo`` parent only the
    memory of a steady share is compared (Hadoop reports 0 vCores there).
    """
    reported = state.queues
    extra = [name for name, queue in reported.items() if queue.is_leaf and name != "root"]
    declared = {queue.name for queue in allocation.queues()}
    expected_tree = with_undeclared_queues(allocation, [n for n in extra if n not in declared])
    total = cluster or state.cluster_resources
    steady = (
        {} if total is None else fair_shares(expected_tree, total, hadoop_version=hadoop_version)
    )
    problems: list[str] = []
    policy_of_parent = {
        child.name: parent.scheduling_policy
        for parent in expected_tree.queues()
        for child in parent.children
    }
    for queue in expected_tree.queues():
        seen = reported.get(queue.name)
        if seen is None:
            problems.append(f"{queue.name}: not in the RM's queue tree")
            continue
        share = steady.get(queue.name)
        if share is not None and policy_of_parent.get(queue.name, "drf") != "drf":
            # The fair and fifo policies share memory only; Hadoop reports 0 vCores.
            share = Resources(share.memory_mb, 0.0)
        problems.extend(_compare(queue.name, seen, queue, share, total, tolerance, hadoop_version))
    return problems


def _compare(
    name: str,
    seen: QueueState,
    queue: EffectiveQueue,
    steady: Resources | None,
    total: Resources | None,
    tolerance: Tolerance,
    hadoop_version: int,
) -> list[str]:
    problems = []

    def check(label: str, got: Resources | None, want: Resources | None) -> None:
        if got is not None and want is not None and not tolerance.close(got, want):
            problems.append(
                f"{name}: {label} is {_show(got)}, expected {_show(want)} under the new allocation"
            )

    if name != "root":
        check("steadyFairResources", seen.steady_fair_resources, steady)
    check("minResources", seen.min_resources, queue.min_resources)
    if total is not None:
        maximum = queue.max_share(total, hadoop_version)
        check(
            "maxResources",
            seen.max_resources,
            Resources(min(maximum.memory_mb, total.memory_mb), min(maximum.vcores, total.vcores)),
        )
    want_apps = UNLIMITED_APPS if queue.max_running_apps is None else queue.max_running_apps
    if seen.max_apps is not None and seen.max_apps != want_apps:
        problems.append(f"{name}: maxApps is {seen.max_apps}, expected {want_apps}")
    if seen.policy is not None and seen.policy.lower() != queue.scheduling_policy:
        problems.append(
            f"{name}: schedulingPolicy is {seen.policy!r}, expected {queue.scheduling_policy!r}"
        )
    return problems


def _show(value: Resources) -> str:
    return f"<memory:{value.memory_mb:g}, vCores:{value.vcores:g}>"
