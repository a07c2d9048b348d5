"""The REST bodies the emulated ResourceManager serves, rendered from a simulation snapshot.

Pure functions from a `Snapshot` (the simulation's state at one trace time, with
Hadoop ids attached) and the request's query parameters to the decoded JSON body
of the real endpoint, in the shapes of Hadoop 2/3 (``../shared/data/hadoop/rest/``)
that `tempo.rm` and `whatif.readers.rest` parse.

Ids follow Hadoop's: with cluster timestamp ``C`` and the job's number ``N`` in
submission order, ``application_C_N``, ``job_C_N``, ``task_C_N_m_000003``,
``attempt_C_N_m_000003_0``, ``container_C_N_01_000002`` (the AM is container 1).
Tasks of any stage other than ``reduce`` are reported as MAP tasks. Times are epoch
milliseconds: trace time plus the emulator's epoch offset.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from whatif.allocation import EffectiveAllocation, EffectiveQueue, Resources
from whatif.cluster import Cluster, Node

#: A decoded JSON body.
JSON = dict[str, Any]

#: What the RM reports as "no limit" for maxApps (Java's Integer.MAX_VALUE).
UNLIMITED_APPS = 2**31 - 1

#: Hadoop version string the emulator reports.
EMULATED_VERSION = {2: "2.10.2", 3: "3.3.6"}


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The emulated cluster at trace time ``trace_s``, ready to render.

    ``jobs``: the schedule's jobs submitted by then plus ``number``, ``app_id``,
    ``hadoop_job_id``, ``name``, ``maps_total``, ``reduces_total``;
    ``attempts``: the schedule's attempts plus ``hadoop_task_id``,
    ``hadoop_attempt_id``, ``container_id``, ``task_type`` (MAP/REDUCE/AM), ``queue``;
    ``tasks``: the workload's tasks of those jobs plus ``hadoop_task_id`` and
    ``task_type``; ``queues``: the simulation's queue table; ``steady``: steady fair
    shares of ``allocation`` on the cluster; ``nodes``: the NodeManagers reported RUNNING
    when they are not the cluster's own (`tempo.rm.emulator.EmulatedRM.set_nodes`).
    """

    trace_s: float
    epoch_offset_s: float
    cluster_ts: int
    hadoop_version: int
    cluster: Cluster
    jobs: pd.DataFrame
    attempts: pd.DataFrame
    tasks: pd.DataFrame
    queues: pd.DataFrame
    allocation: EffectiveAllocation
    steady: Mapping[str, Resources]
    nodes: Cluster | None = None

    def ms(self, trace_s: float) -> int:
        """A trace time as epoch milliseconds; 0 for "not yet" (NaN)."""
        if not math.isfinite(trace_s):
            return 0
        return int(round((trace_s + self.epoch_offset_s) * 1000.0))

    @property
    def now_ms(self) -> int:
        return self.ms(self.trace_s)

    @cached_property
    def attempts_by_job(self) -> dict[Hashable, pd.DataFrame]:
        """Attempts per (workload) job id."""
        return {key: group for key, group in self.attempts.groupby("job_id", sort=False)}

    @cached_property
    def tasks_by_job(self) -> dict[Hashable, pd.DataFrame]:
        """Workload tasks per (workload) job id."""
        return {key: group for key, group in self.tasks.groupby("job_id", sort=False)}

    @cached_property
    def finished_jobs(self) -> pd.DataFrame:
        """Jobs that have finished, indexed by Hadoop job id (what the JobHistory Server knows)."""
        jobs: pd.DataFrame = self.jobs[np.isfinite(self.jobs["finish_s"].to_numpy(dtype=float))]
        done = self.attempts[(self.attempts["state"] == "SUCCEEDED") & ~self.attempts["is_am"]]
        counts = pd.crosstab(done["job_id"], done["task_type"]).reindex(
            index=jobs["job_id"], columns=["MAP", "REDUCE"], fill_value=0
        )
        return jobs.assign(
            maps_completed=counts["MAP"].to_numpy(), reduces_completed=counts["REDUCE"].to_numpy()
        ).set_index("hadoop_job_id", drop=False)

    def empty_attempts(self) -> pd.DataFrame:
        return self.attempts.head(0)


def _first(query: Mapping[str, list[str]], key: str) -> str | None:
    values = query.get(key)
    return values[0] if values else None


