"""Parsing ``/ws/v1/cluster/metrics``."""

from __future__ import annotations

import json

import pytest
from fake_rm import rest_fixture

from tempo import RMError
from tempo.rm import ClusterMetrics, parse_cluster_metrics


def test_verbatim_metrics_response():
    """The Hadoop doc's metrics example parses to the documented values."""
    metrics = parse_cluster_metrics(json.loads(rest_fixture("rm-metrics.json")))
    assert metrics == ClusterMetrics(
        total_mb=17408,
        total_vcores=8,
        allocated_mb=0,
        allocated_vcores=1,
        available_mb=17408,
        available_vcores=7,
        total_nodes=1,
        active_nodes=1,
        apps_running=0,
        apps_pending=0,
    )


def test_missing_counters_default_to_zero():
    """An RM that reports only the totals still parses."""
    metrics = parse_cluster_metrics({"clusterMetrics": {"totalMB": 10, "totalVirtualCores": 2}})
    assert (metrics.total_mb, metrics.apps_pending, metrics.active_nodes) == (10, 0, 0)


def test_missing_total_is_an_error():
    """totalMB is needed: its absence is named."""
    with pytest.raises(RMError, match=r"clusterMetrics\.totalMB: missing"):
        parse_cluster_metrics({"clusterMetrics": {"totalVirtualCores": 2}})


def test_wrong_typed_counter_is_an_error():
    """appsRunning "many" is an RMError naming the field and the value."""
    body = {"clusterMetrics": {"totalMB": 1, "totalVirtualCores": 1, "appsRunning": "many"}}
    with pytest.raises(RMError, match=r"clusterMetrics\.appsRunning: expected an integer, got str"):
        parse_cluster_metrics(body)


def test_missing_wrapper_is_an_error():
    """A body without clusterMetrics says so."""
    with pytest.raises(RMError, match=r"response\.clusterMetrics: missing"):
        parse_cluster_metrics({"metrics": {}})
