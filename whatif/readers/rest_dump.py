"""Saved YARN REST responses (RM apps, JobHistory jobs/tasks/attempts) as a trace.

The reader takes one response file or a directory of them (``*.json``; files that
are not one of the four response kinds, such as ``/cluster/metrics`` dumps, are
skipped). Files are parsed with `whatif.readers.lenient_json` because the
examples in Hadoop's docs, which people paste, carry comma typos; each repair is
logged. Tables come from the pure parsers in `whatif.readers.rest`, then:

- jobs come from JobHistory ``/jobs`` records, plus RM apps not already known;
- tasks come from ``/tasks`` records, plus tasks known only from their attempts;
- a job known only from its tasks' ids gets queue ``root.default`` and its first
  task start as submit time (the trace notes say how many);
- a task's ``duration_s`` is its successful attempt's run time when attempts were
  dumped, else the task's ``elapsedTime``;
- container sizes are not in these responses: options ``map_memory_mb``,
  ``reduce_memory_mb`` and ``vcores`` (Hadoop defaults) are used.

RM apps carry no task-level data. A finished app whose tasks no response lists
(Spark, Tez, or a MapReduce job whose history is gone) is replayed from what the RM
metered (`_metered_containers`): containers of the assumed map size held for the app's
run time, as many as its ``memorySeconds`` pays for, so the predictor sees the load it
put on the cluster instead of a job that finishes at submission. A job with neither
tasks nor a metered app is kept as it is, and the trace notes say how many.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from whatif.errors import TraceFormatError, WhatifError
from whatif.readers.base import ContainerSizedReader
from whatif.readers.lenient_json import loads_lenient
from whatif.readers.rest import COLUMNS, PARSERS, response_kind
from whatif.schedule import Schedule
from whatif.trace import Trace
from whatif.workload import Workload

logger = logging.getLogger(__name__)

_HEAD_KEYS = tuple(
    f'"{key}"'.encode()
    for key in ("apps", "app", "jobs", "job", "tasks", "task", "taskAttempts", "taskAttempt")
)


def _looks_like_response(head: bytes) -> bool:
    text = head.lstrip()
    if not text.startswith(b"{"):
        return False
    first_key = text[1:].lstrip()
    return any(first_key.startswith(key) for key in _HEAD_KEYS)


class RestDumpReader(ContainerSizedReader):
    """Saved RM ``/ws/v1/cluster/apps`` and JobHistory ``/jobs``, ``/tasks``, ``/attempts`` responses."""

    name = "rest"
    description = "saved YARN REST responses: RM cluster/apps, JobHistory jobs/tasks/attempts"

    @classmethod
    def sniff(cls, path: Path, head: bytes) -> bool:
        if path.is_dir():
            for file in sorted(path.glob("*.json")):
                with open(file, "rb") as handle:
                    if _looks_like_response(handle.read(256)):
                        return True
            return False
        return _looks_like_response(head)

    def read(self, path: Path) -> Trace:
        self.check_sizes(path)
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        parts: dict[str, list[pd.DataFrame]] = {kind: [] for kind in PARSERS}
        for file in files:
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise TraceFormatError(f"{file}: cannot read ({error})") from error
            payload = loads_lenient(text, source=str(file))
            kind = response_kind(payload)
            if kind is None:
                if path.is_dir():
                    logger.info("%s: not an apps/jobs/tasks/attempts response; skipped", file)
                    continue
                raise TraceFormatError(
                    f"{file}: expected a REST response with top-level key apps, jobs, tasks or "
                    f"taskAttempts, got {', '.join(map(repr, payload)) if isinstance(payload, dict) else type(payload).__name__}"
                )
            parts[kind].append(PARSERS[kind](payload, source=str(file)))
        if not any(parts.values()):
            raise TraceFormatError(f"{path}: no apps, jobs, tasks or taskAttempts responses")
        tables = {
            kind: _concat(
                frames,
                COLUMNS[kind],
                "attempt_id" if kind == "attempts" else "task_id" if kind == "tasks" else "job_id",
            )
            for kind, frames in parts.items()
        }
        return self.assemble(tables, source=path)

    def _container_memory(self, stages: pd.Series) -> np.ndarray:
        """Assumed container memory (MB) per task by stage: REST responses do not carry it."""
        return np.where(
            stages.to_numpy() == "reduce", self.reduce_memory_mb, self.map_memory_mb
        ).astype(float)

    def _attempt_table(self, attempts: pd.DataFrame) -> pd.DataFrame:
        """The observed attempts: sizes assumed, preempted where a KILLED attempt's
        diagnostics say so."""
        kept = ["job_id", "task_id", "attempt_id", "stage", "start_s", "finish_s"]
        return attempts[kept].assign(
            memory_mb=self._container_memory(attempts["stage"]),
            vcores=float(self.vcores),
            state=attempts["state"],
            preempted=attempts["state"].eq("KILLED").to_numpy()
            & attempts["diagnostics"].str.lower().str.contains("preempt").to_numpy(dtype=bool),
            node=attempts["node"],
        )

    def assemble(self, tables: dict[str, pd.DataFrame], *, source: Path) -> Trace:
        """Join parsed REST tables (``apps``, ``jobs``, ``tasks``, ``attempts``) into one Trace.

        Shared by this reader and the live RM client, so saved and fetched
        responses become the same trace. `source` names them in errors.
        """
        path = source
        notes: list[str] = [
            f"container sizes not in REST responses: map {self.map_memory_mb:g} MB, reduce "
            f"{self.reduce_memory_mb:g} MB, {self.vcores:g} vcore(s) assumed"
        ]
        jobs = tables["jobs"][
            ["job_id", "queue", "user", "name", "submit_s", "launch_s", "finish_s", "state"]
        ]
        apps = tables["apps"]
        apps = apps[~apps["job_id"].isin(jobs["job_id"])]
        jobs = pd.concat([jobs, apps[list(jobs.columns)]], ignore_index=True)
        attempts = tables["attempts"]
        tasks = _tasks_with_implied(tables["tasks"], attempts)
        tasks = _task_durations(tasks, attempts)
        jobs = _with_implied_jobs(jobs, tasks, notes)
        metered = _metered_containers(
            tables["apps"], set(tasks["job_id"]), self.map_memory_mb, self.vcores, notes
        )
        task_table = pd.DataFrame(
            {
                "job_id": tasks["job_id"],
                "task_id": tasks["task_id"],
                "stage": tasks["stage"],
                "duration_s": tasks["duration_s"],
                "memory_mb": self._container_memory(tasks["stage"]),
                "vcores": float(self.vcores),
                "observed_start_s": tasks["observed_start_s"],
                "observed_finish_s": tasks["observed_finish_s"],
                "observed_state": tasks["state"],
                "shuffle_finish_s": tasks["shuffle_finish_s"],
                "sort_finish_s": tasks["sort_finish_s"],
            }
        )
        task_table = pd.concat([task_table, metered], ignore_index=True)
        _note_bare_jobs(jobs, task_table, notes, path)
        attempt_table = self._attempt_table(attempts)
        try:
            workload = Workload(
                jobs=jobs[["job_id", "queue", "submit_s", "user", "name"]], tasks=task_table
            )
            observed = Schedule(
                jobs=jobs[["job_id", "queue", "submit_s", "launch_s", "finish_s", "user", "state"]],
                attempts=attempt_table,
            )
        except WhatifError as error:
            raise TraceFormatError(f"{path}: {error}") from error
        if task_table.empty:
            notes.append("no task-level responses: the task table is empty")
        return Trace(
            workload=workload, observed=observed, source=path, format=self.name, notes=tuple(notes)
        )


def _with_implied_jobs(jobs: pd.DataFrame, tasks: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """`jobs` and a row for each job known only from its tasks' ids (queue root.default,
    submitted at its first task's start), said in `notes`."""
    implied = sorted(set(tasks["job_id"]) - set(jobs["job_id"]))
    if not implied:
        return jobs
    first = tasks[tasks["job_id"].isin(implied)].groupby("job_id")["start_s"].min()
    extra = pd.DataFrame(
        {
            "job_id": pd.array(implied, dtype="string"),
            "queue": "root.default",
            "user": "unknown",
            "name": "",
            "submit_s": first.reindex(implied).fillna(0.0).to_numpy(),
            "launch_s": np.nan,
            "finish_s": np.nan,
            "state": "RUNNING",
        }
    )
    notes.append(
        f"{len(implied)} job(s) known only from task ids: queue root.default, submit = first task start"
    )
    return pd.concat([jobs, extra], ignore_index=True)


