"""SWIM workload files (the Facebook 2009/2010 samples), expanded into tasks.

A SWIM file (``FB-2009_samples_24_times_1hr_0.tsv``) is job-level: tab-separated
``name``, ``submit time (s)``, ``gap from the previous submit (s)``, ``map input
bytes``, ``shuffle bytes``, ``reduce output bytes``, no header. Byte counts exceed
2^31 and are kept as int64 job columns ``input_bytes``, ``shuffle_bytes`` and
``output_bytes``.

Seeded expansion into tasks (all knobs are reader options):

- maps: ``n_maps = clip(ceil(map_bytes / block_size_mb MiB), 1, max_tasks_per_stage)``
  where ``map_bytes`` is ``input_bytes``, plus ``output_bytes`` for a map-only job;
- reduces: none when ``shuffle_bytes == 0`` (a map-only job, whose output the maps
  write), else ``n_reduces = clip(ceil((shuffle_bytes + output_bytes) /
  reduce_mb_per_task MiB), 1, max_tasks_per_stage)``;
- durations: a map takes ``map_bytes / n_maps`` at ``map_mb_s`` MiB/s, a reduce ``(shuffle_bytes + output_bytes) /
  n_reduces`` at ``reduce_mb_s`` MiB/s, each plus ``overhead_s``, times an
  independent mean-one lognormal factor ``exp(N(-sigma^2/2, sigma))`` with
  ``sigma = noise_sigma``;
- containers: ``map_memory_mb``/``reduce_memory_mb`` and ``vcores``;
- queues: ``queue`` is a queue name for every job, a mapping ``{queue: weight}``
  (each job drawn independently with those weights), or a callable that takes the
  job table (with the byte columns) and returns one queue name per job; names
  are normalised to full paths (``prod`` -> ``root.prod``);
- ``recurring_key`` is ``swim:<input>:<shuffle>:<output>`` for jobs whose byte
  triple appears more than once in the file (SWIM re-samples recurring jobs with
  identical sizes), else empty;
- ``window_s=(start, end)`` keeps only jobs submitted in ``[start, end)``;
  ``job_prefix`` is prepended to job ids (to merge several files).

The same file, options and ``seed`` give identical workloads. SWIM traces record
no schedule, so the trace has no observed schedule.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from whatif.errors import TraceFormatError, WhatifError
from whatif.readers.arrow_json import strings
from whatif.readers.base import TraceReader, normalize_queue, not_utf8
from whatif.trace import Trace
from whatif.workload import Workload

logger = logging.getLogger(__name__)

MIB = 1 << 20

#: Largest byte count a field may hold (1 EiB): sums of the three stay inside int64.
MAX_BYTES = 1 << 60

_BYTE_FIELDS = ("input bytes", "shuffle bytes", "output bytes")

QueueRule = str | Mapping[str, float] | Callable[[pd.DataFrame], Sequence[str]]


def _read_rows(path: Path) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Names, submit times (s) and the (n, 3) int64 byte matrix, line-checked."""
    names: list[str] = []
    submits: list[float] = []
    sizes: list[tuple[int, int, int]] = []
    try:
        handle = open(path, encoding="utf-8")
    except OSError as error:
        raise TraceFormatError(f"{path}: cannot read ({error.strerror or error})") from error
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                fields = line.rstrip("\r\n").split("\t")
                if len(fields) != 6:
                    raise TraceFormatError(
                        f"{path}:{number}: expected 6 tab-separated fields (name, submit s, gap s, "
                        f"input, shuffle, output bytes), got {len(fields)}"
                    )
                try:
                    submit = float(fields[1])
                    triple = (int(fields[3]), int(fields[4]), int(fields[5]))
                    float(fields[2])
                except ValueError:
                    raise TraceFormatError(
                        f"{path}:{number}: expected numbers in fields 2-6, got {fields[1:]!r}"
                    ) from None
                if submit < 0 or not math.isfinite(submit):
                    raise TraceFormatError(
                        f"{path}:{number}: field 2 (submit s): expected a finite number >= 0, "
                        f"got {fields[1]!r}"
                    )
                for column, (label, value) in enumerate(
                    zip(_BYTE_FIELDS, triple, strict=True), start=4
                ):
                    if not 0 <= value <= MAX_BYTES:
                        raise TraceFormatError(
                            f"{path}:{number}: field {column} ({label}): expected a byte count "
                            f"in [0, 2^60], got {fields[column - 1]!r}"
                        )
                names.append(fields[0])
                submits.append(submit)
                sizes.append(triple)
        except UnicodeDecodeError as error:
            raise not_utf8(path, error.reason) from None
    if not names:
        raise TraceFormatError(f"{path}: no SWIM job lines")
    return (
        names,
        np.array(submits, dtype=np.float64),
        np.array(sizes, dtype=np.int64).reshape(-1, 3),
    )


