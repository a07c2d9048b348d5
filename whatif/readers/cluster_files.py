"""Clusters from files: a ResourceManager's node list or an SLS ``nodes.json``.

A ``--cluster`` SPEC may name a file instead of sizes, so that a prediction runs on the
cluster as it is, nodes of different sizes and their hosts and racks included:

- a saved RM ``GET /ws/v1/cluster/nodes`` response (``{"nodes": {"node": [...]}}``):
  the RUNNING nodes, each offering its whole capability as the scheduler sees it,
  ``totalResource`` where the response has it (Hadoop 3), else ``usedMemoryMB +
  availMemoryMB`` and ``usedVirtualCores + availableVirtualCores``. Nodes in other
  states (UNHEALTHY, DECOMMISSIONING, LOST, ...) get no new containers and are left
  out, and a log line counts them;
- an SLS ``nodes.json`` (`whatif.readers.sls.read_sls_nodes`): each node the size SLS
  gives it, ``yarn.sls.nm.memory.mb`` x ``yarn.sls.nm.vcores`` (10240 MB x 10 by
  default; ``FILE,memory-mb=M,vcores=V`` sets them) unless its entry says otherwise.

`cluster_spec_from` turns such a value into the equivalent SPEC string (`Cluster.spec`:
groups of equal nodes joined by ``+``, by host), which is what commands pass on and
journals record.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from whatif.cluster import Cluster, Node
from whatif.errors import ClusterSpecError, WhatifError
from whatif.readers.lenient_json import loads_lenient
from whatif.readers.sls import read_sls_nodes

logger = logging.getLogger(__name__)

#: SLS's NodeManager size when neither the SPEC nor the node's entry gives one
#: (``SLSConfiguration.NM_MEMORY_MB_DEFAULT``, ``NM_VCORES_DEFAULT``).
SLS_NODE_MEMORY_MB = 10240.0
SLS_NODE_VCORES = 10.0
#: How an RM node list begins (an SLS nodes.json's objects begin with "rack", or with
#: "nodes" and a list).
_RM_NODES = re.compile(r'\s*\{\s*"nodes"\s*:\s*(\{|null)')
#: Another RM response (``/ws/v1/cluster/metrics``, ``/info``, ``/scheduler``...): its key.
_RM_OTHER = re.compile(r'\s*\{\s*"(clusterMetrics|clusterInfo|scheduler|apps|app)"\s*:')


def cluster_spec_from(value: str) -> str:
    """`value` as a SPEC string: a SPEC as given (checked), or the cluster of the file its
    first comma-separated part names, written as a SPEC."""
    head, _, rest = value.partition(",")
    if "=" in head or not Path(head.strip()).is_file():
        Cluster.parse(value)
        return value
    return read_cluster_file(head.strip(), sizes=rest).spec()


def read_cluster_file(path: str | os.PathLike[str], *, sizes: str = "") -> Cluster:
    """The cluster a node file describes (an RM node list or an SLS ``nodes.json``);
    `sizes` (``memory-mb=M,vcores=V``) sizes the SLS nodes whose entries do not."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ClusterSpecError(f"{source}: cannot read ({error})") from error
    if _RM_NODES.match(text):
        if sizes.strip():
            raise ClusterSpecError(
                f"{source}: an RM node list gives every node's size; drop {sizes.strip()!r}"
            )
        return cluster_from_rm_nodes(loads_lenient(text, source=str(source)), source=str(source))
    other = _RM_OTHER.match(text)
    if other:
        raise ClusterSpecError(
            f"{source}: an RM {other.group(1)!r} response, which lists no nodes; expected "
            "an RM node list (GET /ws/v1/cluster/nodes) or an SLS nodes.json, or a SPEC "
            "(nodes=N,memory-mb=M,vcores=V)"
        )
    memory, vcores = _sls_sizes(source, sizes)
    try:
        return read_sls_nodes(source, memory_mb=memory, vcores=vcores)
    except WhatifError as error:
        raise ClusterSpecError(str(error)) from error