def _number(query: Mapping[str, list[str]], key: str) -> float | None:
    value = _first(query, key)
    if value is None or value.strip() == "":
        return None
    try:
        return float(value)
    except ValueError:
        raise QueryError(f"{key}: expected a number, got {value!r}") from None


def _states(query: Mapping[str, list[str]], key: str) -> set[str] | None:
    values = query.get(key)
    if not values:
        return None
    return {s.strip().upper() for v in values for s in v.split(",") if s.strip()}


class QueryError(ValueError):
    """A query parameter the real RM would answer with HTTP 400."""


def _in_range(
    values_ms: np.ndarray, query: Mapping[str, list[str]], begin: str, end: str
) -> np.ndarray:
    keep = np.ones(len(values_ms), dtype=bool)
    low, high = _number(query, begin), _number(query, end)
    if low is not None:
        keep &= values_ms >= low
    if high is not None:
        keep &= values_ms <= high
    return keep


def _rows(frame: pd.DataFrame) -> Iterator[Any]:
    """``frame.itertuples(index=False)``: one namedtuple per row with the frame's columns as
    fields. Typed Any: pandas-stubs types every field as the union of all pandas scalars,
    while each column here holds one known type (see `Snapshot`)."""
    return frame.itertuples(index=False)


# --------------------------------------------------------------------------- ResourceManager


def _job_usage(snap: Snapshot) -> pd.DataFrame:
    """Per job: allocated MB/vcores and running containers now, memory- and vcore-seconds so far."""
    att = snap.attempts
    running = att["state"].to_numpy() == "RUNNING"
    end = np.where(running, snap.trace_s, att["finish_s"].to_numpy(dtype=float))
    span = np.clip(end - att["start_s"].to_numpy(dtype=float), 0.0, None)
    frame = pd.DataFrame(
        {
            "job_id": att["job_id"].to_numpy(dtype=object),
            "allocated_mb": np.where(running, att["memory_mb"].to_numpy(dtype=float), 0.0),
            "allocated_vcores": np.where(running, att["vcores"].to_numpy(dtype=float), 0.0),
            "running": running.astype(int),
            "memory_s": span * att["memory_mb"].to_numpy(dtype=float),
            "vcore_s": span * att["vcores"].to_numpy(dtype=float),
            "preempted": att["preempted"].to_numpy(dtype=bool).astype(int),
            "preempted_mb": np.where(
                att["preempted"].to_numpy(dtype=bool), att["memory_mb"].to_numpy(dtype=float), 0.0
            ),
            "preempted_vcores": np.where(
                att["preempted"].to_numpy(dtype=bool), att["vcores"].to_numpy(dtype=float), 0.0
            ),
            "preempted_memory_s": np.where(
                att["preempted"].to_numpy(dtype=bool),
                span * att["memory_mb"].to_numpy(dtype=float),
                0.0,
            ),
            "preempted_vcore_s": np.where(
                att["preempted"].to_numpy(dtype=bool),
                span * att["vcores"].to_numpy(dtype=float),
                0.0,
            ),
        }
    )
    return frame.groupby("job_id", sort=False).sum()


def _rm_state(state: str) -> tuple[str, str]:
    """(RM ``state``, ``finalStatus``) of a schedule job state."""
    if state == "RUNNING":
        return "RUNNING", "UNDEFINED"
    if state == "PENDING":
        return "ACCEPTED", "UNDEFINED"
    if state == "SUCCEEDED":
        return "FINISHED", "SUCCEEDED"
    return state, state  # FAILED, KILLED


