"""Cluster SPEC strings."""

import pytest
from samples import table

from whatif import Cluster, ClusterSpecError


def test_parse_pool_nodes_and_slots():
    """The three SPEC forms parse to the right totals."""
    assert Cluster.parse("memory-mb=1024,vcores=4") == Cluster(1024, 4)
    nodes = Cluster.parse("nodes=3,memory-mb=8192,vcores=8")
    assert (nodes.memory_mb, nodes.vcores, len(nodes.nodes)) == (3 * 8192, 24, 3)
    assert Cluster.parse("map-slots=30,reduce-slots=10").slot_pools == {"map": 30, "reduce": 10}
    assert Cluster.parse(nodes.spec()) == nodes


def test_scaled_cluster_grows_nodes():
    """Scaling a node cluster changes its node count, up to MAX_NODES (100,000)."""
    four = Cluster.parse("nodes=4,memory-mb=10,vcores=1")
    assert len(four.scaled(2.0).nodes) == 8
    with pytest.raises(ClusterSpecError, match="4 node\\(s\\) would become 400,000, more than"):
        four.scaled(1e5)
    with pytest.raises(ClusterSpecError, match="expected a factor > 0, got inf"):
        Cluster.parse("memory-mb=10,vcores=1").scaled(float("inf"))


@pytest.mark.parametrize(
    ("spec", "match"),
    table(
        r"""
                                                                   | empty
        memory=5                                                   | unknown key 'memory'
        memory-mb=x,vcores=1                                       | expects a number, got 'x'
        memory-mb=10                                               | vcores > 0
        nodes=5,memory-mb=8192                                     | vcores > 0 \(each node's
        nodes=5,memory-mb=8192,vcores=0                            | vcores > 0
        nodes=1.5,memory-mb=1,vcores=1                             | whole number
        nodes=1,memory-mb=8,vcores=1+memory-mb=8,vcores=1          | each group joined by '\+'
        nodes=1,map-slots=2+nodes=1,memory-mb=8,vcores=1           | no slots
        hosts=a,memory-mb=8,vcores=1+hosts=a,memory-mb=4,vcores=1  | named in two groups
        nodes=5,memory-mb=8192,vcores=8,nodes=6                    | nodes is given twice
        hosts=a,hosts=b,memory-mb=8,vcores=1                       | hosts is given twice
        nodes=2,memory-mb=8192,memory-gb=8,vcores=8                | memory-mb or memory-gb, not both
        """,
        str,
        str,
        sep="|",
    ),
)
def test_bad_specs_say_what_was_expected(spec, match):
    """Each malformed SPEC names the key and what was expected."""
    with pytest.raises(ClusterSpecError, match=match):
        Cluster.parse(spec)


def test_hosts_name_the_trackers_and_their_racks():
    """``hosts=`` names the nodes by host and rack, in order, and round-trips through spec()."""
    c = Cluster.parse("hosts=/r1/a;/r1/b;c,map-slots=6,reduce-slots=3")
    assert [(n.name, n.rack) for n in c.nodes] == [("a", "/r1"), ("b", "/r1"), ("c", "")]
    assert Cluster.parse(c.spec()) == c
    for spec, match in [
        ("hosts=a;a,map-slots=2", "distinct"),
        ("hosts=a;b,nodes=3,map-slots=2", "nodes=3 but hosts names 2"),
    ]:
        with pytest.raises(ClusterSpecError, match=match):
            Cluster.parse(spec)


