"""Cluster-wide metrics, as ``GET /ws/v1/cluster/metrics`` reports them."""

from __future__ import annotations

from dataclasses import dataclass

from tempo.rm import payload


@dataclass(frozen=True)
class ClusterMetrics:
    """The cluster's size and load at one moment (memory in MB)."""

    total_mb: int
    total_vcores: int
    allocated_mb: int
    allocated_vcores: int
    available_mb: int
    available_vcores: int
    total_nodes: int
    active_nodes: int
    apps_running: int
    apps_pending: int


def parse_cluster_metrics(body: object) -> ClusterMetrics:
    """A `ClusterMetrics` from a decoded ``/ws/v1/cluster/metrics`` response.

    ``totalMB`` and ``totalVirtualCores`` are required; counters an RM version does
    not report are 0.

    Raises
    ------
    RMError
        A required field is missing or a field has the wrong type.
    """
    top = payload.mapping(body, where="response")
    metrics = payload.member(top, "clusterMetrics", where="response")
    where = "clusterMetrics"

    def count(key: str) -> int:
        return int(payload.integer(metrics, key, where=where, default=0))

    return ClusterMetrics(
        total_mb=payload.integer(metrics, "totalMB", where=where),
        total_vcores=payload.integer(metrics, "totalVirtualCores", where=where),
        allocated_mb=count("allocatedMB"),
        allocated_vcores=count("allocatedVirtualCores"),
        available_mb=count("availableMB"),
        available_vcores=count("availableVirtualCores"),
        total_nodes=count("totalNodes"),
        active_nodes=count("activeNodes"),
        apps_running=count("appsRunning"),
        apps_pending=count("appsPending"),
    )