#: Most containers an app without task records is replayed as: more than the largest
#: clusters run at once, so only a corrupt memorySeconds reaches it.
MAX_METERED_CONTAINERS = 100_000


def _metered_containers(
    apps: pd.DataFrame, with_tasks: set[str], memory_mb: float, vcores: float, notes: list[str]
) -> pd.DataFrame:
    """Tasks standing for the containers of finished apps whose tasks no response lists.

    An app is replayed as ``k`` containers of `memory_mb` x `vcores`, each held from
    its launch (else its start) to its finish, with ``k`` = memorySeconds / (`memory_mb`
    x run time) rounded, at least 1: what it asked of the cluster is what the RM
    metered, AM included. Apps still running, or without memorySeconds, are skipped."""
    bare = apps[~apps["job_id"].isin(with_tasks)]
    begin = bare["launch_s"].fillna(bare["submit_s"]).to_numpy(float)
    run = bare["finish_s"].to_numpy(float) - begin
    metered = bare["memory_mb_s"].to_numpy(float)
    usable = np.isfinite(run) & (run > 0.0) & np.isfinite(metered) & (metered > 0.0)
    bare, run, metered = bare[usable], run[usable], metered[usable]
    wanted = np.maximum(1.0, np.rint(metered / (memory_mb * run)))
    count = np.minimum(wanted, MAX_METERED_CONTAINERS).astype(np.int64)
    if (wanted > MAX_METERED_CONTAINERS).any():
        first = int(np.argmax(wanted > MAX_METERED_CONTAINERS))
        notes.append(
            f"{int((wanted > MAX_METERED_CONTAINERS).sum())} app(s) metered more than "
            f"{MAX_METERED_CONTAINERS:,} containers' worth at once (e.g. "
            f"{bare['app_id'].iloc[first]}: {wanted[first]:,.0f}): replayed as "
            f"{MAX_METERED_CONTAINERS:,}"
        )
    row = np.repeat(np.arange(len(bare)), count)
    # the container's number within its app: 0, 1, ... for each app's rows
    within = np.arange(len(row)) - np.repeat(np.cumsum(count) - count, count)
    task_ids = pc.binary_join_element_wise(
        pa.array(bare["app_id"].to_numpy(dtype=object)[row], pa.string()),
        pa.array(within).cast(pa.string()),
        "_container_",
    )
    if len(bare):
        notes.append(
            f"{len(bare)} app(s) with no task records (not MapReduce, or no JobHistory): "
            f"each replayed as its memorySeconds' worth of {memory_mb:g} MB x {vcores:g} "
            f"vcore containers held for its run time ({len(row)} container(s) in all)"
        )
    return pd.DataFrame(
        {
            "job_id": pd.array(bare["job_id"].to_numpy(dtype=object)[row], dtype="string"),
            "task_id": pd.array(task_ids.to_numpy(zero_copy_only=False), dtype="string"),
            "stage": pd.array(["containers"] * len(row), dtype="string"),
            "stage_index": np.ones(len(row), dtype=np.int64),
            "duration_s": run[row],
            "memory_mb": float(memory_mb),
            "vcores": float(vcores),
            "observed_state": pd.array(bare["state"].to_numpy(dtype=object)[row], dtype="string"),
        }
    )


