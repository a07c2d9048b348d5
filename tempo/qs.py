"""`qs_report`: the value of every QS metric per queue, observed and predicted, and each template constraint's status.

This is what ``tempo qs`` shows and what the control loop logs: the numbers a
DBA looks at to choose template thresholds (Tempo paper, section 5.2).
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tempo.errors import TempoError
from tempo.templates import Constraint, QSTemplate, required_metrics
from whatif.cluster import Cluster
from whatif.durations import format_duration, format_instant
from whatif.errors import UnfinishedJobsError
from whatif.metrics import Metric, Window, evaluate, has_deadlines, unfinished_jobs
from whatif.readers import detect_format, read_native, read_trace
from whatif.readers.native import read_native_times
from whatif.schedule import Schedule
from whatif.trace import Trace
from whatif.workload import Workload

logger = logging.getLogger(__name__)

#: Metrics shown for every queue, whatever the templates ask for.
BASE_METRICS = (Metric("QS_AJR"), Metric("QS_PCT"), Metric("QS_SLOWDOWN"), Metric("QS_THR"))
#: Shown when the cluster is known.
RESOURCE_METRICS = (Metric("QS_UTIL"), Metric("QS_UTIL_NOPREEMPT"), Metric("QS_WASTE"))
#: Shown when the workload carries deadlines or recurring jobs.
DEADLINE_METRICS = (Metric("QS_DL"), Metric("QS_ATTAIN"))
#: Width `QSReport.to_text` wraps the metric table to (queues go into blocks).
TEXT_WIDTH = 100
#: Spaces between two queues' columns.
_GAP = 2


@dataclass(frozen=True, eq=False)
class QSReport:
    """QS values per queue and metric, and template constraints with their status.

    ``values``: one row per (queue, metric) with columns ``queue``, ``metric``
    (label), ``unit``, ``observed`` and ``predicted`` (NaN when no prediction).
    ``constraints``: one row per template constraint with ``queue``,
    ``constraint`` (as text), ``metric``, ``unit``, ``op``, ``threshold``, ``observed``,
    ``observed_met``, ``predicted``, ``predicted_met`` (True or False; False also
    when there was nothing to measure, which never keeps a constraint; None only
    for a side that is absent: no prediction or no observation). ``observed_unfinished`` counts the
    observed jobs submitted in the window that were still running when the trace
    ended: left out of the job metrics, and said so.
    """

    window: Window
    values: pd.DataFrame
    constraints: pd.DataFrame
    has_prediction: bool
    has_observation: bool = True
    observed_unfinished: int = 0

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict (NaN becomes None)."""

        def clean(records: list[dict[Hashable, Any]]) -> list[dict[str, object]]:
            return [
                {
                    str(k): (None if isinstance(v, float) and math.isnan(v) else v)
                    for k, v in r.items()
                }
                for r in records
            ]

        values, constraints = self.values, self.constraints
        for side, present in (
            ("observed", self.has_observation),
            ("predicted", self.has_prediction),
        ):
            if not present:
                values = values.drop(columns=side)
                constraints = constraints.drop(columns=[side, f"{side}_met"])
        out: dict[str, object] = {
            "window": {
                "start_s": self.window.start_s,
                "end_s": self.window.end_s,
                "length_s": self.window.length_s,
            },
            "values": clean(values.to_dict("records")),
            "constraints": clean(constraints.to_dict("records")),
        }
        if self.has_observation:
            out["observed_unfinished"] = self.observed_unfinished
        return out

    def to_text(self, width: int = TEXT_WIDTH) -> str:
        """Plain text: metrics (rows) by queue, each queue's observed and predicted values in
        adjacent columns, wrapped into blocks of queues to fit `width` characters; then the
        constraints with their status on each side."""
        w = self.window
        start, end = (format_instant(t, zone=True) for t in (w.start_s, w.end_s))
        lines = [f"window {start} to {end} ({w.length_s / 60:g} min)"]
        if self.observed_unfinished:
            lines.append(f"WARNING: {unfinished_note(self.observed_unfinished)}")
        sides = [
            s
            for s, on in (("observed", self.has_observation), ("predicted", self.has_prediction))
            if on
        ]
        lines += _side_by_side(self.values, sides, width)
        if not self.constraints.empty:
            lines.append("")
            lines.append("constraints")
            row: Any  # a namedtuple of the constraints table's columns
            for row in self.constraints.itertuples(index=False):
                parts = [
                    f"{side} {format_value(getattr(row, side), row.unit)} "
                    f"{_status(getattr(row, side + '_met'), getattr(row, side))}"
                    for side in sides
                ]
                lines.append(f"  {row.queue:<20} {row.constraint:<32} " + ", ".join(parts))
        return "\n".join(lines)