@dataclass(kw_only=True, eq=False, repr=False)
class SwimReader(TraceReader):
    """SWIM job-level TSV traces, expanded into tasks with a seeded model (see module doc)."""

    name = "swim"
    description = "SWIM workload TSV (Facebook 2009/2010 samples), expanded into tasks"

    seed: int = 0
    queue: QueueRule = "default"
    block_size_mb: float = 128.0
    reduce_mb_per_task: float = 1024.0
    map_mb_s: float = 10.0
    reduce_mb_s: float = 10.0
    overhead_s: float = 5.0
    noise_sigma: float = 0.25
    max_tasks_per_stage: int = 2000
    map_memory_mb: float = 1024.0
    reduce_memory_mb: float = 1024.0
    vcores: float = 1.0
    window_s: tuple[float, float] | None = None
    job_prefix: str = ""
    user: str = "swim"

    @classmethod
    def sniff(cls, path: Path, head: bytes) -> bool:
        if not path.is_file():
            return False
        line = head.split(b"\n", 1)[0].rstrip(b"\r")
        fields = line.split(b"\t")
        return len(fields) == 6 and all(f.strip().isdigit() for f in fields[1:])

    def _check_options(self, path: Path) -> None:
        positive = ("block_size_mb", "reduce_mb_per_task", "map_mb_s", "reduce_mb_s")
        non_negative = ("overhead_s", "noise_sigma", "map_memory_mb", "reduce_memory_mb", "vcores")
        for option in positive + non_negative:
            value = getattr(self, option)
            ok = (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and math.isfinite(value)
            )
            if not ok or value < 0 or (option in positive and value == 0):
                bound = "> 0" if option in positive else ">= 0"
                raise TraceFormatError(
                    f"{path}: option {option} expects a number {bound}, got {value!r}"
                )
        if not isinstance(self.max_tasks_per_stage, int) or self.max_tasks_per_stage < 1:
            raise TraceFormatError(
                f"{path}: option max_tasks_per_stage expects an integer >= 1, got {self.max_tasks_per_stage!r}"
            )
        if not isinstance(self.seed, (int, np.integer)):
            raise TraceFormatError(f"{path}: option seed expects an integer, got {self.seed!r}")
        if self.window_s is not None and (
            len(self.window_s) != 2 or not self.window_s[0] < self.window_s[1]
        ):
            raise TraceFormatError(
                f"{path}: option window_s expects (start, end) with start < end, got {self.window_s!r}"
            )

    def read(self, path: Path) -> Trace:
        self._check_options(path)
        names, submits, sizes = _read_rows(path)
        triples = pd.MultiIndex.from_arrays([sizes[:, 0], sizes[:, 1], sizes[:, 2]])
        repeated = triples.duplicated(keep=False)
        keep = np.ones(len(names), dtype=bool)
        if self.window_s is not None:
            keep = (submits >= self.window_s[0]) & (submits < self.window_s[1])
        idx = np.flatnonzero(keep)
        sizes = sizes[idx]
        inp, shuf, out = sizes[:, 0], sizes[:, 1], sizes[:, 2]
        job_ids = np.array([f"{self.job_prefix}{names[i]}" for i in idx], dtype=object)
        recurring = np.where(
            repeated[idx],
            np.array([f"swim:{a}:{b}:{c}" for a, b, c in sizes], dtype=object)
            if len(idx)
            else np.array([], dtype=object),
            "",
        )
        jobs = pd.DataFrame(
            {
                "job_id": pd.array(job_ids, dtype="string"),
                "queue": pd.array(["root.default"] * len(idx), dtype="string"),
                "submit_s": submits[idx],
                "user": self.user,
                "name": pd.array([names[i] for i in idx], dtype="string"),
                "recurring_key": pd.array(recurring, dtype="string"),
                "input_bytes": inp,
                "shuffle_bytes": shuf,
                "output_bytes": out,
            }
        )
        rng = np.random.default_rng(self.seed)
        jobs["queue"] = pd.array(self._queues(jobs, rng, path), dtype="string")
        tasks = self._tasks(jobs, rng)
        try:
            workload = Workload(jobs=jobs, tasks=tasks)
        except WhatifError as error:
            raise TraceFormatError(f"{path}: {error}") from error
        note = (
            f"SWIM expansion: seed={self.seed}, block={self.block_size_mb:g} MiB, reduce input "
            f"{self.reduce_mb_per_task:g} MiB/task, map {self.map_mb_s:g} MiB/s, reduce "
            f"{self.reduce_mb_s:g} MiB/s, overhead {self.overhead_s:g} s, noise sigma "
            f"{self.noise_sigma:g}, cap {self.max_tasks_per_stage} tasks/stage"
        )
        return Trace(workload=workload, observed=None, source=path, format=self.name, notes=(note,))

    def _queues(self, jobs: pd.DataFrame, rng: np.random.Generator, path: Path) -> list[str]:
        rule = self.queue
        if isinstance(rule, str):
            return [normalize_queue(rule)] * len(jobs)
        if isinstance(rule, Mapping):
            names = [normalize_queue(q) for q in rule]
            weights = np.array(list(rule.values()), dtype=float)
            if not names or (weights < 0).any() or weights.sum() <= 0:
                raise TraceFormatError(
                    f"{path}: option queue: expected positive weights, got {dict(rule)!r}"
                )
            picks = rng.choice(len(names), size=len(jobs), p=weights / weights.sum())
            return [names[i] for i in picks]
        if callable(rule):
            chosen = list(rule(jobs.copy()))
            if len(chosen) != len(jobs):
                raise TraceFormatError(
                    f"{path}: option queue: the rule returned {len(chosen)} names for {len(jobs)} jobs"
                )
            return [normalize_queue(q) for q in chosen]
        raise TraceFormatError(
            f"{path}: option queue: expected a name, a {{queue: weight}} mapping or a callable"
        )

    def _tasks(self, jobs: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
        inp = jobs["input_bytes"].to_numpy(np.int64)
        shuf = jobs["shuffle_bytes"].to_numpy(np.int64)
        out = jobs["output_bytes"].to_numpy(np.int64)
        cap = self.max_tasks_per_stage
        block = self.block_size_mb * MIB
        map_only = shuf == 0
        map_bytes = (inp + np.where(map_only, out, 0)).astype(np.float64)
        n_maps = np.clip(np.ceil(map_bytes / block), 1, cap).astype(np.int64)
        reduce_bytes = (shuf + out).astype(np.float64)
        n_reduces = np.where(
            map_only, 0, np.clip(np.ceil(reduce_bytes / (self.reduce_mb_per_task * MIB)), 1, cap)
        ).astype(np.int64)
        map_work = (
            (inp + np.where(map_only, out, 0)).astype(np.float64) / n_maps / (self.map_mb_s * MIB)
        )
        reduce_work = np.divide(reduce_bytes, np.maximum(n_reduces, 1), dtype=np.float64) / (
            self.reduce_mb_s * MIB
        )
        job_ids = jobs["job_id"].to_numpy(dtype=object)
        per_job = n_maps + n_reduces
        total = int(per_job.sum())
        owner = np.repeat(np.arange(len(jobs)), per_job)
        start = np.repeat(np.cumsum(per_job) - per_job, per_job)
        rank = np.arange(total) - start  # position of the task within its job
        is_map = rank < n_maps[owner]
        number = np.where(is_map, rank, rank - n_maps[owner])
        base = np.where(is_map, map_work[owner], reduce_work[owner]) + self.overhead_s
        sigma = float(self.noise_sigma)
        noise = (
            rng.lognormal(mean=-0.5 * sigma * sigma, sigma=sigma, size=total) if sigma > 0 else 1.0
        )
        # Ids and stages by Arrow string kernels: no Python str per task (3.5M tasks of
        # FB-2010: ~3.5 s less than an f-string per task).
        task_job = pa.array(job_ids, pa.string()).take(pa.array(owner))
        kind = pa.array(is_map.astype(np.int64))
        letter = pa.array(["r", "m"], pa.string()).take(kind)
        digits = pc.utf8_lpad(pa.array(number).cast(pa.string()), 6, padding="0")
        return pd.DataFrame(
            {
                "job_id": strings(task_job),
                "task_id": strings(pc.binary_join_element_wise(task_job, letter, digits, "_")),
                "stage": strings(pa.array(["reduce", "map"], pa.string()).take(kind)),
                "duration_s": base * noise,
                "memory_mb": np.where(
                    is_map, float(self.map_memory_mb), float(self.reduce_memory_mb)
                ),
                "vcores": float(self.vcores),
            }
        )