def _note_bare_jobs(
    jobs: pd.DataFrame, tasks: pd.DataFrame, notes: list[str], source: Path
) -> None:
    """Warn of the jobs the trace gives no work for: a prediction ends them at submission,
    which lowers any predicted mean response time they are part of."""
    bare = jobs.loc[~jobs["job_id"].isin(tasks["job_id"]), "job_id"]
    if len(bare):
        text = (
            f"{len(bare)} job(s) with neither task records nor a metered app "
            f"(memorySeconds), e.g. {bare.iloc[0]}: a prediction finishes them at submission"
        )
        notes.append(text)
        logger.warning("%s: %s", source, text)


def _concat(frames: list[pd.DataFrame], columns: dict[str, str], key: str) -> pd.DataFrame:
    if not frames:
        return pd.DataFrame(
            {
                n: pd.array([], dtype="string") if d == "string" else np.array([], dtype=d)
                for n, d in columns.items()
            }
        )
    merged = pd.concat(frames, ignore_index=True)
    duplicated = merged[key].duplicated(keep="first")
    if duplicated.any():
        logger.warning(
            "%d record(s) repeat an id across responses; keeping the first", int(duplicated.sum())
        )
        merged = merged[~duplicated.to_numpy()].reset_index(drop=True)
    return merged


