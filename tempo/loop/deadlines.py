"""Deadlines: the RM knows none, so QS_DL of a live cluster needs them added to each window.

`DeadlineObserver` adds them by job name; they come from a CSV file
(`read_deadlines`) or, for the demo, from the expert configuration's predicted
response times (`expert_deadlines`, as in the paper's experiment 8.2.1).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from tempo.errors import TempoError
from tempo.loop.observe import Observer
from tempo.scheduler_file import read_scheduler_document, scheduler_file
from tempo.templates import QSTemplate
from whatif._validation import read_utf8
from whatif.cluster import Cluster
from whatif.errors import ValidationError
from whatif.predictor import predict
from whatif.trace import Trace


class DeadlineObserver:
    """Adds per-job deadlines to each observed window (the RM does not know them).

    ``deadlines`` maps a job name to its deadline in seconds after submission; jobs
    with another name keep what the window had.
    """

    def __init__(self, observer: Observer, deadlines: Mapping[str, float]) -> None:
        self.observer = observer
        self.deadlines = deadlines

    def window(self, begin_s: float, end_s: float) -> Trace:
        """The observer's window, with the known jobs' deadlines (`Observer.window`)."""
        trace = self.observer.window(begin_s, end_s)
        jobs = trace.workload.jobs
        relative = jobs["name"].astype(object).map(self.deadlines).astype(float)
        known = relative.notna().to_numpy()
        if not known.any():
            return trace
        deadline = np.where(known, jobs["submit_s"].to_numpy(float) + relative, jobs["deadline_s"])
        workload = dataclasses.replace(trace.workload, jobs=jobs.assign(deadline_s=deadline))
        return dataclasses.replace(trace, workload=workload)


def expert_deadlines(
    trace: Trace, config: Path, cluster: Cluster, templates: Sequence[QSTemplate], *, engine: str
) -> dict[str, float]:
    """Deadlines as in the paper's experiment 8.2.1: each job's response time under `config`.

    Only for queues whose templates name a deadline metric that reads the trace's
    deadlines (``deadline=auto`` or ``column``); keyed by job name.
    """
    queues = {
        t.queue
        for t in templates
        if any(
            m.name in ("QS_DL", "QS_ATTAIN") and str(m.param("deadline")) in ("auto", "column")
            for m in t.metrics
        )
    }
    if not queues:  # every deadline is stated in the templates (deadline=+1h, 18:00...)
        return {}
    document = read_scheduler_document(config)
    allocation = scheduler_file(document).allocation(document, cluster)
    schedule = predict(trace.workload, allocation, cluster, engine=engine)
    jobs = schedule.jobs.merge(trace.workload.jobs[["job_id", "name"]], on="job_id")
    jobs = jobs[jobs["queue"].astype(str).isin(queues)]
    return dict(
        zip(
            jobs["name"].astype(str),
            (jobs["finish_s"] - jobs["submit_s"]).astype(float),
            strict=True,
        )
    )


def read_deadlines(path: str | Path) -> dict[str, float]:
    """Job name to deadline in seconds after submission, from a CSV file with a header
    ``name,deadline_s`` (the RM knows no deadlines; QS_DL of a live cluster needs them)."""
    source = Path(path)
    try:
        rows = list(
            csv.reader(io.StringIO(read_utf8(source, what="the deadlines file"), newline=""))
        )
    except ValidationError as error:
        raise TempoError(str(error)) from error
    except csv.Error as error:
        raise TempoError(f"{source}: not a CSV file: {error}") from error
    if not rows or [c.strip() for c in rows[0]] != ["name", "deadline_s"]:
        raise TempoError(f"{source}:1: expected the header 'name,deadline_s'")
    deadlines: dict[str, float] = {}
    lines: dict[str, int] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not row or not "".join(row).strip():
            continue
        try:
            name, text = (c.strip() for c in row)
            value = float(text)
        except ValueError:
            raise TempoError(
                f"{source}:{number}: expected a job name and seconds after submission, got {row!r}"
            ) from None
        if not (math.isfinite(value) and value >= 0):
            raise TempoError(f"{source}:{number}: deadline_s: expected seconds >= 0, got {text!r}")
        if name in lines:
            raise TempoError(
                f"{source}:{number}: job {name!r} already has a deadline (line {lines[name]}); "
                "expected one row a job name"
            )
        deadlines[name], lines[name] = value, number
    return deadlines
