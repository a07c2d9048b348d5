"""The cluster a schedule runs on: total resources, optional nodes, optional Hadoop 1 slots.

A cluster is given on the command line as a SPEC string of comma-separated
``key=value`` pairs:

- ``memory-mb=819200,vcores=800``: one pool of resources (``memory-gb`` also works);
- ``nodes=100,memory-mb=8192,vcores=8``: 100 identical nodes of that size;
- ``map-slots=30,reduce-slots=10``: a Hadoop 1 (MRv1) cluster where maps and
  reduces draw from their own pools of slots (``nodes=15,map-slots=30,...``: on 15
  TaskTrackers, which the predictor's heartbeats need; without ``nodes`` it assumes
  trackers of 2 map and 2 reduce slots);
- ``hosts=/rack1/h1;/rack1/h2;/rack2/h3`` with either form: the nodes (TaskTrackers) by host
  and rack, in place of ``nodes=N``, so that the split locations a trace records can be
  matched to them (delay scheduling, ``whatif.predictor.locality``: Hadoop 1's on slots,
  the Capacity Scheduler's on containers);
- groups of nodes of different sizes joined by ``+`` (YARN):
  ``nodes=10,memory-mb=8192,vcores=8+nodes=5,memory-mb=16384,vcores=16``, each group
  ``nodes=`` or ``hosts=`` with its own size.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from whatif.errors import ClusterSpecError

#: The rack of the nodes `Cluster.scaled` adds to a cluster named by host: no split
#: location is on it.
ADDED_RACK = "/added-rack"
#: Most nodes a SPEC may name (the largest YARN clusters run a few tens of thousands).
MAX_NODES = 100_000


@dataclass(frozen=True)
class Node:
    """One NodeManager (or TaskTracker) and what it offers to containers; `name` is its
    host where the cluster names its nodes (``hosts=``), and `rack` its rack ("" unknown)."""

    name: str
    memory_mb: float
    vcores: float
    rack: str = ""


@dataclass(frozen=True)
class Cluster:
    """Resources available to the scheduler.

    ``slots`` is set only for Hadoop 1 clusters: stage name to slot count (a task
    takes one slot of its stage's pool whatever its memory).
    """

    memory_mb: float
    vcores: float
    nodes: tuple[Node, ...] = ()
    slots: tuple[tuple[str, int], ...] = field(default=())

    def __post_init__(self) -> None:
        for name in ("memory_mb", "vcores"):
            value = getattr(self, name)
            if not (value >= 0 and math.isfinite(value)):
                raise ClusterSpecError(
                    f"cluster {name}: expected a finite number >= 0, got {value!r}"
                )
        if self.memory_mb <= 0 and not self.slots:
            raise ClusterSpecError(
                "cluster: expected memory-mb > 0 (or map-slots/reduce-slots for Hadoop 1)"
            )

    @property
    def slot_pools(self) -> dict[str, int]:
        return dict(self.slots)

    def scaled(self, factor: float) -> Cluster:
        """The same cluster `factor` times larger (node count or pool size).

        Unnamed nodes keep their mix of sizes (`_scaled_node`). Nodes named by host
        (``hosts=``) keep their names and racks: a smaller cluster
        keeps the first ones, a larger one adds nodes (sized as the originals, in turn)
        named ``added-nodeNNNNN`` on rack `ADDED_RACK`, which no split location names, so
        Hadoop 1 delay scheduling still matches the original trackers."""
        if not 0 < factor < math.inf:
            raise ClusterSpecError(f"cluster scale: expected a factor > 0, got {factor!r}")
        if self.nodes and round(len(self.nodes) * factor) > MAX_NODES:
            raise ClusterSpecError(
                f"cluster scale {factor:g}: {len(self.nodes)} node(s) would become "
                f"{len(self.nodes) * factor:,.0f}, more than {MAX_NODES:,}"
            )
        if not self.nodes:
            return replace(
                self,
                memory_mb=self.memory_mb * factor,
                vcores=self.vcores * factor,
                slots=tuple((k, max(1, round(v * factor))) for k, v in self.slots),
            )
        count = max(1, round(len(self.nodes) * factor))
        nodes = tuple(self._scaled_node(i, count) for i in range(count))
        return Cluster(
            memory_mb=sum(n.memory_mb for n in nodes),
            vcores=sum(n.vcores for n in nodes),
            nodes=nodes,
            slots=tuple((k, max(1, round(v * factor))) for k, v in self.slots),
        )

    def _scaled_node(self, i: int, count: int) -> Node:
        """Node `i` of a scaled copy of `count` nodes: the original where there is one and
        it is named by host, else a new node the size of original ``i % len(nodes)``.

        Unnamed nodes are sampled evenly instead (node `i` the size of the original at
        the middle of its share of the list), so a cluster of several node sizes keeps
        their mix, in the same order, at any scale."""
        if not self.named:
            middle = int((i + 0.5) * len(self.nodes) / count)
            template = self.nodes[min(middle, len(self.nodes) - 1)]
            return Node(f"node{i:05d}", template.memory_mb, template.vcores)
        template = self.nodes[i % len(self.nodes)]
        if i < len(self.nodes):
            return template
        taken = {n.name for n in self.nodes}
        name = f"added-node{i:05d}"
        while name in taken:  # a host of the original cluster already has that name
            name = "added-" + name
        return Node(name, template.memory_mb, template.vcores, ADDED_RACK)

    @property
    def named(self) -> bool:
        """Whether the nodes are named by host (``hosts=``), not numbered ``node00000...``."""
        return any(n.name != f"node{i:05d}" for i, n in enumerate(self.nodes))

    def spec(self) -> str:
        """A SPEC string that parses back to an equivalent cluster."""
        if self.slots:
            pools = ",".join(f"{k}-slots={v}" for k, v in self.slots)
            if self.named:
                hosts = ";".join(f"{n.rack}/{n.name}" if n.rack else n.name for n in self.nodes)
                return f"hosts={hosts},{pools}"
            return f"nodes={len(self.nodes)},{pools}" if self.nodes else pools
        if not self.nodes:
            return f"memory-mb={self.memory_mb:g},vcores={self.vcores:g}"
        groups = []
        start = 0
        for end in range(1, len(self.nodes) + 1):
            if end < len(self.nodes) and _size(self.nodes[end]) == _size(self.nodes[start]):
                continue
            run, n = self.nodes[start:end], self.nodes[start]
            what = (
                "hosts=" + ";".join(f"{m.rack}/{m.name}" if m.rack else m.name for m in run)
                if self.named
                else f"nodes={len(run)}"
            )
            groups.append(f"{what},memory-mb={n.memory_mb:g},vcores={n.vcores:g}")
            start = end
        return "+".join(groups)

    def describe(self, width: int = 120) -> str:
        """The SPEC for people: as `spec` when it fits in `width` characters, else with each
        group's host list counted, not listed (``hosts=(800 named),memory-mb=8192,...``)."""
        spec = self.spec()
        if len(spec) <= width:
            return spec
        return re.sub(r"hosts=[^,+]*", lambda m: f"hosts=({m.group(0).count(';') + 1} named)", spec)

    def totals(self) -> str:
        """Its size for people: ``3 nodes, 4,096 MB, 4 vcores``, or on a slot cluster
        ``3 nodes, 4 map slots, 2 reduce slots`` (the node count only when it has nodes)."""
        count = f"{len(self.nodes):,} nodes, " if self.nodes else ""
        if self.slots:
            return count + ", ".join(f"{n:,} {pool} slots" for pool, n in self.slots)
        return f"{count}{self.memory_mb:,.0f} MB, {self.vcores:,.0f} vcores"

    @classmethod
    def parse(cls, spec: str) -> Cluster:
        """Build a cluster from a SPEC string (see the module docstring)."""
        if not isinstance(spec, str) or not spec.strip():
            raise ClusterSpecError(
                "cluster spec: expected e.g. 'memory-mb=819200,vcores=800', got an empty string"
            )
        if "+" not in spec:
            return cls._parse_group(spec)
        nodes: list[Node] = []
        for group in spec.split("+"):
            part = cls._parse_group(group, offset=len(nodes))
            if not part.nodes or part.slots:
                raise ClusterSpecError(
                    f"cluster spec {spec!r}: each group joined by '+' expects nodes= or hosts= "
                    f"with memory-mb and vcores (no slots), got {group.strip()!r}"
                )
            nodes.extend(part.nodes)
        names = [n.name for n in nodes]
        if len(set(names)) != len(names):
            raise ClusterSpecError(f"cluster spec {spec!r}: a host is named in two groups")
        if len(nodes) > MAX_NODES:
            raise ClusterSpecError(f"cluster spec {spec!r}: more than {MAX_NODES} nodes")
        return cls(
            memory_mb=sum(n.memory_mb for n in nodes),
            vcores=sum(n.vcores for n in nodes),
            nodes=tuple(nodes),
        )

    @classmethod
    def _parse_group(cls, spec: str, offset: int = 0) -> Cluster:
        """A SPEC without ``+``; unnamed nodes are numbered from `offset`."""
        values, hosts = _spec_values(spec)
        if "memory-mb" in values and "memory-gb" in values:
            raise ClusterSpecError(
                f"cluster spec {spec!r}: expected memory-mb or memory-gb, not both"
            )
        memory = values.get("memory-mb", values.get("memory-gb", 0.0) * 1024.0)
        vcores = values.get("vcores", 0.0)
        slots = tuple(
            (stage, int(values[f"{stage}-slots"]))
            for stage in ("map", "reduce")
            if f"{stage}-slots" in values
        )
        count = len(hosts)
        if "nodes" in values:
            count = int(values["nodes"])
            if not 1 <= count <= MAX_NODES or count != values["nodes"]:
                raise ClusterSpecError(
                    f"cluster spec {spec!r}: nodes expects a whole number in [1, {MAX_NODES}]"
                )
            if hosts and count != len(hosts):
                raise ClusterSpecError(
                    f"cluster spec {spec!r}: nodes={count} but hosts names {len(hosts)}"
                )
        names = hosts or tuple(("", f"node{i:05d}") for i in range(offset, offset + count))
        if slots:
            total = sum(v for _, v in slots)
            # nodes= (or hosts=) with slots: the TaskTrackers the slots are spread over
            trackers = tuple(Node(host, memory, vcores, rack) for rack, host in names)
            return cls(
                memory_mb=memory or float(total),
                vcores=vcores or float(total),
                nodes=trackers,
                slots=slots,
            )
        if vcores == 0:
            each = " (each node's, e.g. vcores=8)" if count else ""
            raise ClusterSpecError(f"cluster spec {spec!r}: expected vcores > 0{each}")
        if count:
            nodes = tuple(Node(host, memory, vcores, rack) for rack, host in names)
            return cls(memory_mb=memory * count, vcores=vcores * count, nodes=nodes)
        return cls(memory_mb=memory, vcores=vcores)


def _size(node: Node) -> tuple[float, float]:
    return node.memory_mb, node.vcores


_SPEC_KEYS = ("memory-mb", "memory-gb", "vcores", "nodes", "map-slots", "reduce-slots", "hosts")


def _spec_values(spec: str) -> tuple[dict[str, float], tuple[tuple[str, str], ...]]:
    """A SPEC's numbers by key, and its ``hosts=`` as (rack, host) pairs."""
    values: dict[str, float] = {}
    hosts: tuple[tuple[str, str], ...] = ()
    for part in spec.split(","):
        key, sep, raw = part.partition("=")
        key = key.strip().lower()
        if not sep:
            raise ClusterSpecError(
                f"cluster spec {spec!r}: expected key=value, got {part.strip()!r}"
            )
        if key not in _SPEC_KEYS:
            raise ClusterSpecError(
                f"cluster spec {spec!r}: unknown key {key!r}; expected one of {', '.join(_SPEC_KEYS)}"
            )
        if key in values or (key == "hosts" and hosts):
            raise ClusterSpecError(
                f"cluster spec {spec!r}: {key} is given twice; expected each key once"
            )
        if key == "hosts":
            hosts = _hosts(spec, raw)
            continue
        try:
            value = float(raw)
        except ValueError:
            raise ClusterSpecError(
                f"cluster spec {spec!r}: {key} expects a number, got {raw.strip()!r}"
            ) from None
        if not (value >= 0 and math.isfinite(value)):
            raise ClusterSpecError(
                f"cluster spec {spec!r}: {key} expects a number >= 0, got {raw.strip()!r}"
            )
        values[key] = value
    return values, hosts


def _hosts(spec: str, raw: str) -> tuple[tuple[str, str], ...]:
    """``hosts=/rack/h1;/rack/h2;h3``: (rack, host) per node, in order, hosts distinct."""
    pairs = []
    for entry in raw.replace(" ", ";").split(";"):
        if entry.strip():
            rack, _, host = entry.strip().rpartition("/")
            pairs.append((rack, host))
    names = [host for _, host in pairs]
    if not pairs or "" in names or len(set(names)) != len(names):
        raise ClusterSpecError(
            f"cluster spec {spec!r}: hosts expects distinct [/rack/]host names separated by "
            f"';', got {raw.strip()!r}"
        )
    if len(pairs) > MAX_NODES:
        raise ClusterSpecError(f"cluster spec {spec!r}: hosts names more than {MAX_NODES} nodes")
    return tuple(pairs)


def spec_totals(spec: str | None) -> str:
    """A recorded cluster SPEC's `Cluster.totals` for a table or report ("-": none
    recorded; the SPEC itself when it does not parse, so nothing recorded is hidden)."""
    if not spec:
        return "-"
    try:
        return Cluster.parse(spec).totals()
    except ClusterSpecError:
        return spec