def app_records(snap: Snapshot) -> list[JSON]:
    """Every submitted application as the RM reports it in ``apps.app[]``."""
    jobs = snap.jobs
    usage = _job_usage(snap).reindex(jobs["job_id"].to_numpy(dtype=object), fill_value=0.0)
    total_mb = max(snap.cluster.memory_mb, 1.0)
    queue_used = snap.queues.set_index("queue")["usage_memory_mb"].to_dict()
    records = []
    for row, use in zip(_rows(jobs), _rows(usage), strict=True):
        state, final = _rm_state(row.state)
        finished = math.isfinite(row.finish_s)
        end = row.finish_s if finished else snap.trace_s
        record = {
            "id": row.app_id,
            "user": row.user,
            "name": row.name,
            "queue": row.queue,
            "state": state,
            "finalStatus": final,
            "progress": 100.0 if finished else 0.0,
            "trackingUI": "History" if finished else "ApplicationMaster",
            "trackingUrl": f"http://emulated-rm/proxy/{row.app_id}/",
            "diagnostics": "",
            "clusterId": snap.cluster_ts,
            "applicationType": "MAPREDUCE",
            "applicationTags": "",
            "priority": 0,
            "applicationPriority": 0,
            "appNodeLabelExpression": "",
            "amNodeLabelExpression": "",
            "startedTime": snap.ms(row.submit_s),
            "finishedTime": snap.ms(row.finish_s),
            "elapsedTime": int(round(max(end - row.submit_s, 0.0) * 1000.0)),
            "amContainerLogs": f"http://emulated-node:8042/node/containerlogs/container_{snap.cluster_ts}_{row.number:04d}_01_000001",
            "amHostHttpAddress": "emulated-node:8042",
            "allocatedMB": int(use.allocated_mb),
            "allocatedVCores": int(use.allocated_vcores),
            "runningContainers": int(use.running),
            "memorySeconds": int(round(use.memory_s)),
            "vcoreSeconds": int(round(use.vcore_s)),
            "queueUsagePercentage": (
                100.0 * use.allocated_mb / queue_used[row.queue]
                if queue_used.get(row.queue, 0.0) > 0
                else 0.0
            ),
            "clusterUsagePercentage": 100.0 * use.allocated_mb / total_mb,
            "preemptedResourceMB": int(use.preempted_mb),
            "preemptedResourceVCores": int(use.preempted_vcores),
            "numNonAMContainerPreempted": int(use.preempted),
            "numAMContainerPreempted": 0,
            "unmanagedApplication": False,
        }
        if snap.hadoop_version >= 3:
            record["launchTime"] = snap.ms(row.launch_s)
            record["preemptedMemorySeconds"] = int(round(use.preempted_memory_s))
            record["preemptedVcoreSeconds"] = int(round(use.preempted_vcore_s))
        records.append(record)
    return records


def apps(snap: Snapshot, query: Mapping[str, list[str]]) -> JSON:
    """``GET /ws/v1/cluster/apps`` with the RM's filters.

    ``states``, ``finalStatus``, ``user``, ``queue`` (as on the RM: matches only
    unfinished apps), ``applicationTypes``, ``applicationTags``,
    ``startedTimeBegin/End``, ``finishedTimeBegin/End`` (inclusive, epoch ms),
    ``limit``; ``deSelects`` is accepted and changes nothing (no resource requests
    are reported).
    """
    records = app_records(snap)
    states = _states(query, "states") or _states(query, "state")
    final = _states(query, "finalStatus")
    types = _states(query, "applicationTypes")
    user, queue = _first(query, "user"), _first(query, "queue")
    started = np.array([r["startedTime"] for r in records], dtype=float)
    finished = np.array([r["finishedTime"] for r in records], dtype=float)
    keep = _in_range(started, query, "startedTimeBegin", "startedTimeEnd")
    if (
        _number(query, "finishedTimeBegin") is not None
        or _number(query, "finishedTimeEnd") is not None
    ):
        keep &= finished > 0
        keep &= _in_range(finished, query, "finishedTimeBegin", "finishedTimeEnd")
    selected = []
    for record, ok in zip(records, keep, strict=True):
        if not ok:
            continue
        if states is not None and record["state"] not in states:
            continue
        if final is not None and record["finalStatus"] not in final:
            continue
        if types is not None and record["applicationType"] not in types:
            continue
        if user is not None and record["user"] != user:
            continue
        if queue is not None:
            wanted = queue if queue.startswith("root.") or queue == "root" else f"root.{queue}"
            if record["queue"] != wanted or record["state"] in ("FINISHED", "FAILED", "KILLED"):
                continue
        if query.get("applicationTags"):
            continue  # no emulated application carries tags
        selected.append(record)
    limit = _number(query, "limit")
    if limit is not None and limit >= 0:
        selected = selected[: int(limit)]
    return {"apps": {"app": selected} if selected else None}