def _tasks_with_implied(tasks: pd.DataFrame, attempts: pd.DataFrame) -> pd.DataFrame:
    """Task records plus tasks that appear only in attempt records."""
    orphans = attempts[~attempts["task_id"].isin(tasks["task_id"])]
    if orphans.empty:
        return tasks
    grouped = orphans.groupby("task_id", sort=True)
    implied = pd.DataFrame(
        {
            "job_id": grouped["job_id"].first(),
            "task_id": grouped["task_id"].first(),
            "stage": grouped["stage"].first(),
            "start_s": grouped["start_s"].min(),
            "finish_s": grouped["finish_s"].max(),
            "elapsed_s": np.nan,
            "state": grouped["state"].agg(
                lambda s: "SUCCEEDED" if (s == "SUCCEEDED").any() else s.iloc[-1]
            ),
            "successful_attempt": "",
        }
    ).reset_index(drop=True)
    return pd.concat(
        [
            tasks,
            implied.astype(
                {
                    "job_id": "string",
                    "task_id": "string",
                    "stage": "string",
                    "state": "string",
                    "successful_attempt": "string",
                }
            ),
        ],
        ignore_index=True,
    )


def _task_durations(tasks: pd.DataFrame, attempts: pd.DataFrame) -> pd.DataFrame:
    """Add duration and observed times: the successful (else last) attempt, else the task."""
    out = tasks.copy()
    done = attempts[attempts["finish_s"].notna()].copy()
    done["_ok"] = done["state"].eq("SUCCEEDED").to_numpy()
    done = done.sort_values(["task_id", "_ok", "start_s"], kind="stable")
    best = done.groupby("task_id").tail(1).set_index("task_id")
    pick = best.reindex(out["task_id"].to_numpy())
    has = pick["start_s"].notna().to_numpy()
    a_start, a_finish = pick["start_s"].to_numpy(float), pick["finish_s"].to_numpy(float)
    t_start, t_finish = out["start_s"].to_numpy(float), out["finish_s"].to_numpy(float)
    elapsed = out["elapsed_s"].to_numpy(float)
    fallback = np.where(np.isnan(elapsed), t_finish - t_start, elapsed)
    duration = np.where(has, a_finish - a_start, fallback)
    out["duration_s"] = np.clip(np.nan_to_num(duration, nan=0.0), 0.0, None)
    out["observed_start_s"] = np.where(has, a_start, t_start)
    out["observed_finish_s"] = np.where(has, a_finish, t_finish)
    out["shuffle_finish_s"] = pick["shuffle_finish_s"].to_numpy(float)
    out["sort_finish_s"] = pick["sort_finish_s"].to_numpy(float)
    return out