def test_scaled_cluster_keeps_its_hosts_and_adds_nodes_on_a_new_rack():
    """Nodes named by host keep their names and racks; added ones match no split location
    (rack ADDED_RACK); a smaller cluster keeps the first nodes (issue 21)."""
    from whatif.cluster import ADDED_RACK

    c = Cluster.parse("hosts=/r1/h0;/r1/h1;/r2/h2,map-slots=3,reduce-slots=3")
    bigger = c.scaled(2.0)
    assert [(n.rack, n.name) for n in bigger.nodes] == [
        ("/r1", "h0"), ("/r1", "h1"), ("/r2", "h2"),
        (ADDED_RACK, "added-node00003"), (ADDED_RACK, "added-node00004"),
        (ADDED_RACK, "added-node00005"),
    ]  # fmt: skip
    assert bigger.slot_pools == {"map": 6, "reduce": 6}
    again = Cluster.parse(bigger.spec())
    assert [(n.rack, n.name) for n in again.nodes] == [(n.rack, n.name) for n in bigger.nodes]
    smaller = c.scaled(2 / 3)
    assert [(n.rack, n.name) for n in smaller.nodes] == [("/r1", "h0"), ("/r1", "h1")]
    assert smaller.slot_pools == {"map": 2, "reduce": 2}
    clash = Cluster.parse("hosts=added-node00001;b,map-slots=2,reduce-slots=2").scaled(1.5)
    assert [n.name for n in clash.nodes] == ["added-node00001", "b", "added-node00002"]
    numbered = Cluster.parse("nodes=2,map-slots=2,reduce-slots=2").scaled(1.5)
    assert [n.name for n in numbered.nodes] == ["node00000", "node00001", "node00002"]


def test_groups_of_nodes_of_different_sizes_join_with_plus():
    """``+`` joins groups of nodes, each its own size, numbered on (or named) across groups;
    spec() writes the runs of equal nodes back, hosts included, and parses to the same."""
    c = Cluster.parse("nodes=2,memory-mb=8192,vcores=8+nodes=1,memory-mb=16384,vcores=16")
    assert [(n.name, n.memory_mb, n.vcores) for n in c.nodes] == [
        ("node00000", 8192.0, 8.0),
        ("node00001", 8192.0, 8.0),
        ("node00002", 16384.0, 16.0),
    ]
    assert (c.memory_mb, c.vcores) == (32768.0, 32.0)
    assert c.spec() == "nodes=2,memory-mb=8192,vcores=8+nodes=1,memory-mb=16384,vcores=16"
    named = Cluster.parse("hosts=/r1/a;/r1/b,memory-mb=8,vcores=1+hosts=/r2/c,memory-mb=4,vcores=2")
    assert Cluster.parse(named.spec()) == named
    # a YARN cluster named by host keeps its hosts in its SPEC (they were dropped before)
    assert Cluster.parse("hosts=/r/a;/r/b,memory-mb=8,vcores=1").spec() == (
        "hosts=/r/a;/r/b,memory-mb=8,vcores=1"
    )


def test_a_scaled_cluster_of_two_node_sizes_keeps_their_mix():
    """Scaling samples unnamed nodes evenly: a quarter of 16 small and 4 large nodes is 4
    and 1, double is 32 and 8, and scale 1 is the cluster itself."""
    c = Cluster.parse("nodes=16,memory-mb=8192,vcores=8+nodes=4,memory-mb=16384,vcores=16")
    assert (
        c.scaled(0.25).spec() == "nodes=4,memory-mb=8192,vcores=8+nodes=1,memory-mb=16384,vcores=16"
    )
    assert (
        c.scaled(2.0).spec() == "nodes=32,memory-mb=8192,vcores=8+nodes=8,memory-mb=16384,vcores=16"
    )
    assert c.scaled(1.0) == c


def test_describe_counts_a_long_host_list_instead_of_listing_it():
    """Reports show a cluster of many named hosts by their count; a short SPEC as it is."""
    hosts = ";".join(f"/r{i // 20}/h{i}" for i in range(100))
    c = Cluster.parse(f"hosts={hosts},memory-mb=8192,vcores=8+hosts=/x/a;/x/b,memory-mb=4,vcores=1")
    assert (
        c.describe()
        == "hosts=(100 named),memory-mb=8192,vcores=8+hosts=(2 named),memory-mb=4,vcores=1"
    )
    assert Cluster.parse("hosts=/r/a;/r/b,memory-mb=8,vcores=1").describe() == (
        "hosts=/r/a;/r/b,memory-mb=8,vcores=1"
    )
