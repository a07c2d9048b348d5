"""QS metrics: quantitative measures of how well each queue's objectives are met.

Lower is better for every metric (utilization and throughput are negated, as in
the Tempo paper). `evaluate` computes a table of metrics per queue (leaves,
parents aggregating their subtree, and ``root`` for the cluster) over a `Window`
of a `Schedule`, each job submitted in it followed to its finish (a job that
never finished is an `UnfinishedJobsError`, or for an observed trace a warning);
`METRICS` lists the metric names, units and parameters.
"""

from whatif.metrics.deadlines import has_deadlines, job_deadlines
from whatif.metrics.evaluate import (
    UNFINISHED,
    evaluate,
    require_finished,
    unfinished_jobs,
    unfinished_message,
)
from whatif.metrics.registry import METRICS, Metric, MetricSpec, ParamSpec, metric_spec
from whatif.metrics.tree import QueueTree, full_path
from whatif.metrics.window import Window

__all__ = [
    "METRICS",
    "Metric",
    "MetricSpec",
    "ParamSpec",
    "QueueTree",
    "UNFINISHED",
    "Window",
    "evaluate",
    "full_path",
    "has_deadlines",
    "job_deadlines",
    "metric_spec",
    "require_finished",
    "unfinished_jobs",
    "unfinished_message",
]
