"""QS metrics: quantitative measures of how well each queue's objectives are met.

Lower is better for every metric (utilization and throughput are negated, as in
the Tempo paper). `evaluate` computes a table of metrics per queue (leaves,
parents aggregating their subtree, and ``root`` for the cluster) over a `Window`
of a `Schedule`; `METRICS` lists the metric names, units and parameters.
"""

from whatif.metrics.deadlines import has_deadlines, job_deadlines
from whatif.metrics.evaluate import evaluate
from whatif.metrics.registry import METRICS, Metric, MetricSpec, ParamSpec, metric_spec
from whatif.metrics.tree import QueueTree, full_path
from whatif.metrics.window import Window

__all__ = [
    "METRICS",
    "Metric",
    "MetricSpec",
    "ParamSpec",
    "QueueTree",
    "Window",
    "evaluate",
    "full_path",
    "has_deadlines",
    "job_deadlines",
    "metric_spec",
]