def _side_by_side(values: pd.DataFrame, sides: list[str], width: int) -> list[str]:
    """The metric table's lines: per block of queues that fits `width`, a blank line, the
    queue names centred over their columns, the side names, then one line per metric."""
    metrics = list(dict.fromkeys(values["metric"]))
    queues = list(dict.fromkeys(values["queue"]))
    text = {
        side: values.assign(
            text=[format_value(v, u) for v, u in zip(values[side], values["unit"], strict=True)]
        )
        .pivot(index="metric", columns="queue", values="text")
        .reindex(index=metrics, columns=queues)
        for side in sides
    }
    longest = max(len(t) for frame in text.values() for t in frame.to_numpy().ravel())
    cell = max(longest, *map(len, sides)) + 1
    first = max(len("metric"), *map(len, metrics)) + 1
    # Each queue spans its sides' cells (or its name), after a gap from the previous queue.
    span = {q: max(cell * len(sides), len(q)) for q in queues}
    # As few blocks as fit `width`, with the queues spread evenly over them.
    blocks = _wrap(span, width - first, len(_wrap(span, width - first)))
    gap = " " * _GAP
    lines = []
    for block in blocks:
        lines += ["", " " * first + "".join(gap + q.center(span[q]) for q in block).rstrip()]
        lines.append(
            "metric".ljust(first)
            + "".join(gap + "".join(s.rjust(cell) for s in sides).rjust(span[q]) for q in block)
        )
        for metric in metrics:
            cells = (
                gap + "".join(str(text[s].at[metric, q]).rjust(cell) for s in sides).rjust(span[q])
                for q in block
            )
            lines.append(metric.ljust(first) + "".join(cells))
    return lines


