"""How large a workload `WorkloadModel.generate` takes on, checked before it draws anything.

A request is sized from the model alone, in floating point (no array per clock hour or
per job): each queue's expected ad-hoc jobs over the window (its arrival rates times
``arrival_scale``) and recurring instances, times the mean tasks of a job shape after
data growth. A request over `MAX_GENERATED_ROWS` is refused with a `GenerateSizeError`,
so a mistyped ``--hours 1e9`` is an error, not a process that fills the memory; so is one
whose end (start plus hours) is past `LAST_START_S`, whose trace no date could show.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from whatif.durations import HOUR_S, LAST_INSTANT_S
from whatif.errors import ValidationError
from whatif.workload_model.queue import QueueModel

#: Most jobs and tasks together one `generate` call makes. It holds about 450 bytes
#: per row at its peak (2.2M tasks took 1.2 GB), so 20M rows is about 9 GB: room on a
#: 16-24 GB machine. It is twice the 10M tasks the predictor is measured at
#: (docs/predictor.md: about 4 GB at its peak), so whatever is generated can be replayed.
MAX_GENERATED_ROWS = 20_000_000
#: Longest window `generate` takes, in hours (about 114 years): its arrival sampler holds
#: a few numbers per clock hour of the window, whatever the rates, about 50 MB here.
MAX_HOURS = 1_000_000.0
#: Largest data growth factor per queue: a thousand times the data per job is beyond any
#: what-if the fitted job shapes can answer, and keeps grown durations finite.
MAX_GROWTH = 1000.0
#: The last start `WorkloadModel.generate` takes, and the last end (start plus hours):
#: the last second a date shows (trace times are >= 0, as every reader requires).
LAST_START_S = LAST_INSTANT_S


class GenerateSizeError(ValidationError):
    """A `generate` request over `MAX_GENERATED_ROWS` or `MAX_HOURS`, or ending past
    `LAST_START_S`. `fields` are the arguments to lower (`sign` how they combine) and
    `detail` the problem, for a caller that names its own options (the CLI's ``--hours``,
    ``--arrival-scale``, ``--start``)."""

    def __init__(self, fields: tuple[str, ...], detail: str, *, sign: str = "x") -> None:
        super().__init__(f"{f' {sign} '.join(fields)}: {detail}; lower {' or '.join(fields)}")
        self.fields, self.detail = fields, detail


def _tasks_per_job(counts: Sequence[Sequence[int]], growth: float, grown: int | None) -> np.ndarray:
    """Tasks of each job shape after data growth (`grow_counts` on stage `grown`: a
    positive count n becomes n * growth on average, and never less than one)."""
    rows = np.asarray(counts, dtype=float).reshape(len(counts), -1)
    if grown is not None and rows.size:
        column = rows[:, grown]
        rows[:, grown] = np.where(column > 0, np.maximum(column * growth, 1.0), 0.0)
    result: np.ndarray = rows.sum(axis=1)
    return result


def queue_size(queue: QueueModel, start_s: float, end_s: float) -> tuple[float, float]:
    """Expected (jobs, tasks) `generate_queue` draws for `queue` in [start_s, end_s)."""
    grown = queue.input_stage if queue.growth != 1.0 else None
    adhoc = queue.arrivals.expected(start_s, end_s, scale=queue.arrival_scale)
    tasks = 0.0
    if queue.shapes.counts and adhoc > 0:
        per_shape = _tasks_per_job(queue.shapes.counts, queue.growth, grown)
        weights = np.asarray(queue.shapes.weights, dtype=float)
        tasks = adhoc * float(np.dot(per_shape, weights / weights.sum()))
    jobs = adhoc
    for job in queue.recurring:
        instances = (end_s - start_s) / job.period_s + 1.0
        jobs += instances
        tasks += instances * float(_tasks_per_job([job.task_counts], queue.growth, grown)[0])
    return jobs, tasks


def check_size(queues: Iterable[QueueModel], start_s: float, hours: float) -> None:
    """Raise `GenerateSizeError` if `hours` from `start_s` would generate more than
    `MAX_GENERATED_ROWS` jobs and tasks (NaN or infinity too), exceed `MAX_HOURS`, or end
    past `LAST_START_S`."""
    jobs = tasks = 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        end_s = start_s + hours * HOUR_S
        for queue in queues:
            more_jobs, more_tasks = queue_size(queue, start_s, end_s)
            jobs, tasks = jobs + more_jobs, tasks + more_tasks
    if not jobs + tasks <= MAX_GENERATED_ROWS:  # NaN too
        raise GenerateSizeError(
            ("hours", "arrival_scale"),
            f"would generate about {_count(jobs)} jobs and {_count(tasks)} tasks, over the "
            f"limit of {MAX_GENERATED_ROWS:,} jobs and tasks together (what a 16-24 GB "
            "machine generates and predicts)",
        )
    if hours > MAX_HOURS:
        raise GenerateSizeError(
            ("hours",), f"expected at most {MAX_HOURS:,.0f} hours (114 years), got {hours!r}"
        )
    if not end_s <= LAST_START_S:  # a later submission has no date (year 10000)
        raise GenerateSizeError(
            ("start_s", "hours"),
            f"expected an end at most {LAST_START_S:.0f} s (9999-12-31 23:59:59 UTC, the "
            f"last second a date shows), got {end_s:.0f} s ({start_s!r} s + {hours!r} h)",
            sign="+",
        )


def _count(value: float) -> str:
    """An estimated count for a message: ``1,234,567``, ``3.6e+12``, ``more than 1e308``."""
    if not math.isfinite(value):
        return "more than 1e308"
    return f"{value:,.0f}" if value < 1e12 else f"{value:.2g}"
