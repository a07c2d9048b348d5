"""The YARN cluster a recorded schedule ran on (issue 21): nodes and per-node peaks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from samples import trace_inspect

from whatif.cluster import Cluster
from whatif.errors import ValidationError
from whatif.readers.slots import observed_nodes

RUMEN = Path(__file__).resolve().parents[3] / "traces" / "hadoop" / "rumen"
COLUMNS = ["start_s", "finish_s", "memory_mb", "vcores", "node", "is_am"]


def _frame(rows):
    return pd.DataFrame(rows, columns=COLUMNS)


def test_hand_computed_peaks_normalized_and_rounded():
    """Node a: AM 1536 MB (-> 2048) over [0, 30), maps of 1024 MB/1 vcore over [2, 10) and
    [5, 12), a 512 MB (-> 1024) map over [10, 20) that starts when the first ends.
    Memory peak on a: 2048 + 1024 + 1024 = 4096 MB over [5, 10); vcore peak 3.
    Node b: one 2-vcore 3000 MB (-> 3072) map: peak 3072 MB, 2 vcores.
    A row without a node is not counted, even a huge one."""
    rows = [
        (0.0, 30.0, 1536.0, 1.0, "a", True),
        (2.0, 10.0, 1024.0, 1.0, "a", False),
        (5.0, 12.0, 1024.0, 1.0, "a", False),
        (10.0, 20.0, 512.0, 1.0, "a", False),
        (0.0, 4.0, 3000.0, 2.0, "b", False),
        (0.0, 9.0, 99999.0, 99.0, "", False),
    ]
    seen = observed_nodes(_frame(rows))
    assert seen.nodes == 2
    assert dict(seen.per_node) == {"a": (4096.0, 3.0), "b": (3072.0, 2.0)}
    assert (seen.peak_memory_mb, seen.peak_vcores) == (4096.0, 3.0)
    assert seen.spec == "nodes=2,memory-mb=4096,vcores=3"
    cluster = Cluster.parse(seen.spec)
    assert (len(cluster.nodes), cluster.memory_mb, cluster.vcores) == (2, 8192.0, 6.0)


def test_increment_and_minimum_are_the_schedulers():
    """With a 512 MB increment and minimum, two 700 MB containers take 1024 MB each."""
    rows = [(0.0, 5.0, 700.0, 1.0, "a", False), (1.0, 6.0, 700.0, 1.0, "a", False)]
    seen = observed_nodes(_frame(rows), minimum_mb=512.0, increment_mb=512.0)
    assert (seen.memory_mb, seen.vcores) == (2048.0, 2.0)
    seen = observed_nodes(_frame(rows))  # defaults: 1024 MB each
    assert seen.memory_mb == 2048.0
    one = observed_nodes(_frame(rows[:1]), minimum_mb=256.0, increment_mb=256.0)
    assert one.memory_mb == 768.0  # 700 up to a multiple of 256


def test_running_attempt_counts_to_the_end_and_back_to_back_do_not_overlap():
    rows = [
        (0.0, 5.0, 1024.0, 1.0, "a", False),
        (5.0, 9.0, 1024.0, 1.0, "a", False),  # starts when the first ends
        (1.0, math.nan, 1024.0, 1.0, "a", False),  # still running
    ]
    seen = observed_nodes(_frame(rows))
    assert (seen.memory_mb, seen.vcores) == (2048.0, 2.0)


def test_no_node_named_is_none_and_bad_increment_is_an_error():
    assert observed_nodes(_frame([(0.0, 1.0, 1024.0, 1.0, "", False)])) is None
    with pytest.raises(ValidationError, match="increment_mb"):
        observed_nodes(_frame([(0.0, 1.0, 1024.0, 1.0, "a", False)]), increment_mb=0)


def test_trace_inspect_shows_the_yarn_cluster_spec():
    """The Rumen sample: 4 NodeManagers, 8 concurrent 200 MB (-> 1024 MB) maps on each."""
    output = trace_inspect(RUMEN).output
    assert "4 NodeManager(s)" in output
    assert "--cluster nodes=4,memory-mb=8192,vcores=8" in output
    payload = json.loads(trace_inspect(RUMEN, "--json").output)
    assert payload["slots"] is None
    assert payload["nodes"]["cluster"] == "nodes=4,memory-mb=8192,vcores=8"
    assert payload["nodes"]["nodes"] == 4