def app_attempts(snap: Snapshot, app_id: str) -> JSON | None:
    """``GET /ws/v1/cluster/apps/{id}/appattempts``; None for an unknown application."""
    match = snap.jobs[snap.jobs["app_id"] == app_id]
    if match.empty:
        return None
    job = match.iloc[0]
    number = int(job["number"])
    mine = snap.attempts_by_job.get(job["job_id"], snap.empty_attempts())
    am = mine[mine["is_am"].to_numpy(dtype=bool)]
    start = float(am["start_s"].min()) if not am.empty else float(job["launch_s"])
    if not math.isfinite(start):
        return {"appAttempts": None}
    finished = math.isfinite(float(job["finish_s"]))
    attempt = {
        "id": 1,
        "startTime": snap.ms(start),
        "finishedTime": snap.ms(float(job["finish_s"])),
        "containerId": f"container_{snap.cluster_ts}_{number:04d}_01_000001",
        "nodeHttpAddress": "emulated-node:8042",
        "nodeId": "emulated-node:45454",
        "logsLink": f"http://emulated-node:8042/node/containerlogs/container_{snap.cluster_ts}_{number:04d}_01_000001",
        "blacklistedNodes": "",
        "appAttemptId": f"appattempt_{snap.cluster_ts}_{number:04d}_000001",
        "appAttemptState": "FINISHED" if finished else "RUNNING",
    }
    return {"appAttempts": {"appAttempt": [attempt]}}


def _res(memory_mb: float, vcores: float) -> JSON:
    return {
        "memory": int(round(min(memory_mb, 2**63 - 1))),
        "vCores": int(round(min(vcores, 2**31 - 1))),
    }


def _row(table: pd.DataFrame, queue: str) -> pd.Series | None:
    """The row of a table indexed by queue name (one row per queue); None when absent."""
    if queue not in table.index:
        return None
    row = table.loc[queue]
    assert isinstance(row, pd.Series), f"{queue}: more than one row"
    return row


def _resources(value: Resources) -> JSON:
    return _res(value.memory_mb, value.vcores)


def scheduler(snap: Snapshot) -> JSON:
    """``GET /ws/v1/cluster/scheduler``: the Fair Scheduler queue tree in force.

    Per queue: min and max resources of the effective allocation (an unlimited max
    is reported as the cluster size, as the RM does), used, demand (used plus
    pending) and instantaneous fair resources from the simulation, steady fair
    resources from `whatif.allocation.fairshare.fair_shares` (under a ``fair`` or ``fifo``
    parent only memory is shared, so their vCores are 0, as Hadoop reports them),
    maxApps (2147483647 for no limit), policy, preemptable; leaves add AM used/max resources and active and
    pending app counts.
    """
    cluster = Resources(snap.cluster.memory_mb, snap.cluster.vcores)
    jobs = snap.jobs
    unfinished = jobs[~np.isfinite(jobs["finish_s"].to_numpy(dtype=float))]
    running = snap.attempts[snap.attempts["state"] == "RUNNING"]
    am = running[running["is_am"].to_numpy(dtype=bool)]
    tree = _QueueTree(
        snap=snap,
        cluster=cluster,
        table=snap.queues.set_index("queue"),
        waiting=unfinished.groupby("queue", sort=False).size().to_dict(),
        am_used=am.groupby("queue")[["memory_mb", "vcores"]].sum(),
        containers={str(q): int(n) for q, n in running.groupby("queue").size().items()},
    )
    root = tree.render(snap.allocation.root, "fair")
    return {"scheduler": {"schedulerInfo": {"type": "fairScheduler", "rootQueue": root}}}


