"""The Workload: jobs and their tasks, as submitted to the cluster.

A Workload is what the predictor replays and what the workload model fits and
generates. It is columnar (two pandas tables), times are float seconds (absolute,
seconds since the epoch when a trace recorded real times), and it is validated on
construction so that everything downstream can trust it.

Observed per-task times (when a trace recorded them) ride along in the task table
so that the predictor can separate a reduce's own work from the time it spent
waiting for maps; every attempt, including killed and failed ones, lives in the
observed `Schedule` instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from whatif._validation import (
    check_numeric,
    check_references,
    check_unique,
    record_label,
    require_columns,
)
from whatif.errors import ValidationError

#: Stage order of a MapReduce job; other engines give `stage_index` explicitly.
MAPREDUCE_STAGE_ORDER: dict[str, int] = {"setup": 0, "map": 1, "reduce": 2, "cleanup": 3}

#: Container priorities MapReduce asks YARN for (lower number = higher priority).
MAPREDUCE_PRIORITY: dict[str, int] = {"setup": 20, "map": 20, "reduce": 10, "cleanup": 20}

#: A column's default value; None when the column is required.
ColumnDefault = str | float | bool | None

#: Job table columns: name -> (dtype, default or None when required).
JOB_COLUMNS: dict[str, tuple[str, ColumnDefault]] = {
    "job_id": ("string", None),
    "queue": ("string", None),
    "submit_s": ("float64", None),
    "user": ("string", "unknown"),
    "name": ("string", ""),
    "deadline_s": ("float64", np.nan),
    "recurring_key": ("string", ""),
    "am_memory_mb": ("float64", np.nan),
    "am_vcores": ("float64", np.nan),
    "am_start_s": ("float64", np.nan),
}

#: Task table columns: name -> (dtype, default or None when required).
TASK_COLUMNS: dict[str, tuple[str, ColumnDefault]] = {
    "job_id": ("string", None),
    "task_id": ("string", None),
    "stage": ("string", None),
    "duration_s": ("float64", None),
    "memory_mb": ("float64", None),
    "vcores": ("float64", None),
    "stage_index": ("int64", -1),
    "priority": ("int64", -1),
    "observed_start_s": ("float64", np.nan),
    "observed_finish_s": ("float64", np.nan),
    "observed_state": ("string", ""),
    "shuffle_finish_s": ("float64", np.nan),
    "sort_finish_s": ("float64", np.nan),
}


def column_types(
    columns: dict[str, tuple[str, ColumnDefault]], *, without: tuple[str, ...] = ()
) -> dict[str, str]:
    """Column name -> dtype of a table's `columns` (name -> (dtype, default)) but those
    `without`, for a `whatif.readers.columns.TableBuilder` that builds that table."""
    return {name: dtype for name, (dtype, _) in columns.items() if name not in without}


def normalize_table(
    frame: pd.DataFrame, columns: dict[str, tuple[str, ColumnDefault]], *, table: str
) -> pd.DataFrame:
    """Copy `frame`, add missing optional columns with their defaults, coerce dtypes.

    Required columns must be present; extra columns are kept after the known ones.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{table}: expected a pandas DataFrame, got {type(frame).__name__}")
    required = [name for name, (_, default) in columns.items() if default is None]
    require_columns(frame, required, table=table)
    # Every change below replaces a whole column, so `frame` itself is never modified and
    # its columns need not be copied.
    out = frame.reset_index(drop=True)
    for name, (dtype, default) in columns.items():
        if name not in out.columns:
            out[name] = default
        elif default is not None and dtype != "float64" and out[name].hasnans:
            out[name] = out[name].where(out[name].notna(), default)
        if dtype == "string":
            bad = out[name].isna() & (default is None)
            if bool(np.any(bad)):
                raise ValidationError(
                    f"{table}.{name}: missing value in record {record_label(out, np.flatnonzero(bad), out.columns[0])}"
                )
            out[name] = out[name].astype(str).astype("string")
        elif dtype == "bool":
            out[name] = out[name].fillna(default).astype(bool)
        elif dtype == "int64":
            key = "task_id" if "task_id" in out.columns else out.columns[0]
            check_numeric(out, name, table=table, key=key)
            out[name] = out[name].astype("int64")
        else:
            key = "task_id" if "task_id" in out.columns else "job_id"
            check_numeric(out, name, table=table, key=key, allow_nan=default is not None)
            out[name] = out[name].astype("float64")
    extra = [c for c in out.columns if c not in columns]
    return out[list(columns) + extra]