def _wrap(span: dict[str, int], room: int, count: int = 1) -> list[list[str]]:
    """The queues in order, in blocks whose spans and gaps fit `room`, spread evenly over
    about `count` blocks (as full as they fit when `count` is 1)."""
    queues = list(span)
    blocks: list[list[str]] = []
    i = 0
    while i < len(queues):
        most = -(-(len(queues) - i) // max(count - len(blocks), 1))
        block, used = [queues[i]], _GAP + span[queues[i]]
        i += 1
        while i < len(queues) and len(block) < most and used + _GAP + span[queues[i]] <= room:
            block.append(queues[i])
            used += _GAP + span[queues[i]]
            i += 1
        blocks.append(block)
    return blocks


def read_qs_trace(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    window_s: float | None = None,
    **options: object,
) -> tuple[Trace, Window | None]:
    """The trace at `path` as observed QS metrics over its last `window_s` seconds need it,
    and that window (the last `window_s` of `Window.covering` its observed schedule).

    From a native trace with an observed schedule only what the window's metrics look at is
    read (`read_native`'s ``since_s``: every job, the tasks of those submitted in the window,
    the attempts that ran in it), once the window is placed by the schedule's time columns
    alone; the values are those of the whole trace. Otherwise, or without `window_s`, the
    whole trace is read and the window is None (the caller places it). `options` go to
    the trace's reader (e.g. a Hadoop 1 history's ``pool_name_property``).
    """
    if window_s is not None and (format or detect_format(path)) == "native":
        root = Path(path)
        root = root.parent if root.name == "trace.json" else root
        times = read_native_times(root)
        if times is not None:
            window = Window.covering_times(times).last(window_s)
            return read_native(root, since_s=window.start_s), window
    return read_trace(path, format=format, **options), None


def qs_report(
    schedule: Schedule | None,
    templates: Sequence[QSTemplate] = (),
    *,
    window: Window,
    cluster: Cluster | None = None,
    workload: Workload | None = None,
    predicted: Schedule | None = None,
    queues: Iterable[str] = (),
) -> QSReport:
    """Every QS metric of every queue of `schedule` (and of `predicted`) over `window`.

    The metrics shown are `BASE_METRICS`, `RESOURCE_METRICS` when `cluster` is
    given, `DEADLINE_METRICS` when `workload` carries deadlines, and every
    metric the templates name. Queues are those of the schedules, the
    templates and `queues`. `schedule` (the observed one) may be None when
    a trace recorded no task times; then only `predicted` has values.

    Every job submitted in the window is followed to its finish, even past the
    window's end. Observed jobs still running when the trace ended are left out
    of the job metrics with a warning (``observed_unfinished`` counts them); a
    predicted job that never finished raises `UnfinishedJobsError`.
    """
    if schedule is None and predicted is None:
        raise TempoError("qs_report: give an observed schedule, a predicted one, or both")
    templates = list(templates)
    metrics = _report_metrics(templates, cluster, workload)
    names = [*queues, *(t.queue for t in templates)]
    if predicted is not None:
        names += predicted.queues
    if schedule is not None:
        names += schedule.queues
    measure = partial(evaluate, window=window, cluster=cluster, workload=workload, queues=names)
    tables = {}
    if schedule is not None:
        tables["observed"] = measure(schedule, metrics, unfinished="warn")
    if predicted is not None:
        try:
            tables["predicted"] = measure(predicted, metrics)
        except UnfinishedJobsError as error:
            raise UnfinishedJobsError(
                f"predicted schedule: {error}",
                count=error.count,
                job_ids=error.job_ids,
                queues=error.queues,
            ) from None
    index = next(iter(tables.values())).index
    blank = pd.DataFrame(np.nan, index=index, columns=[m.label for m in metrics])
    observed = tables.get("observed", blank).reindex(index=index)
    forecast = tables.get("predicted", blank).reindex(index=index)
    units = {m.label: m.unit for m in metrics}
    values = (
        _stacked(observed, "observed")
        .to_frame()
        .join(_stacked(forecast, "predicted"))
        .reset_index()
        .rename(columns={"level_1": "metric"})
    )
    values.insert(2, "unit", values["metric"].map(units))
    table = _constraint_table(
        templates,
        observed,
        forecast,
        observed_on=schedule is not None,
        predicted_on=predicted is not None,
    )
    cut = 0 if schedule is None else len(unfinished_jobs(schedule, window))
    return QSReport(window, values, table, predicted is not None, schedule is not None, cut)


def _report_metrics(
    templates: Sequence[QSTemplate], cluster: Cluster | None, workload: Workload | None
) -> list[Metric]:
    """`BASE_METRICS`, the resource ones with a cluster, the deadline ones when the workload
    has deadlines, then any other metric the templates name."""
    metrics = list(BASE_METRICS)
    if cluster is not None:
        metrics += RESOURCE_METRICS
    if has_deadlines(workload):
        metrics += DEADLINE_METRICS
    return list(dict.fromkeys([*metrics, *required_metrics(templates)]))


def _stacked(table: pd.DataFrame, name: str) -> pd.Series:
    """A (queue x metric) table as one Series indexed by (queue, metric), named `name`."""
    stacked = table.stack(future_stack=True)
    assert isinstance(stacked, pd.Series)  # one column level
    return stacked.rename(name)


def _cell(table: pd.DataFrame, queue: str, label: str) -> float:
    """One queue's value of one metric (NaN when it could not be measured)."""
    value: Any = table.at[queue, label]  # pandas-stubs type a cell as any scalar
    return float(value)


def _constraint_table(
    templates: Sequence[QSTemplate],
    observed: pd.DataFrame,
    forecast: pd.DataFrame,
    *,
    observed_on: bool,
    predicted_on: bool,
) -> pd.DataFrame:
    """One row per template constraint: its observed and predicted values and whether each
    keeps it (None for a side not shown)."""
    rows = []
    for template in templates:
        for c in template.constraints:
            seen = _cell(observed, template.queue, c.metric.label)
            guess = _cell(forecast, template.queue, c.metric.label)
            rows.append(
                {
                    "queue": template.queue,
                    "constraint": constraint_text(c),
                    "metric": c.metric.label,
                    "unit": c.metric.unit,
                    "op": c.op,
                    "threshold": c.threshold,
                    "observed": seen,
                    "observed_met": _kept(c, seen) if observed_on else None,
                    "predicted": guess,
                    "predicted_met": _kept(c, guess) if predicted_on else None,
                }
            )
    columns = [
        "queue",
        "constraint",
        "metric",
        "unit",
        "op",
        "threshold",
        "observed",
        "observed_met",
        "predicted",
        "predicted_met",
    ]
    # Object columns keep the statuses as Python True/False/None (JSON-ready).
    return pd.DataFrame(rows, columns=columns).astype(
        {"observed_met": object, "predicted_met": object}
    )


def unfinished_note(count: int) -> str:
    """What a report says of `count` observed jobs still running when the trace ended."""
    jobs = f"{count} job{'s' if count != 1 else ''}"
    return (
        f"{jobs} submitted in the window {'was' if count == 1 else 'were'} still running when "
        "the trace ended: left out of the observed QS_AJR, QS_PCT, QS_SLOWDOWN, QS_DL and "
        "QS_THR, counted as misses by QS_ATTAIN"
    )


def constraint_text(constraint: Constraint) -> str:
    """``QS_PCT <= 1800.0s``: a constraint with its threshold in the unit people read."""
    threshold = format_value(constraint.threshold, constraint.metric.unit)
    return f"{constraint.metric.label} {constraint.op} {threshold}"


def format_value(value: float, unit: str) -> str:
    """A QS value for people: fractions in %, seconds in s, counts as integers."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if unit == "fraction":
        return f"{value * 100:.1f}%"
    if unit == "s":
        return f"{value:.1f}s"
    if unit == "jobs":
        return f"{value:.0f}"
    return f"{value:.2f}"


def _kept(constraint: Constraint, value: float) -> bool:
    """Whether `constraint` holds for `value`; a value with nothing measured (NaN) never does."""
    return bool(constraint.is_met(value))


def _status(met: bool | None, value: float = 0.0) -> str:
    if met is None:
        return "n/a"
    if met:
        return "met"
    return "NOT MET (nothing measured)" if value != value else "VIOLATED"


def warn_window_longer(window: Window, workload: Workload, option: str) -> bool:
    """Log when `window` (asked for as `option`, e.g. ``--window 10d``) starts before the
    workload's first submission: the shares averaged over the window count the time
    before the trace as idle. Returns whether it did."""
    first = float(workload.jobs["submit_s"].min())
    if not window.start_s < first:
        return False
    logger.warning(
        "%s: the window is longer than the trace, which covers its last %s (from the first "
        "submission at %s s); QS_UTIL, QS_UTIL_NOPREEMPT and QS_FAIR average over the whole "
        "window, so the time before the trace counts as idle",
        option,
        format_duration(window.end_s - first),
        f"{first:,.1f}",
    )
    return True