@dataclass(frozen=True)
class _QueueTree:
    """What `scheduler` renders each queue from: the simulation's queue table, unfinished
    jobs, AM usage and running containers per queue."""

    snap: Snapshot
    cluster: Resources
    table: pd.DataFrame
    waiting: Mapping[Hashable, int]
    am_used: pd.DataFrame
    containers: Mapping[str, int]

    def render(self, queue: EffectiveQueue, parent_policy: str) -> JSON:
        """One queue's ``queue`` object, its children's nested."""
        snap, cluster = self.snap, self.cluster
        row = _row(self.table, queue.name)

        def column(name: str) -> float:
            return float(row[name]) if row is not None else 0.0

        used = (column("usage_memory_mb"), column("usage_vcores"))
        demand = (used[0] + column("pending_memory_mb"), used[1] + column("pending_vcores"))
        fair = (column("fair_memory_mb"), column("fair_vcores"))
        if queue.name == "root":
            fair = (cluster.memory_mb, cluster.vcores)
        maximum = queue.max_share(cluster, snap.hadoop_version)
        steady = snap.steady.get(queue.name, Resources.zero())
        if queue.name != "root" and parent_policy != "drf":
            # Hadoop's fair and fifo policies compute shares of memory only: vCores are 0.
            fair, steady = (fair[0], 0.0), Resources(steady.memory_mb, 0.0)
        info: JSON = {
            "queueName": queue.name,
            "schedulingPolicy": queue.scheduling_policy,
            "maxApps": UNLIMITED_APPS
            if queue.max_running_apps is None
            else int(queue.max_running_apps),
            "minResources": _resources(queue.min_resources),
            "maxResources": _res(
                min(maximum.memory_mb, cluster.memory_mb), min(maximum.vcores, cluster.vcores)
            ),
            "usedResources": _res(*used),
            "demandResources": _res(*demand),
            "steadyFairResources": _resources(steady),
            "fairResources": _res(*fair),
            "clusterResources": _resources(cluster),
            "reservedResources": _res(0.0, 0.0),
            "preemptable": bool(queue.allow_preemption_from),
        }
        if snap.hadoop_version >= 3:
            info["allocatedContainers"] = int(
                sum(
                    n
                    for q, n in self.containers.items()
                    if q == queue.name or q.startswith(queue.name + ".")
                )
            )
        if queue.children:
            info["childQueues"] = {
                "queue": [self.render(child, queue.scheduling_policy) for child in queue.children]
            }
            return info
        info.update(self._leaf(queue, int(column("runnable_apps")), fair))
        return info

    def _leaf(self, queue: EffectiveQueue, runnable: int, fair: tuple[float, float]) -> JSON:
        """A leaf's app counts and AM resources."""
        amu = _row(self.am_used, queue.name)
        share = queue.max_am_share
        return {
            "type": "fairSchedulerLeafQueueInfo",
            "numActiveApps": runnable,
            "numPendingApps": max(int(self.waiting.get(queue.name, 0)) - runnable, 0),
            "amUsedResources": _res(
                float(amu["memory_mb"]) if amu is not None else 0.0,
                float(amu["vcores"]) if amu is not None else 0.0,
            ),
            "amMaxResources": _res(
                fair[0] * share if share >= 0 else self.cluster.memory_mb,
                fair[1] * share if share >= 0 else self.cluster.vcores,
            ),
        }


def nodes(snap: Snapshot) -> JSON:
    """``GET /ws/v1/cluster/nodes``: every NodeManager RUNNING with its whole capability
    (``totalResource``, and used + available as Hadoop 2 reports it; used is the share of
    the running containers, spread evenly: the emulator does not place them). A cluster
    given as one pool is one node. With ``snap.nodes`` set, those are the RUNNING ones and
    the cluster's other nodes are listed LOST, as an RM lists a node that stopped
    heartbeating (it lists nodes of every state unless asked for some)."""
    running = snap.attempts[snap.attempts["state"] == "RUNNING"]
    members = _members(snap.nodes or snap.cluster)
    reported = {node.name for node in members}
    lost = [node for node in _members(snap.cluster) if node.name not in reported]
    used_mb = float(running["memory_mb"].sum()) / len(members)
    used_vcores = float(running["vcores"].sum()) / len(members)
    return {
        "nodes": {
            "node": [_node(node, "RUNNING", used_mb, used_vcores) for node in members]
            + [_node(node, "LOST", 0.0, 0.0) for node in lost]
        }
    }


def _members(cluster: Cluster) -> tuple[Node, ...]:
    return cluster.nodes or (Node("emulated-node", cluster.memory_mb, cluster.vcores),)


def _node(node: Node, state: str, used_mb: float, used_vcores: float) -> JSON:
    """One NodeManager of ``/ws/v1/cluster/nodes``, using at most its size."""
    used_mb, used_vcores = min(used_mb, node.memory_mb), min(used_vcores, node.vcores)
    return {
        "rack": node.rack or "/default-rack",
        "state": state,
        "id": f"{node.name}:8041",
        "nodeHostName": node.name,
        "nodeHTTPAddress": f"{node.name}:8042",
        "usedMemoryMB": int(round(used_mb)),
        "availMemoryMB": int(round(node.memory_mb - used_mb)),
        "usedVirtualCores": int(round(used_vcores)),
        "availableVirtualCores": int(round(node.vcores - used_vcores)),
        "totalResource": {"memory": int(round(node.memory_mb)), "vCores": int(round(node.vcores))},
    }


