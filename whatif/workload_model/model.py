"""`WorkloadModel`: a statistical model of a multi-tenant workload, fitted to a trace.

Fit it to a `Workload`, read `goodness_of_fit_` to see whether to trust it,
transform it for a what-if question (data growth, more arrivals, a new or removed
tenant) and `generate` seeded synthetic workloads from it.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import numbers
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from whatif._validation import check_choice, check_numeric, check_range
from whatif.durations import HOUR_S, WEEK_S
from whatif.errors import ValidationError
from whatif.workload import Workload
from whatif.workload_model.arrivals import PROFILES
from whatif.workload_model.limits import LAST_START_S, MAX_GROWTH, MAX_HOURS, check_size
from whatif.workload_model.queue import QueueModel, fit_queue, generate_queue
from whatif.workload_model.schema import decode, encode, read_json, write_json

logger = logging.getLogger(__name__)


def check_start(start_s: float) -> None:
    """Raise unless `start_s` is a trace time a workload can start at: a finite number of
    seconds in [0, `LAST_START_S`] (0 for a trace-relative trace, else epoch seconds)."""
    if not (isinstance(start_s, numbers.Real) and 0 <= start_s <= LAST_START_S):  # NaN too
        raise ValidationError(
            f"start_s: expected seconds in [0, {LAST_START_S:.0f}] (0 for trace-relative "
            f"times, else epoch seconds), got {start_s!r}"
        )


#: Columns of `WorkloadModel.goodness_of_fit_`.
REPORT_COLUMNS = ("queue", "stage", "quantity", "family", "n", "ks_stat", "p_value", "mu", "sigma")


@dataclasses.dataclass(kw_only=True, eq=False, repr=False)
class WorkloadModel:
    """Per-queue statistical model of job arrivals, job shapes and tasks.

    Fitted per queue: a Poisson arrival process whose rate follows the hour of
    day (and optionally the day of week); job shapes (tasks per stage) sampled
    jointly from the observed jobs; task durations per stage (lognormal by maximum
    likelihood, or the empirical distribution); task memory and vcores per stage;
    users and AM sizes; recurring jobs (a ``recurring_key`` that repeats) with
    their period and shape; and deadlines relative to submission when the trace
    has them.

    Parameters
    ----------
    duration_family : {"auto", "lognormal", "empirical"}
        "auto" fits a lognormal to each (queue, stage) and switches to the
        empirical distribution when the KS test rejects it at `ks_alpha`.
    profile : {"hour-of-day", "hour-of-week", "flat"}
        Shape of the arrival rate over the clock. "hour-of-week" is an hour-of-day
        rate times a day-of-week factor and needs a week of trace.
    min_jobs_for_profile : int
        Queues with fewer ad-hoc jobs get a flat arrival rate.
    ks_alpha : float
        Significance level at which "auto" rejects the lognormal.
    min_recurrences : int
        A ``recurring_key`` seen at least this often is modelled as a recurring
        job; rarer keys are ad-hoc jobs.
    max_empirical_points : int
        Most quantiles stored for an empirical distribution.

    Attributes
    ----------
    queues_ : dict of str to QueueModel
        The fitted (and possibly transformed) model of each queue.
    goodness_of_fit_ : DataFrame
        One row per fitted distribution: ``queue``, ``stage`` ("" for arrivals),
        ``quantity`` ("interarrival" or "duration_s"), ``family``, ``n``,
        ``ks_stat``, ``p_value``, and ``mu``/``sigma`` for lognormals.
        Inter-arrival rows test the time-rescaled gaps against Exp(1).
    window_s_ : tuple of float
        First and last submission of the fitted trace.

    Examples
    --------
    >>> model = WorkloadModel(profile="flat").fit(workload)  # doctest: +SKIP
    >>> grown = model.with_growth(1.3).generate(hours=24, seed=7)  # doctest: +SKIP
    """

    duration_family: str = "auto"
    profile: str = "hour-of-day"
    min_jobs_for_profile: int = 100
    ks_alpha: float = 0.01
    min_recurrences: int = 3
    max_empirical_points: int = 512

    def get_params(self) -> dict[str, Any]:
        """The constructor's keyword arguments (the dataclass fields), as given."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"WorkloadModel({params})"

    def validate_params(self) -> None:
        """Raise a `ValidationError` naming the first bad constructor argument (fit does)."""
        check_choice(
            self.duration_family, ("auto", "lognormal", "empirical"), field="duration_family"
        )
        check_choice(self.profile, PROFILES, field="profile")
        for name, low in (
            ("min_jobs_for_profile", 0),
            ("min_recurrences", 2),
            ("max_empirical_points", 2),
        ):
            value = getattr(self, name)
            if not isinstance(value, int | np.integer) or isinstance(value, bool):
                raise ValidationError(f"{name}: expected an integer, got {value!r}")
            check_range(int(value), field=name, low=low)
        check_range(self.ks_alpha, field="ks_alpha", low=0.0, high=1.0)

    def fit(self, workload: Workload) -> WorkloadModel:
        """Fit every queue of `workload`; returns self."""
        self.validate_params()
        if not isinstance(workload, Workload):
            raise ValidationError(f"workload: expected a Workload, got {type(workload).__name__}")
        window = workload.span_s
        if not window[1] > window[0]:
            raise ValidationError(
                "workload: need submissions at two or more distinct times to fit arrival "
                f"rates, got {workload.n_jobs} job(s) spanning {window[1] - window[0]} s"
            )
        _check_finite(workload)
        if self.profile == "hour-of-week" and window[1] - window[0] < WEEK_S:
            logger.warning(
                "profile hour-of-week needs a week of submissions and the workload spans "
                "%.1f h: the arrival rates follow the hour of day (hour-of-day) instead",
                (window[1] - window[0]) / HOUR_S,
            )
        jobs, tasks = workload.jobs, workload.tasks
        queue_of_task = tasks["job_id"].map(pd.Series(jobs["queue"].to_numpy(), jobs["job_id"]))
        queues, rows = {}, []
        for name in sorted(workload.queues):
            mine = jobs["queue"] == name
            queues[name], report = fit_queue(
                name,
                jobs[mine],
                tasks[(queue_of_task == name).to_numpy()],
                window=window,
                **self.get_params(),
            )
            rows.extend(report)
        self.queues_ = queues
        self.goodness_of_fit_ = pd.DataFrame(rows, columns=list(REPORT_COLUMNS))
        self.window_s_ = window
        logger.info("fitted %d queues on %d jobs", len(queues), workload.n_jobs)
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "queues_"):
            raise ValidationError("WorkloadModel is not fitted: call fit(workload) first")

    def summary(self) -> pd.DataFrame:
        """One row per queue: ad-hoc arrival rate and profile, shapes, recurring jobs, factors."""
        self._check_fitted()
        return pd.DataFrame(
            [
                {
                    "queue": q.name,
                    "profile": q.arrivals.profile,
                    "jobs_fitted": q.arrivals.n_jobs,
                    "rate_per_h": q.arrivals.mean_rate_per_h,
                    "shapes": len(q.shapes.counts),
                    "stages": ",".join(s.stage for s in q.stages),
                    "recurring": len(q.recurring),
                    "growth": q.growth,
                    "arrival_scale": q.arrival_scale,
                }
                for q in self.queues_.values()
            ],
            columns=[
                "queue",
                "profile",
                "jobs_fitted",
                "rate_per_h",
                "shapes",
                "stages",
                "recurring",
                "growth",
                "arrival_scale",
            ],
        )

    def generate(
        self,
        *,
        hours: float,
        seed: int,
        start_s: float = 0.0,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> Workload:
        """A synthetic workload of `hours` hours of submissions starting at `start_s`.

        The same model, hours, seed and start give the same workload. Jobs are named
        ``job_000000``, ... in submission order, tasks ``<job>_<stage>_<n>``. Each
        queue draws from its own random streams, keyed by its name, so transforming
        one queue leaves the others' draws unchanged. `progress` is called with
        (queues done, queues, the queue) after each queue (a command's progress bar).
        """
        self._check_fitted()
        if not (isinstance(hours, numbers.Real) and hours >= 0):  # NaN too
            raise ValidationError(f"hours: expected a value in [0, {MAX_HOURS:.0f}], got {hours!r}")
        check_start(start_s)
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValidationError(f"seed: expected a non-negative integer, got {seed!r}")
        check_size(self.queues_.values(), start_s, hours)
        end_s = start_s + hours * HOUR_S
        job_parts, task_parts = [], []
        for position, (name, queue) in enumerate(self.queues_.items()):
            jobs, tasks = generate_queue(queue, seed=int(seed), start_s=start_s, end_s=end_s)
            job_parts.append(jobs.assign(_queue=position))
            task_parts.append(tasks.assign(_queue=position))
            if progress is not None:
                progress(position + 1, len(self.queues_), name)
        if not job_parts:
            return Workload(
                jobs=pd.DataFrame({"job_id": [], "queue": [], "submit_s": []}),
                tasks=pd.DataFrame(
                    {
                        c: []
                        for c in ("job_id", "task_id", "stage", "duration_s", "memory_mb", "vcores")
                    }
                ),
            )
        jobs = pd.concat(job_parts, ignore_index=True).sort_values(
            ["submit_s", "_queue", "local"], kind="stable"
        )
        jobs["job_id"] = [f"job_{i:06d}" for i in range(len(jobs))]
        ids = jobs.set_index(["_queue", "local"])["job_id"]
        tasks = pd.concat(task_parts, ignore_index=True)
        tasks["job_id"] = ids.reindex(
            pd.MultiIndex.from_arrays([tasks["_queue"], tasks["local"]])
        ).to_numpy()
        tasks["task_id"] = (
            tasks["job_id"].astype(str)
            + "_"
            + tasks["stage"].astype(str)
            + "_"
            + tasks["number"].astype(np.int64).astype(str).str.zfill(5)
        )
        return Workload(
            jobs=jobs.drop(columns=["_queue", "local"]),
            tasks=tasks.drop(columns=["_queue", "local", "number"]),
        )

    # -- transformations: each returns a new model and leaves this one unchanged --

    def _replaced(self, queues: dict[str, QueueModel], gof: pd.DataFrame) -> WorkloadModel:
        clone = type(self)(**self.get_params())
        clone.queues_ = queues
        clone.goodness_of_fit_ = gof.reset_index(drop=True)
        clone.window_s_ = self.window_s_
        return clone

    def _selected(self, queues: Iterable[str] | str | None) -> list[str]:
        if queues is None:
            return list(self.queues_)
        names = [queues] if isinstance(queues, str) else list(queues)
        unknown = [q for q in names if q not in self.queues_]
        if unknown:
            raise ValidationError(
                f"queues: unknown queue(s) {', '.join(map(repr, unknown))}; "
                f"the model has {', '.join(map(repr, self.queues_))}"
            )
        return names

    def with_growth(
        self, factor: float, queues: Iterable[str] | str | None = None
    ) -> WorkloadModel:
        """The model with `factor` times the data per job ("input +30%" is 1.3).

        Every stage does `factor` times the work: the input stage (map) gets
        `factor` times as many tasks of unchanged duration, later stages (reduce)
        keep their task count with durations times `factor`, setup and cleanup are
        unchanged. Factors compose by multiplication. `queues` limits the change
        to those queues (default: all).
        """
        return self._multiplied("growth", factor, queues)

    def with_arrival_scale(
        self, factor: float, queues: Iterable[str] | str | None = None
    ) -> WorkloadModel:
        """The model with ad-hoc job arrival rates times `factor` (same daily profile).

        Recurring jobs keep their schedule: they are pipelines, not a rate.
        """
        return self._multiplied("arrival_scale", factor, queues)

    def _multiplied(
        self, factor_name: str, factor: float, queues: Iterable[str] | str | None
    ) -> WorkloadModel:
        """The model with each chosen queue's `factor_name` (``growth`` or
        ``arrival_scale``) multiplied by `factor`."""
        self._check_fitted()
        _check_factor(factor, "factor")
        chosen = set(self._selected(queues))
        changed = {}
        for name in chosen:
            queue = self.queues_[name]
            value: Any = _product(factor_name, name, getattr(queue, factor_name), factor)
            changed[name] = dataclasses.replace(queue, **{factor_name: value})
        return self._replaced(
            {name: changed.get(name, q) for name, q in self.queues_.items()},
            self.goodness_of_fit_,
        )

    def with_tenant(
        self, name: str, *, like: str, arrival_scale: float = 1.0, growth: float = 1.0
    ) -> WorkloadModel:
        """The model plus a new queue `name` that behaves like queue `like`.

        The new queue copies `like` (including its current factors), then applies
        `arrival_scale` and `growth`; its recurring keys are prefixed with
        ``name + ":"`` so they stay distinct.
        """
        self._check_fitted()
        if not isinstance(name, str) or not name:
            raise ValidationError(f"name: expected a non-empty queue name, got {name!r}")
        if name in self.queues_:
            raise ValidationError(f"name: queue {name!r} is already in the model")
        (source,) = self._selected([like])
        _check_factor(arrival_scale, "arrival_scale")
        _check_factor(growth, "growth")
        template = self.queues_[source]
        added = dataclasses.replace(
            template,
            name=name,
            recurring=tuple(
                dataclasses.replace(r, key=f"{name}:{r.key}") for r in template.recurring
            ),
            arrival_scale=_product("arrival_scale", name, template.arrival_scale, arrival_scale),
            growth=_product("growth", name, template.growth, growth),
        )
        gof = self.goodness_of_fit_
        copied = gof[gof["queue"] == source].assign(queue=name)
        return self._replaced({**self.queues_, name: added}, pd.concat([gof, copied]))

    def without_tenant(self, name: str) -> WorkloadModel:
        """The model without queue `name`."""
        self._check_fitted()
        (gone,) = self._selected([name])
        gof = self.goodness_of_fit_
        return self._replaced(
            {k: q for k, q in self.queues_.items() if k != gone}, gof[gof["queue"] != gone]
        )

    # -- persistence --

    def to_json(self, path: str | os.PathLike[str]) -> None:
        """Write the fitted model to `path` as JSON (format in `whatif.workload_model.schema`)."""
        self._check_fitted()
        document = encode(self.get_params(), self.queues_, self.goodness_of_fit_, self.window_s_)
        write_json(document, Path(path))

    @classmethod
    def from_json(cls, path: str | os.PathLike[str]) -> WorkloadModel:
        """Read a model written by `to_json`; a malformed file names the file and field."""
        path = Path(path)
        params, queues, gof, window = decode(read_json(path), path)
        unknown = sorted(set(params) - set(cls().get_params()))
        if unknown:
            raise ValidationError(f"{path}: params.{unknown[0]}: unknown parameter")
        model = cls(**params)
        try:
            model.validate_params()
        except ValidationError as error:
            raise ValidationError(f"{path}: params.{error}") from error
        model.queues_ = queues
        model.goodness_of_fit_ = gof
        model.window_s_ = window
        return model


def _check_factor(factor: float, field: str) -> None:
    if isinstance(factor, bool) or not isinstance(factor, int | float | np.number):
        raise ValidationError(f"{field}: expected a positive number, got {factor!r}")
    if not np.isfinite(factor) or factor <= 0:
        raise ValidationError(f"{field}: expected a positive number, got {factor!r}")


def _product(factor_name: str, queue: str, current: float, factor: float) -> float:
    """Queue `queue`'s `factor_name` (growth or arrival_scale) times `factor`, refused when
    growth exceeds `MAX_GROWTH` or a scale overflows (the size check then sees the rest)."""
    product = current * factor
    if factor_name == "growth" and not product <= MAX_GROWTH:
        raise ValidationError(
            f"growth: expected a total data growth of at most {MAX_GROWTH:g} per queue, got "
            f"{product:g} for queue {queue!r} ({current:g} x {factor:g})"
        )
    if not math.isfinite(product):
        raise ValidationError(
            f"{factor_name}: {current:g} x {factor:g} for queue {queue!r} is not a finite number"
        )
    return product


#: Job columns a fit reads numbers from (a task's duration, memory and vcores are finite
#: in every `Workload`: it refuses an infinity).
_FITTED_JOB_NUMBERS = ("submit_s", "deadline_s", "am_memory_mb", "am_vcores")


def _check_finite(workload: Workload) -> None:
    """Refuse infinite values where the model fits numbers: their lognormal or table
    would be infinite or NaN, and no model file can hold it."""
    for column in _FITTED_JOB_NUMBERS:
        check_numeric(
            workload.jobs, column, table="workload: jobs", key="job_id", allow_nan=True, finite=True
        )
