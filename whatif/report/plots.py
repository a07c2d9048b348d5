"""The report's figures (matplotlib, Agg backend) as PNG bytes.

Cluster sizes are drawn as what they are (node count, else task slots, else vcores),
never as a scale index, and every figure marks the smallest cluster that meets every
SLO (the recommendation) where the analysis found one:

- `qs_versus_scale`: each QS against the cluster size, one line per scenario, spread
  as error bars, the SLO threshold dashed, the cluster as given and the smallest
  meeting every SLO as vertical lines;
- `usage_timeline`: each queue's share of the cluster over time, per scenario, full
  width, with the recommended cluster's share as a line;
- `response_cdfs`: each queue's response-time CDF, one line per grid cluster size;
- `preemption_waste`: each queue's killed resource-time, per grid cluster size.
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

from whatif.cluster import Cluster
from whatif.errors import ValidationError
from whatif.metrics import metric_spec
from whatif.provisioning import ProvisioningAnalysis, ScenarioResult

if TYPE_CHECKING:  # imported where used, after matplotlib.use("Agg")
    from matplotlib.figure import Figure


def figure(
    n_panels: int, *, width: float = 4.2, height: float = 3.0, columns: int = 3
) -> tuple[Figure, np.ndarray]:
    """A matplotlib figure (Agg, no pyplot state) with `n_panels` axes in a grid of
    `columns`, each `width` x `height` inches; unused cells hidden. Returns (figure, axes)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    columns = max(1, min(columns, n_panels))
    rows = max(1, math.ceil(n_panels / columns))
    fig = Figure(figsize=(width * columns, height * rows), dpi=90, layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def png(figure: Figure) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def cluster_size(cluster: Cluster) -> float:
    """A cluster's size on an axis: its node count, else its task slots, else its vcores."""
    if cluster.nodes:
        return float(len(cluster.nodes))
    if cluster.slots:
        return float(sum(count for _, count in cluster.slots))
    return float(cluster.vcores)


def describe_size(cluster: Cluster) -> str:
    """``24 nodes``, ``40 slots`` or ``8 vcores``."""
    unit = "nodes" if cluster.nodes else "slots" if cluster.slots else "vcores"
    return f"{cluster_size(cluster):g} {unit}"


def size_axis_label(cluster: Cluster) -> str:
    """The size axis' label, with the unit a node is when nodes are counted."""
    if cluster.nodes and len({(n.memory_mb, n.vcores) for n in cluster.nodes}) == 1:
        node = cluster.nodes[0]
        return f"cluster size (nodes of {node.memory_mb:g} MB, {node.vcores:g} vcores)"
    if cluster.nodes:
        return "cluster size (nodes)"
    return "cluster size (task slots)" if cluster.slots else "cluster size (vcores)"


def recommendation(result: ScenarioResult) -> str:
    """``smallest meeting every SLO: 7 nodes`` (or that none of those tried does)."""
    smallest = result.smallest
    if smallest is None:
        return "no cluster tried meets every SLO"
    return f"smallest meeting every SLO: {describe_size(smallest.cluster)}"


def label_unit(label: str) -> str:
    """The unit (``s``, ``fraction``, ``jobs``) of a ``queue:metric(params)`` QS label, ""
    for a metric this version does not know."""
    metric = label.rpartition(":")[2].partition("(")[0]
    try:
        return metric_spec(metric).unit
    except ValidationError:
        return ""


def _value_label(label: str) -> str:
    """A QS axis label with its unit: ``seconds``, ``fraction (0 to 1)`` or ``jobs``."""
    unit = label_unit(label)
    return {"s": "seconds", "fraction": "fraction (0 to 1)", "jobs": "jobs", "": "value"}.get(
        unit, unit
    )


def _reference(result: ScenarioResult) -> float:
    """The grid scale closest to 1 (the cluster as given) among those with details."""
    return min(result.details, key=lambda s: abs(math.log(s)))


def _cluster_at(analysis: ProvisioningAnalysis, result: ScenarioResult, scale: float) -> Cluster:
    return next((r.cluster for r in result.scales if r.scale == scale), None) or (
        analysis.cluster.scaled(scale)
    )


def qs_versus_scale(analysis: ProvisioningAnalysis) -> bytes:
    """`qs_versus_size_figure` as PNG."""
    return png(qs_versus_size_figure(analysis))


def qs_versus_size_figure(analysis: ProvisioningAnalysis) -> Figure:
    """Each QS versus the cluster size, per scenario, with SLO thresholds, the cluster as
    given and the smallest one meeting every SLO drawn."""
    fig, axes = figure(len(analysis.labels))
    sizes = [cluster_size(r.cluster) for s in analysis.scenarios for r in s.scales]
    grid = sorted(
        {cluster_size(r.cluster) for s in analysis.scenarios for r in s.scales if r.on_grid}
    )
    given = cluster_size(analysis.cluster)
    low, high = min(sizes + [given]), max(sizes + [given])
    for j, (ax, label) in enumerate(zip(axes, analysis.labels, strict=True)):
        for k, s in enumerate(analysis.scenarios):
            color = f"C{k}"
            x = np.array([cluster_size(r.cluster) for r in s.scales])
            mean = np.array([r.mean[j] for r in s.scales])
            spread = np.array([r.spread[j] for r in s.scales])
            ax.errorbar(
                x, mean, yerr=spread, marker="o", ms=4, capsize=3, color=color,
                label=s.scenario.label,
            )  # fmt: skip
            if s.smallest is not None:
                ax.axvline(
                    cluster_size(s.smallest.cluster), color=color, ls=":", lw=1.4,
                    label=recommendation(s),
                )  # fmt: skip
        ax.axvline(
            given,
            color="grey",
            ls="-.",
            lw=1.0,
            label=f"as given: {describe_size(analysis.cluster)}",
        )
        for _queue, _metric, threshold, op, column in analysis.thresholds:
            if column == j:
                ax.axhline(threshold, color="red", ls="--", lw=1.2, label=f"SLO {op} {threshold:g}")
        ax.set_xscale("log", base=2)
        ax.set_xlim(low / 1.25, high * 1.25)  # fixed: a QS with nothing measured plots no point
        ax.xaxis.set_major_locator(FixedLocator(grid or [given]))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel(size_axis_label(analysis.cluster))
        ax.set_ylabel(_value_label(label))
        ax.set_title(label, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    return fig


def usage_timeline(analysis: ProvisioningAnalysis) -> bytes:
    """`usage_timeline_figure` as PNG."""
    return png(usage_timeline_figure(analysis))


def usage_timeline_figure(analysis: ProvisioningAnalysis) -> Figure:
    """Each queue's dominant share of the cluster over time, per scenario (the grid size
    nearest the cluster as given), full width, in % and in nodes' worth, with the share
    the smallest cluster meeting every SLO would be."""
    scenarios = [s for s in analysis.scenarios if s.details]
    fig, axes = figure(len(scenarios), width=12.0, height=3.4, columns=1)
    for ax, s in zip(axes, scenarios, strict=True):
        scale = _reference(s)
        cluster = _cluster_at(analysis, s, scale)
        size = cluster_size(cluster)
        summary = s.details[scale]
        hours = (summary.edges_s[:-1] - summary.edges_s[0]) / 3600.0
        queues = sorted(summary.usage)
        ax.stackplot(hours, [100 * summary.usage[q] for q in queues], labels=queues, step="post")
        if s.smallest is not None:
            share = 100 * cluster_size(s.smallest.cluster) / size
            ax.axhline(share, color="black", ls=":", lw=1.4, label=recommendation(s))
        ax.set_xlabel("hours since the first job's submission")
        ax.set_ylabel("% of the cluster (dominant share)")
        unit = describe_size(cluster).split()[1]
        secondary = ax.secondary_yaxis(
            "right", functions=(lambda p, n=size: p * n / 100, lambda v, n=size: v * 100 / n)
        )
        secondary.set_ylabel(f"{unit}' worth (of {size:g})")
        ax.set_title(f"{s.scenario.label}, on {describe_size(cluster)}", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    return fig


def response_cdfs(analysis: ProvisioningAnalysis) -> bytes:
    """Each queue's response-time CDF at every grid cluster size (first scenario)."""
    s = analysis.scenarios[0]
    queues = sorted({q for summary in s.details.values() for q in summary.response_s})
    fig, axes = figure(len(queues))
    for ax, queue in zip(axes, queues, strict=True):
        for k, (scale, summary) in enumerate(sorted(s.details.items())):
            times = summary.response_s.get(queue, np.array([]))
            if times.size:
                ax.step(
                    times / 60.0,
                    np.arange(1, times.size + 1) / times.size,
                    where="post",
                    color=f"C{k}",
                    label=describe_size(_cluster_at(analysis, s, scale)),
                )
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels overlap on short ranges
        ax.set_xlabel("response time (min)")
        ax.set_ylabel("fraction of jobs")
        ax.set_title(f"{queue} ({s.scenario.label})", fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, title=recommendation(s), title_fontsize=7)
    return png(fig)


def preemption_waste(analysis: ProvisioningAnalysis) -> bytes:
    """Killed (preempted) memory-time per queue and grid cluster size (first scenario), in
    GB-hours."""
    s = analysis.scenarios[0]
    scales = sorted(s.details)
    queues = sorted({q for summary in s.details.values() for q in summary.waste_gb_h})
    fig, axes = figure(1, width=7.0, height=3.4)
    ax = axes[0]
    width = 0.8 / max(1, len(scales))
    x = np.arange(len(queues))
    for k, scale in enumerate(scales):
        summary = s.details[scale]
        values = [summary.waste_gb_h.get(q, 0.0) for q in queues]
        label = describe_size(_cluster_at(analysis, s, scale))
        ax.bar(x + k * width, values, width, color=f"C{k}", label=label)
    ax.set_xticks(x + width * (len(scales) - 1) / 2, queues, fontsize=8)
    ax.set_ylabel("killed memory-time (GB-h)")
    ax.set_title(f"Preemption waste ({s.scenario.label})", fontsize=9)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7, title=recommendation(s), title_fontsize=7)
    return png(fig)
