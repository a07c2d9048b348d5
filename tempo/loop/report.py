"""Report: what one iteration (and a whole `tempo tune` run) saw and decided, and how a
step's changes read."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tempo.loop.observe import QS
from whatif.allocation import SettingDiff
from whatif.cluster import Cluster


@dataclass(frozen=True, eq=False)
class IterationReport:
    """What one iteration saw and decided, for the console and for tests.

    ``baseline``: the QS observed before the previous step, when this iteration
    judged that step; ``reference``: what the step was judged against when that baseline
    was carried over to this window's load (`tempo.loop.decide.load_adjusted`; None when
    judged against the baseline itself); ``diff``: the settings the candidate (or the rollback) changes;
    ``rm_error``: why the cluster could not be read (its clock or the window), when
    that is what stopped the iteration (the CLI exits with the remote-failure status);
    ``write_error``: ``FILE: reason`` when the step (or rollback) could not be written
    (a full disk, a read-only directory; the CLI exits 2); ``cluster``: the SPEC of the
    cluster the window was measured and predicted on (None: none given);
    ``cluster_change``: ``before -> after`` (`describe_nodes`) when the RM's nodes changed
    since the previous window, else "".
    """

    id: int
    begin_s: float
    end_s: float
    decision: str
    reason: str
    observed: QS = field(default_factory=dict)
    baseline: QS | None = None
    reference: QS | None = None
    predicted: QS | None = None
    predicted_current: QS | None = None
    diff: tuple[SettingDiff, ...] = ()
    distance: float | None = None
    config_sha256: str | None = None
    candidate_sha256: str | None = None
    jobs: int = 0
    rm_error: str | None = None
    write_error: str | None = None
    cluster: str | None = None
    cluster_change: str = ""


def describe_nodes(cluster: Cluster) -> str:
    """A cluster's nodes in one line: how many, their total, how many sizes."""
    sizes = {(n.memory_mb, n.vcores) for n in cluster.nodes}
    return (
        f"{len(cluster.nodes):,} RUNNING node(s), {cluster.memory_mb:,.0f} MB and "
        f"{cluster.vcores:,.0f} vcores in all, {len(sizes)} node size(s)"
    )


def same_nodes(a: Cluster, b: Cluster) -> bool:
    """Whether two readings of a cluster have the same nodes, in any order (an RM may list
    its nodes in another order from one request to the next)."""
    totals = (a.memory_mb, a.vcores, a.slots) == (b.memory_mb, b.vcores, b.slots)
    return totals and Counter(a.nodes) == Counter(b.nodes)


def describe_change(diff: SettingDiff) -> str:
    """``queue element: old -> new`` in allocation-file syntax (``minResources: 40960 mb,
    40 vcores``, ``never`` for an unset timeout), as ``tempo optimize`` and ``config diff``
    print it."""
    return diff.describe().replace("  ", " ", 1)


def changes(diff: Sequence[SettingDiff], shown: int = 8) -> str:
    """``N setting(s): queue element: old -> new; ...`` (the first `shown`)."""
    listed = "; ".join(describe_change(d) for d in diff[:shown])
    more = f"; and {len(diff) - shown} more" if len(diff) > shown else ""
    return f"{len(diff)} setting(s): {listed}{more}"


@dataclass(frozen=True, eq=False)
class TuneRun:
    """What a `tune` run did: where, from what state, and every iteration's report."""

    config_path: Path
    journal_path: Path
    emulated: bool
    resumed: str
    reports: tuple[IterationReport, ...] = field(default=())
    interrupted: bool = False
    #: How the cluster read from the RM looks, when ``--cluster`` was not given ("" else).
    cluster_from_rm: str = ""
    #: The QS templates the run tuned for (a file or a directory of them).
    templates_path: Path | None = None

    @property
    def rm_error(self) -> str | None:
        """Why the cluster could not be read in the last iteration, if that stopped it."""
        return self.reports[-1].rm_error if self.reports else None

    @property
    def write_error(self) -> str | None:
        """``FILE: reason`` when the last iteration could not write the allocation file."""
        return self.reports[-1].write_error if self.reports else None
