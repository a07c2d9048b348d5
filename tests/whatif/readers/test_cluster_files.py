"""Clusters from node files: an RM node list, an SLS nodes.json, and SPECs passed through."""

import json
from pathlib import Path

import pytest

from whatif import Cluster, ClusterSpecError
from whatif.readers.cluster_files import (
    SLS_NODE_MEMORY_MB,
    SLS_NODE_VCORES,
    cluster_from_rm_nodes,
    cluster_spec_from,
)

SLS_NODES = (
    Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "sls" / "nodes.json"
)


def _node(host, rack, state="RUNNING", **sizes):
    return {"rack": rack, "state": state, "id": f"{host}:45454", "nodeHostName": host, **sizes}


def _hadoop2(used_mb, avail_mb, used_vc, avail_vc):
    return {
        "usedMemoryMB": used_mb,
        "availMemoryMB": avail_mb,
        "usedVirtualCores": used_vc,
        "availableVirtualCores": avail_vc,
    }


NODES = {
    "nodes": {
        "node": [
            _node("h1", "/r1", **_hadoop2(2048, 6144, 2, 6)),
            _node("h2", "/r1", **_hadoop2(0, 8192, 0, 8)),
            _node("h3", "/r2", totalResource={"memory": 16384, "vCores": 16}),
            _node("h4", "/r2", state="UNHEALTHY", **_hadoop2(0, 8192, 0, 8)),
            _node("h5", "/r2", state="DECOMMISSIONED"),
        ]
    }
}


def test_an_rm_node_list_is_its_running_nodes_each_at_its_whole_size():
    """Used + available (Hadoop 2) or totalResource (Hadoop 3) per RUNNING node, with its host
    and rack; other states take no containers and are left out."""
    cluster = cluster_from_rm_nodes(NODES, source="nodes.json")
    assert [(n.rack, n.name, n.memory_mb, n.vcores) for n in cluster.nodes] == [
        ("/r1", "h1", 8192.0, 8.0),
        ("/r1", "h2", 8192.0, 8.0),
        ("/r2", "h3", 16384.0, 16.0),
    ]
    assert (cluster.memory_mb, cluster.vcores) == (32768.0, 32.0)
    spec = cluster.spec()
    assert (
        spec == "hosts=/r1/h1;/r1/h2,memory-mb=8192,vcores=8+hosts=/r2/h3,memory-mb=16384,vcores=16"
    )
    assert Cluster.parse(spec) == cluster


@pytest.mark.parametrize(
    ("payload", "match"),
    [
        ({"clusterMetrics": {}}, r"expected an RM /ws/v1/cluster/nodes response"),
        (
            {"nodes": {"node": [_node("h1", "/r", usedMemoryMB=1)]}},
            r"nodes\.node\[0\]: field 'availMemoryMB'",
        ),
        (
            {"nodes": {"node": [_node("h1", "/r", **_hadoop2(0, -1, 0, 1))]}},
            r"expected a number >= 0, got -1",
        ),
        ({"nodes": {"node": [_node("h1", "/r", state="LOST")]}}, "no RUNNING node"),
    ],
)
def test_a_bad_rm_node_list_names_the_node_and_field(payload, match):
    with pytest.raises(ClusterSpecError, match=match):
        cluster_from_rm_nodes(payload, source="nodes.json")


def test_a_cluster_value_is_a_spec_or_a_node_file(tmp_path):
    """A SPEC passes through as written; a file becomes the SPEC of its cluster: an RM node
    list as listed, an SLS nodes.json at SLS's node size unless the value sets it."""
    assert cluster_spec_from("nodes=2,memory-mb=1024,vcores=1") == "nodes=2,memory-mb=1024,vcores=1"
    with pytest.raises(ClusterSpecError, match="unknown key"):
        cluster_spec_from("nodes=2,memory=1")
    listed = tmp_path / "rm-nodes.json"
    listed.write_text(json.dumps(NODES))
    assert Cluster.parse(cluster_spec_from(str(listed))) == cluster_from_rm_nodes(NODES, source="x")
    with pytest.raises(ClusterSpecError, match="gives every node's size"):
        cluster_spec_from(f"{listed},memory-mb=1024")
    sls = Cluster.parse(cluster_spec_from(str(SLS_NODES)))
    assert len(sls.nodes) == 19  # upstream's file: one entry without a name is skipped
    assert {(n.memory_mb, n.vcores) for n in sls.nodes} == {(SLS_NODE_MEMORY_MB, SLS_NODE_VCORES)}
    assert sls.nodes[0].rack == "/rack1" and sls.nodes[0].name == "node1"
    sized = Cluster.parse(cluster_spec_from(f"{SLS_NODES},memory-mb=8192"))
    assert {(n.memory_mb, n.vcores) for n in sized.nodes} == {(8192.0, SLS_NODE_VCORES)}
    with pytest.raises(ClusterSpecError, match="takes only memory-mb and vcores"):
        cluster_spec_from(f"{SLS_NODES},nodes=3")


def test_another_rm_response_is_named_as_one_that_lists_no_nodes():
    """The RM's cluster metrics (totals, no nodes) given as --cluster says what it is and
    what is expected, not an SLS parse error about rack records."""
    from whatif.errors import ClusterSpecError
    from whatif.readers.cluster_files import read_cluster_file

    metrics = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop"
    with pytest.raises(
        ClusterSpecError, match="an RM 'clusterMetrics' response, which lists no nodes"
    ):
        read_cluster_file(metrics / "rest" / "rm-metrics.json")