def normalize_linked(
    jobs: pd.DataFrame,
    job_columns: dict[str, tuple[str, ColumnDefault]],
    rows: pd.DataFrame,
    row_columns: dict[str, tuple[str, ColumnDefault]],
    *,
    key: str,
    tables: tuple[str, str],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`jobs` and the `rows` that belong to them (tasks, attempts), each normalized
    (`normalize_table`) and named by `tables` in errors; ``job_id`` and `key` unique, and
    every row's ``job_id`` one of `jobs`."""
    jobs_table, rows_table = tables
    jobs = normalize_table(jobs, job_columns, table=jobs_table)
    rows = normalize_table(rows, row_columns, table=rows_table)
    check_unique(jobs, ["job_id"], table=jobs_table)
    check_unique(rows, [key], table=rows_table)
    check_references(rows, "job_id", jobs["job_id"], table=rows_table, target="job", key=key)
    return jobs, rows


def arrow_strings(column: pd.Series) -> pa.ChunkedArray:
    """A string column as Arrow strings (no copy when it is Arrow-backed already)."""
    return pa.chunked_array(pa.array(column.array, type=pa.large_string(), from_pandas=True))


def positions_in(values: pd.Series, keys: pd.Series) -> np.ndarray:
    """int64 position in `keys` (unique strings) of each of `values`, -1 when absent.

    Hashes in Arrow: a per-row Python string for a table of millions of rows would cost
    more memory than the table.
    """
    found = pc.index_in(arrow_strings(values), value_set=arrow_strings(keys))
    positions: np.ndarray = found.fill_null(-1).to_numpy().astype(np.int64)
    return positions


def sort_rows(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """`frame` stably sorted by `keys` (NaN last) with a fresh index; not copied if in order.

    Tables are usually built in their sorted order already (readers, the predictor), and a
    sort copies every column, which for large tables is the peak of their memory.
    """
    n = len(frame)
    ordered = np.zeros(max(n - 1, 0), dtype=bool)
    tied = np.ones(max(n - 1, 0), dtype=bool)
    for key in keys:
        if not tied.any():
            break
        values = frame[key].reset_index(drop=True)
        before, after = (
            values.iloc[:-1].reset_index(drop=True),
            values.iloc[1:].reset_index(drop=True),
        )
        if values.hasnans:
            tied[:] = False  # leave NaN placement to sort_values
            break
        ordered |= tied & (before < after).to_numpy(dtype=bool)
        tied &= (before == after).to_numpy(dtype=bool)
    if (ordered | tied).all():
        return frame.reset_index(drop=True)
    # Arrow's stable multi-key sort orders strings natively (pandas factorizes them into
    # categoricals first); NaN and missing values go last, as with pandas' na_position.
    columns = {}
    for key in keys:
        values = frame[key]
        if isinstance(values.dtype, pd.StringDtype):
            columns[key] = pa.array(values.array, type=pa.large_string(), from_pandas=True)
        else:
            columns[key] = pa.array(values.to_numpy())
    order = pc.sort_indices(pa.table(columns), sort_keys=[(k, "ascending") for k in keys])
    return frame.take(order.to_numpy()).reset_index(drop=True)


@dataclass(frozen=True, eq=False)
class Workload:
    """Jobs and tasks to schedule.

    Parameters
    ----------
    jobs : DataFrame
        One row per job: ``job_id``, ``queue`` (full path such as ``root.etl`` or a
        bare leaf name), ``submit_s``; optional ``user``, ``name``, ``deadline_s``,
        ``recurring_key``, ``am_memory_mb``, ``am_vcores``, ``am_start_s``.
    tasks : DataFrame
        One row per task: ``job_id``, ``task_id``, ``stage``, ``duration_s``,
        ``memory_mb``, ``vcores``; optional ``stage_index`` (derived for MapReduce
        stage names), ``priority``, observed ``observed_start_s``,
        ``observed_finish_s``, ``observed_state``, and for reduces
        ``shuffle_finish_s`` and ``sort_finish_s``.

    Rows are sorted on construction: jobs by submit time then id, tasks by job,
    stage index and task id.
    """

    jobs: pd.DataFrame
    tasks: pd.DataFrame

    def __post_init__(self) -> None:
        jobs, tasks = normalize_linked(
            self.jobs,
            JOB_COLUMNS,
            self.tasks,
            TASK_COLUMNS,
            key="task_id",
            tables=("jobs", "tasks"),
        )
        for column in ("duration_s", "memory_mb", "vcores"):  # an infinite task never ends
            check_numeric(tasks, column, table="tasks", key="task_id", minimum=0.0, finite=True)
        tasks = _resolve_stage_order(tasks)
        jobs = sort_rows(jobs, ["submit_s", "job_id"])
        tasks = sort_rows(
            tasks.assign(_rank=positions_in(tasks["job_id"], jobs["job_id"])),
            ["_rank", "stage_index", "task_id"],
        ).drop(columns="_rank")
        object.__setattr__(self, "jobs", jobs)
        object.__setattr__(self, "tasks", tasks)

    @property
    def n_jobs(self) -> int:
        return len(self.jobs)

    @property
    def n_tasks(self) -> int:
        return len(self.tasks)

    @property
    def queues(self) -> list[str]:
        """Queue names in first-submission order."""
        return list(dict.fromkeys(self.jobs["queue"].tolist()))

    @property
    def span_s(self) -> tuple[float, float]:
        """First submission and last submission time."""
        if self.jobs.empty:
            return (0.0, 0.0)
        return float(self.jobs["submit_s"].min()), float(self.jobs["submit_s"].max())

    def select_jobs(self, mask: np.ndarray | pd.Series) -> Workload:
        """The sub-workload of the jobs where `mask` is true, with their tasks."""
        jobs = self.jobs[np.asarray(mask, dtype=bool)]
        tasks = self.tasks[self.tasks["job_id"].isin(jobs["job_id"])]
        return Workload(jobs=jobs, tasks=tasks)

    def __repr__(self) -> str:
        return f"Workload(jobs={self.n_jobs}, tasks={self.n_tasks}, queues={self.queues})"


def _id_ranks(ids: pd.Series) -> np.ndarray:
    """Each id's rank (from 1) among the distinct ids in sorted order: equal ids, equal ranks."""
    encoded = pc.dictionary_encode(arrow_strings(ids).combine_chunks())
    ranks = pc.rank(encoded.dictionary, sort_keys="ascending").to_numpy().astype(np.int64)
    ranked: np.ndarray = ranks[encoded.indices.to_numpy()]
    return ranked


def _distinct_stages(job: np.ndarray, stage: np.ndarray, stage_index: np.ndarray) -> pd.DataFrame:
    """The distinct (job, stage, stage_index) rows, indexed by the row of their first task.

    Found on one int64 key per task where the three codes fit in one: at 10M tasks a
    DataFrame of the three columns and its row hashing took about 1 GB more.
    """
    index_code, index_values = pd.factorize(stage_index)
    n_stage = int(stage.max()) + 1 if len(stage) else 1
    n_index = max(len(index_values), 1)
    if len(job) and (int(job.max()) + 1) * n_stage * n_index < 2**62:
        key = (job * n_stage + stage) * n_index + index_code
        del index_code
        first = np.flatnonzero(~pd.Series(key).duplicated().to_numpy())
    else:
        frame = pd.DataFrame({"job": job, "stage": stage, "stage_index": stage_index})
        first = np.flatnonzero(~frame.duplicated().to_numpy())
    return pd.DataFrame(
        {"job": job[first], "stage": stage[first], "stage_index": stage_index[first]},
        index=first,
    )


def _resolve_stage_order(tasks: pd.DataFrame) -> pd.DataFrame:
    """Fill `stage_index`/`priority` from MapReduce stage names and check stage consistency.

    Fills `tasks` in place: it is the caller's own table from `normalize_table`.
    """
    # Stage names looked up once per distinct name (a per-row map converts every row to a
    # Python string: half a second at 1M tasks).
    stage_code, stage_names = pd.factorize(tasks["stage"])
    names = pd.Series(stage_names)
    missing = tasks["stage_index"].to_numpy() < 0
    if missing.any():
        derived = names.map(MAPREDUCE_STAGE_ORDER).to_numpy(dtype=float)[stage_code]
        unknown = missing & np.isnan(derived)
        if unknown.any():
            raise ValidationError(
                f"tasks.stage_index: stage {tasks['stage'].iloc[np.flatnonzero(unknown)[0]]!r} is not a "
                f"MapReduce stage ({', '.join(MAPREDUCE_STAGE_ORDER)}), so stage_index must be given, "
                f"in record {record_label(tasks, np.flatnonzero(unknown), 'task_id')}"
            )
        tasks.loc[missing, "stage_index"] = derived[missing].astype("int64")
    no_priority = tasks["priority"].to_numpy() < 0
    if no_priority.any():
        priority = names.map(MAPREDUCE_PRIORITY).fillna(20).to_numpy(dtype=np.int64)
        tasks.loc[no_priority, "priority"] = priority[stage_code[no_priority]]
    # One index per (job, stage) and one stage per (job, index): stages form a chain.
    # Distinct triples found on integer codes (hashing a million id strings is slow), the
    # job code ranking as the ids sort; rows keep their first task's position.
    pairs = _distinct_stages(
        _id_ranks(tasks["job_id"]), stage_code, tasks["stage_index"].to_numpy(dtype=np.int64)
    )
    for cols, what in ((["job", "stage"], "stage"), (["job", "stage_index"], "stage_index")):
        dup = pairs.duplicated(subset=cols, keep=False).to_numpy()
        if dup.any():
            row = tasks.loc[pairs.index[dup][0]]
            raise ValidationError(
                f"tasks.stage_index: job {row['job_id']!r} has inconsistent stage order "
                f"({what} {row[what]!r} appears with more than one {'stage_index' if what == 'stage' else 'stage'})"
            )
    rank = names.map(MAPREDUCE_STAGE_ORDER).to_numpy()
    known = pairs.assign(_o=rank[pairs["stage"].to_numpy()]).dropna(subset="_o")
    known = known.sort_values(["job", "_o"], kind="stable")
    unsorted = known.groupby("job", sort=False)["stage_index"].diff().to_numpy() <= 0
    if unsorted.any():
        row = tasks.loc[known.index[unsorted][0]]
        raise ValidationError(
            f"tasks.stage_index: job {row['job_id']!r} orders its stages out of sequence "
            f"(stage {row['stage']!r} must come after the stages before it in setup, map, reduce, cleanup)"
        )
    return tasks
