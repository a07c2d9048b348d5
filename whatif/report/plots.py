"""The report's figures (matplotlib, Agg backend) as PNG bytes.

- `qs_versus_scale`: each QS against the cluster scale, one line per scenario,
  spread as error bars, the SLO threshold dashed, the smallest scale dotted;
- `usage_timeline`: each queue's share of the cluster over time, per scenario;
- `response_cdfs`: each queue's response-time CDF, one line per grid scale;
- `preemption_waste`: each queue's killed resource-time, per grid scale.
"""

from __future__ import annotations

import io
import math

import numpy as np
from matplotlib.ticker import NullFormatter

from whatif.provisioning import ProvisioningAnalysis, ScenarioResult


def figure(n_panels: int, *, width: float = 4.2, height: float = 3.0, columns: int = 3):
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


def png(figure) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _reference(result: ScenarioResult) -> float:
    """The grid scale closest to 1 (the cluster as given) among those with details."""
    return min(result.details, key=lambda s: abs(math.log(s)))


def qs_versus_scale(analysis: ProvisioningAnalysis) -> bytes:
    """Each QS versus the cluster scale, per scenario, with SLO thresholds drawn."""
    fig, axes = figure(len(analysis.labels))
    evaluated = [r.scale for s in analysis.scenarios for r in s.scales]
    low, high = min(evaluated), max(evaluated)
    for j, (ax, label) in enumerate(zip(axes, analysis.labels, strict=True)):
        for k, s in enumerate(analysis.scenarios):
            color = f"C{k}"
            scales = np.array([r.scale for r in s.scales])
            mean = np.array([r.mean[j] for r in s.scales])
            spread = np.array([r.spread[j] for r in s.scales])
            ax.errorbar(
                scales,
                mean,
                yerr=spread,
                marker="o",
                ms=4,
                capsize=3,
                color=color,
                label=s.scenario.label,
            )
            if s.bisection.scale is not None:
                ax.axvline(s.bisection.scale, color=color, ls=":", lw=1.2)
        for _queue, _metric, threshold, op, column in analysis.thresholds:
            if column == j:
                ax.axhline(threshold, color="red", ls="--", lw=1.2, label=f"SLO {op} {threshold:g}")
        ax.set_xscale("log", base=2)
        ax.set_xlim(low / 1.25, high * 1.25)  # fixed: a QS with nothing measured plots no point
        ax.set_xlabel("cluster scale")
        ax.set_title(label, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    return png(fig)


def usage_timeline(analysis: ProvisioningAnalysis) -> bytes:
    """Each queue's dominant share of the cluster over time, per scenario (scale nearest 1)."""
    scenarios = [s for s in analysis.scenarios if s.details]
    fig, axes = figure(len(scenarios), width=6.0, columns=2)
    for ax, s in zip(axes, scenarios, strict=True):
        scale = _reference(s)
        summary = s.details[scale]
        hours = (summary.edges_s[:-1] - summary.edges_s[0]) / 3600.0
        queues = sorted(summary.usage)
        ax.stackplot(hours, [100 * summary.usage[q] for q in queues], labels=queues, step="post")
        ax.set_xlabel("hours")
        ax.set_ylabel("% of cluster")
        ax.set_title(f"{s.scenario.label}, scale {scale:g}", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
    return png(fig)


def response_cdfs(analysis: ProvisioningAnalysis) -> bytes:
    """Each queue's response-time CDF at every grid scale (first scenario)."""
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
                    label=f"scale {scale:g}",
                )
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels overlap on short ranges
        ax.set_xlabel("response time (min)")
        ax.set_ylabel("fraction of jobs")
        ax.set_title(f"{queue} ({s.scenario.label})", fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    return png(fig)


def preemption_waste(analysis: ProvisioningAnalysis) -> bytes:
    """Killed (preempted) memory-time per queue and grid scale (first scenario), in GB-hours."""
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
        ax.bar(x + k * width, values, width, color=f"C{k}", label=f"scale {scale:g}")
    ax.set_xticks(x + width * (len(scales) - 1) / 2, queues, fontsize=8)
    ax.set_ylabel("killed memory-time (GB-h)")
    ax.set_title(f"Preemption waste ({s.scenario.label})", fontsize=9)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7)
    return png(fig)