def _sls_sizes(source: Path, sizes: str) -> tuple[float, float]:
    """The SLS node size: SLS's default, with what `sizes` (``memory-mb=M,vcores=V``) gives."""
    given = {"memory-mb": f"{SLS_NODE_MEMORY_MB:g}", "vcores": f"{SLS_NODE_VCORES:g}"}
    parts = [part.partition("=") for part in sizes.split(",") if part.strip()]
    keys = [key.strip().lower() for key, _, _ in parts]
    if not set(keys) <= set(given) or len(set(keys)) != len(keys):
        raise ClusterSpecError(
            f"{source}: after an SLS nodes.json a SPEC takes only memory-mb and vcores, each "
            f"once, got {sizes.strip()!r}"
        )
    given |= {key: raw for key, (_, _, raw) in zip(keys, parts, strict=True)}
    try:
        node = Cluster.parse(f"nodes=1,memory-mb={given['memory-mb']},vcores={given['vcores']}")
    except ClusterSpecError as error:
        raise ClusterSpecError(f"{source}: {error}") from None
    return node.memory_mb, node.vcores


def cluster_from_rm_nodes(payload: object, *, source: str) -> Cluster:
    """The RUNNING nodes of a decoded ``/ws/v1/cluster/nodes`` response as a cluster."""
    body = payload.get("nodes") if isinstance(payload, dict) else None
    entries = body.get("node") if isinstance(body, dict) else None
    if isinstance(entries, dict):
        entries = [entries]
    if not isinstance(entries, list):
        raise ClusterSpecError(
            f'{source}: expected an RM /ws/v1/cluster/nodes response, {{"nodes": {{"node": [...]}}}}'
        )
    nodes: list[Node] = []
    states: dict[str, int] = {}
    for i, entry in enumerate(entries):
        where = f"{source}: nodes.node[{i}]"
        if not isinstance(entry, dict):
            raise ClusterSpecError(f"{where}: expected an object, got {entry!r}")
        state = str(entry.get("state", ""))
        if state != "RUNNING":
            states[state or "no state"] = states.get(state or "no state", 0) + 1
            continue
        host = entry.get("nodeHostName") or str(entry.get("id", "")).rpartition(":")[0]
        if not host:
            raise ClusterSpecError(f"{where}: expected field 'nodeHostName' (or 'id' host:port)")
        memory, vcores = _capability(entry, where)
        nodes.append(Node(str(host), memory, vcores, str(entry.get("rack", "") or "")))
    if states:
        left = ", ".join(f"{n} {s}" for s, n in sorted(states.items()))
        logger.info(
            "%s: %d node(s) left out (%s): only RUNNING nodes take containers",
            source,
            sum(states.values()),
            left,
        )
    if not nodes:
        raise ClusterSpecError(f"{source}: no RUNNING node")
    names = [n.name for n in nodes]
    if len(set(names)) != len(names):
        raise ClusterSpecError(f"{source}: a host is listed twice among the RUNNING nodes")
    return Cluster(
        memory_mb=sum(n.memory_mb for n in nodes),
        vcores=sum(n.vcores for n in nodes),
        nodes=tuple(nodes),
    )


def _capability(entry: dict[str, object], where: str) -> tuple[float, float]:
    """A node's whole memory (MB) and vcores: ``totalResource``, else used + available."""
    total = entry.get("totalResource")
    if isinstance(total, dict) and "memory" in total and "vCores" in total:
        return _number(total, "memory", where + ".totalResource"), _number(
            total, "vCores", where + ".totalResource"
        )
    memory = _number(entry, "usedMemoryMB", where) + _number(entry, "availMemoryMB", where)
    vcores = _number(entry, "usedVirtualCores", where) + _number(
        entry, "availableVirtualCores", where
    )
    return memory, vcores


def _number(record: dict[str, object], key: str, where: str) -> float:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise ClusterSpecError(f"{where}: field {key!r}: expected a number >= 0, got {value!r}")
    return float(value)
