"""Read-only clients of a live YARN ResourceManager and JobHistory Server.

`RMClient` and `JobHistoryClient` sit on an `HTTPTransport` (HA failover with the
standby redirect followed, retries with full-jitter backoff, TLS, optional SPNEGO);
every failure is one `tempo.RMError` line naming the redacted URL and the cause.
`scheduler_mismatches` checks that the RM shows a given allocation in force.
`RMClock` is the RM's time, which the tuning loop's windows follow.
`EmulatedRM` serves the same endpoints from a trace replayed through the predictor.
"""

from tempo.rm.client import JobHistoryClient, RMClient
from tempo.rm.clock import ClockReading, RMClock
from tempo.rm.confirm import Tolerance, scheduler_mismatches
from tempo.rm.emulator import EmulatedRM, ReloadEvent, request_refresh
from tempo.rm.metrics import ClusterMetrics, parse_cluster_metrics
from tempo.rm.redact import redact
from tempo.rm.scheduler import QueueState, SchedulerState, parse_scheduler
from tempo.rm.transport import HTTPTransport, RetryPolicy, TransportOptions
from tempo.rm.workload_shift import WorkloadShift

__all__ = [
    "ClockReading",
    "ClusterMetrics",
    "EmulatedRM",
    "HTTPTransport",
    "JobHistoryClient",
    "QueueState",
    "RMClient",
    "RMClock",
    "ReloadEvent",
    "RetryPolicy",
    "SchedulerState",
    "Tolerance",
    "TransportOptions",
    "WorkloadShift",
    "parse_cluster_metrics",
    "parse_scheduler",
    "redact",
    "request_refresh",
    "scheduler_mismatches",
]
