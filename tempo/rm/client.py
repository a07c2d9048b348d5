"""Clients of a live YARN ResourceManager and MapReduce JobHistory Server (read only).

`RMClient` reads the cluster metrics, the Fair Scheduler's queue tree and the
finished applications of a time window; `JobHistoryClient` reads those jobs' tasks
and attempts. Both sit on an `HTTPTransport` (HA failover, retries, TLS, SPNEGO)
and turn every failure into one `tempo.RMError` line naming the URL and the cause.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TypeVar

from tempo.errors import RMError
from tempo.rm.metrics import ClusterMetrics, parse_cluster_metrics
from tempo.rm.redact import redact
from tempo.rm.scheduler import SchedulerState, parse_scheduler
from tempo.rm.transport import HTTPTransport

logger = logging.getLogger(__name__)

T = TypeVar("T")

METRICS_PATH = "/ws/v1/cluster/metrics"
SCHEDULER_PATH = "/ws/v1/cluster/scheduler"


def fetch(
    transport: HTTPTransport,
    path: str,
    parse: Callable[[object], T],
    params: Mapping[str, object] | None = None,
) -> T:
    """GET `path` and parse it, naming the (redacted) URL in any error."""
    body = transport.get_json(path, params)
    try:
        return parse(body)
    except RMError as error:
        raise RMError(f"{redact(transport.url(path, params))}: {error}") from error


class RMClient:
    """Reads a ResourceManager's state through an `HTTPTransport`.

    Parameters
    ----------
    transport : HTTPTransport
        Connection to the RM(s) (default port 8088).
    """

    def __init__(self, transport: HTTPTransport) -> None:
        self.transport = transport

    def cluster_metrics(self) -> ClusterMetrics:
        """The cluster's size and load now (``/ws/v1/cluster/metrics``)."""
        return fetch(self.transport, METRICS_PATH, parse_cluster_metrics)

    def scheduler(self) -> SchedulerState:
        """The Fair Scheduler queue tree in force (``/ws/v1/cluster/scheduler``).

        Raises `RMError` when the RM runs another scheduler.
        """
        return fetch(self.transport, SCHEDULER_PATH, parse_scheduler)
