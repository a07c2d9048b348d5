"""RMClient against a real local HTTP server serving the verbatim Hadoop responses."""

from __future__ import annotations

import pytest
from fake_rm import Reply, rest_fixture

from tempo import RMError
from tempo.rm import RMClient

METRICS = "/ws/v1/cluster/metrics"
SCHEDULER = "/ws/v1/cluster/scheduler"


def test_cluster_metrics(rm_server, make_transport):
    """cluster_metrics() reads the verbatim metrics response."""
    rm_server.script(METRICS, Reply(body=rest_fixture("rm-metrics.json")))
    metrics = RMClient(make_transport(rm_server.url)).cluster_metrics()
    assert (metrics.total_mb, metrics.total_vcores, metrics.active_nodes) == (17408, 8, 1)


def test_capacity_scheduler_response_is_refused(rm_server, make_transport):
    """scheduler() on a Capacity Scheduler RM is one RMError naming the URL and the need."""
    rm_server.script(SCHEDULER, Reply(body=rest_fixture("rm-scheduler-capacity.json")))
    with pytest.raises(
        RMError,
        match=r"^http://127\.0\.0\.1:\d+/ws/v1/cluster/scheduler: .*needs the Fair Scheduler",
    ):
        RMClient(make_transport(rm_server.url)).scheduler()


def test_wrong_typed_json_names_url_and_field(rm_server, make_transport):
    """A metrics body with a string where a number belongs names the URL and the field."""
    rm_server.script(METRICS, Reply(body='{"clusterMetrics": {"totalMB": "x"}}'))
    with pytest.raises(RMError, match=r"/ws/v1/cluster/metrics: clusterMetrics\.totalMB: expected"):
        RMClient(make_transport(rm_server.url)).cluster_metrics()