def metrics(snap: Snapshot) -> JSON:
    """``GET /ws/v1/cluster/metrics``: cluster size, allocation and app counts now."""
    running = snap.attempts[snap.attempts["state"] == "RUNNING"]
    allocated_mb = float(running["memory_mb"].sum())
    allocated_vcores = float(running["vcores"].sum())
    states = snap.jobs["state"]
    nodes = max(len(snap.cluster.nodes), 1)
    return {
        "clusterMetrics": {
            "appsSubmitted": len(snap.jobs),
            "appsCompleted": int((states == "SUCCEEDED").sum()),
            "appsPending": int((states == "PENDING").sum()),
            "appsRunning": int((states == "RUNNING").sum()),
            "appsFailed": int((states == "FAILED").sum()),
            "appsKilled": int((states == "KILLED").sum()),
            "reservedMB": 0,
            "availableMB": int(round(snap.cluster.memory_mb - allocated_mb)),
            "allocatedMB": int(round(allocated_mb)),
            "reservedVirtualCores": 0,
            "availableVirtualCores": int(round(snap.cluster.vcores - allocated_vcores)),
            "allocatedVirtualCores": int(round(allocated_vcores)),
            "containersAllocated": len(running),
            "containersReserved": 0,
            "containersPending": 0,
            "totalMB": int(round(snap.cluster.memory_mb)),
            "totalVirtualCores": int(round(snap.cluster.vcores)),
            "totalNodes": nodes,
            "lostNodes": 0,
            "unhealthyNodes": 0,
            "decommissionedNodes": 0,
            "rebootedNodes": 0,
            "activeNodes": nodes,
        }
    }


def cluster_info(snap: Snapshot, started_s: float) -> JSON:
    """``GET /ws/v1/cluster/info`` (``/ws/v1/cluster``): an active, started RM."""
    version = EMULATED_VERSION.get(snap.hadoop_version, EMULATED_VERSION[3])
    return {
        "clusterInfo": {
            "id": snap.cluster_ts,
            "startedOn": snap.ms(started_s),
            "state": "STARTED",
            "haState": "ACTIVE",
            "resourceManagerVersion": f"{version} (tempo emulated RM)",
            "hadoopVersion": f"{version} (tempo emulated RM)",
        }
    }


# --------------------------------------------------------------------------- JobHistory Server

_JHS_STATE = {"SUCCEEDED": "SUCCEEDED", "FAILED": "FAILED", "KILLED": "KILLED"}


def _job_record(snap: Snapshot, row: Any) -> JSON:
    return {
        "id": row.hadoop_job_id,
        "name": row.name,
        "queue": row.queue,
        "user": row.user,
        "state": _JHS_STATE.get(row.state, "SUCCEEDED"),
        "submitTime": snap.ms(float(row.submit_s)),
        "startTime": snap.ms(float(row.launch_s)),
        "finishTime": snap.ms(float(row.finish_s)),
        "mapsTotal": int(row.maps_total),
        "mapsCompleted": int(row.maps_completed),
        "reducesTotal": int(row.reduces_total),
        "reducesCompleted": int(row.reduces_completed),
        "uberized": False,
    }


def jhs_jobs(snap: Snapshot, query: Mapping[str, list[str]]) -> JSON:
    """``GET /ws/v1/history/mapreduce/jobs``: finished jobs only, with the JHS filters.

    ``user``, ``state``, ``queue``, ``limit``, ``startedTimeBegin/End``,
    ``finishedTimeBegin/End`` (inclusive, epoch ms).
    """
    records = [_job_record(snap, row) for row in _rows(snap.finished_jobs)]
    started = np.array([r["startTime"] for r in records], dtype=float)
    finished = np.array([r["finishTime"] for r in records], dtype=float)
    keep = _in_range(started, query, "startedTimeBegin", "startedTimeEnd")
    keep &= _in_range(finished, query, "finishedTimeBegin", "finishedTimeEnd")
    user, state, queue = _first(query, "user"), _first(query, "state"), _first(query, "queue")
    selected = [
        r
        for r, ok in zip(records, keep, strict=True)
        if ok
        and (user is None or r["user"] == user)
        and (state is None or r["state"] == state.upper())
        and (queue is None or r["queue"] in (queue, f"root.{queue}"))
    ]
    limit = _number(query, "limit")
    if limit is not None and limit >= 0:
        selected = selected[: int(limit)]
    return {"jobs": {"job": selected} if selected else None}


