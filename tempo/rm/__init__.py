"""Read-only clients of a live YARN ResourceManager and JobHistory Server.

`RMClient` and `JobHistoryClient` sit on an `HTTPTransport` (HA failover with the
standby redirect followed, retries with full-jitter backoff, TLS, optional SPNEGO);
every failure is one `tempo.RMError` line naming the redacted URL and the cause.
"""

from tempo.rm.client import JobHistoryClient, RMClient
from tempo.rm.metrics import ClusterMetrics, parse_cluster_metrics
from tempo.rm.redact import redact
from tempo.rm.scheduler import QueueState, SchedulerState, parse_scheduler
from tempo.rm.transport import HTTPTransport, RetryPolicy, TransportOptions

__all__ = [
    "ClusterMetrics",
    "HTTPTransport",
    "JobHistoryClient",
    "QueueState",
    "RMClient",
    "RetryPolicy",
    "SchedulerState",
    "TransportOptions",
    "parse_cluster_metrics",
    "parse_scheduler",
    "redact",
]