def _job(snap: Snapshot, job_id: str) -> Any | None:
    jobs = snap.finished_jobs
    if job_id not in jobs.index:
        return None
    return next(_rows(jobs.loc[[job_id]]))


def jhs_job(snap: Snapshot, job_id: str) -> JSON | None:
    """``GET .../jobs/{id}``; None for a job the history server does not have."""
    row = _job(snap, job_id)
    return None if row is None else {"job": _job_record(snap, row)}


def jhs_tasks(snap: Snapshot, job_id: str, query: Mapping[str, list[str]]) -> JSON | None:
    """``GET .../jobs/{id}/tasks[?type=m|r]``; None for an unknown job."""
    row = _job(snap, job_id)
    if row is None:
        return None
    tasks = snap.tasks_by_job.get(row.job_id, snap.tasks.iloc[:0])
    kind = _first(query, "type")
    if kind is not None:
        wanted = {"m": "MAP", "r": "REDUCE"}.get(kind.strip().lower())
        if wanted is None:
            raise QueryError(f"type: expected m or r, got {kind!r}")
        tasks = tasks[tasks["task_type"] == wanted]
    attempts = snap.attempts_by_job.get(row.job_id, snap.empty_attempts())
    by_task = {key: group for key, group in attempts.groupby("task_id", sort=False)}
    records = []
    for task in _rows(tasks):
        group = by_task.get(task.task_id)
        if group is None or group.empty:
            start, finish, state, success = math.nan, math.nan, "KILLED", ""
        else:
            start = float(group["start_s"].min())
            won = group[group["state"] == "SUCCEEDED"]
            if won.empty:
                finish = float(group["finish_s"].max())
                state, success = str(group["state"].iloc[-1]), ""
            else:
                finish = float(won["finish_s"].iloc[0])
                state, success = "SUCCEEDED", str(won["hadoop_attempt_id"].iloc[0])
        records.append(
            {
                "id": task.hadoop_task_id,
                "type": task.task_type,
                "state": state,
                "progress": 100.0,
                "startTime": snap.ms(start) if math.isfinite(start) else -1,
                "finishTime": snap.ms(finish),
                "elapsedTime": int(round((finish - start) * 1000.0))
                if math.isfinite(start) and math.isfinite(finish)
                else 0,
                "successfulAttempt": success,
            }
        )
    return {"tasks": {"task": records} if records else None}


def jhs_attempts(snap: Snapshot, job_id: str, task_id: str) -> JSON | None:
    """``GET .../jobs/{id}/tasks/{task}/attempts``: every attempt, killed ones included."""
    row = _job(snap, job_id)
    if row is None:
        return None
    attempts = snap.attempts_by_job.get(row.job_id, snap.empty_attempts())
    attempts = attempts[attempts["hadoop_task_id"] == task_id]
    if attempts.empty:
        return None
    records = []
    for att in _rows(attempts):
        record = {
            "id": att.hadoop_attempt_id,
            "type": att.task_type,
            "state": att.state,
            "progress": 100.0,
            "startTime": snap.ms(att.start_s),
            "finishTime": snap.ms(att.finish_s),
            "elapsedTime": int(round((att.finish_s - att.start_s) * 1000.0))
            if math.isfinite(att.finish_s)
            else 0,
            "assignedContainerId": att.container_id,
            "nodeHttpAddress": f"{att.node or 'emulated-node'}:8042",
            "rack": "/default-rack",
            "diagnostics": "Container preempted by scheduler" if att.preempted else "",
        }
        if att.task_type == "REDUCE":
            # The predictor does not model the shuffle and merge phases separately.
            record["shuffleFinishTime"] = 0
            record["mergeFinishTime"] = 0
        records.append(record)
    return {"taskAttempts": {"taskAttempt": records}}
