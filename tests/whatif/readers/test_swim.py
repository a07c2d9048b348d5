"""The SWIM reader: the Facebook samples, the seeded expansion rules, queue rules, bad lines."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from whatif import TraceFormatError
from whatif.readers import detect_format, read_trace

SWIM = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "swim"
FB2009 = SWIM / "FB-2009_samples_24_times_1hr_0.tsv"
FB2010 = SWIM / "FB-2010_samples_24_times_1hr_0.tsv"
MIB = 1 << 20


def test_fb2009_jobs_and_int64_bytes():
    """FB-2009 has 5,894 jobs over a day; byte columns stay exact int64."""
    trace = read_trace(FB2009)
    assert detect_format(FB2009) == "swim"
    jobs = trace.workload.jobs
    assert len(jobs) == 5894 and trace.observed is None
    assert jobs["submit_s"].max() == 86404.0
    first = jobs.iloc[0]
    assert (first["job_id"], first["submit_s"]) == ("job0", 49.0)
    assert (first["input_bytes"], first["shuffle_bytes"], first["output_bytes"]) == (
        740773,
        2339561,
        627471,
    )
    assert jobs["input_bytes"].dtype == np.int64


def test_fb2010_big_byte_counts_survive():
    """FB-2010 byte counts above 2^31 (up to ~8.5e13) are kept exactly."""
    jobs = read_trace(FB2010, window_s=(0, 600)).workload.jobs
    assert jobs["output_bytes"].dtype == np.int64
    full = pd.read_csv(FB2010, sep="\t", header=None, dtype={0: str})
    window = full[full[1] < 600]
    assert jobs.sort_values("job_id")["input_bytes"].tolist() == window.sort_values(0)[3].tolist()
    assert (
        len(read_trace(FB2010, window_s=(0, 86409), max_tasks_per_stage=1).workload.jobs) == 24442
    )


def test_expansion_follows_the_documented_rules(tmp_path):
    """Map and reduce counts and noiseless durations follow bytes, block size and throughput."""
    path = tmp_path / "w.tsv"
    path.write_text(
        f"jobA\t10\t10\t{300 * MIB}\t{1536 * MIB}\t{512 * MIB}\njobB\t20\t10\t0\t0\t{64 * MIB}\n"
    )
    # the counts follow the sizes, the durations the throughputs and the overhead
    sizes = {"block_size_mb": 128, "reduce_mb_per_task": 1024}
    trace = read_trace(path, noise_sigma=0.0, map_mb_s=10, reduce_mb_s=20, overhead_s=2, **sizes)
    tasks = trace.workload.tasks
    a = tasks[tasks["job_id"] == "jobA"]
    assert (a["stage"] == "map").sum() == 3 and (a["stage"] == "reduce").sum() == 2
    assert a[a["stage"] == "map"]["duration_s"].tolist() == pytest.approx([100 / 10 + 2] * 3)
    assert a[a["stage"] == "reduce"]["duration_s"].tolist() == pytest.approx([1024 / 20 + 2] * 2)
    b = tasks[tasks["job_id"] == "jobB"]
    assert b["stage"].tolist() == ["map"]  # map-only; its output is written by the map
    assert b["duration_s"].tolist() == pytest.approx([64 / 10 + 2])


def test_seed_reproducible_and_noise_mean_one():
    """The same seed gives identical tasks; another seed differs; the noise has mean about one."""
    a = read_trace(FB2009, seed=7, window_s=(0, 7200)).workload.tasks
    b = read_trace(FB2009, seed=7, window_s=(0, 7200)).workload.tasks
    c = read_trace(FB2009, seed=8, window_s=(0, 7200)).workload.tasks
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["duration_s"], c["duration_s"])
    base = read_trace(FB2009, noise_sigma=0.0, window_s=(0, 7200)).workload.tasks["duration_s"]
    assert (a["duration_s"] / base).mean() == pytest.approx(1.0, abs=0.05)


def test_queue_rules():
    """A queue name, a weighted mapping and a callable each assign queues."""
    fixed = read_trace(FB2009, queue="prod", window_s=(0, 3600)).workload.jobs
    assert set(fixed["queue"]) == {"root.prod"}
    mixed = read_trace(FB2009, queue={"a": 1, "root.b": 3}, window_s=(0, 36000)).workload.jobs
    assert set(mixed["queue"]) == {"root.a", "root.b"}
    assert (mixed["queue"] == "root.b").mean() == pytest.approx(0.75, abs=0.1)
    ruled = read_trace(
        FB2009,
        window_s=(0, 3600),
        queue=lambda jobs: np.where(jobs["input_bytes"] > 1e9, "big", "small"),
    ).workload.jobs
    assert set(ruled.loc[ruled["input_bytes"] > 1e9, "queue"]) == {"root.big"}
    with pytest.raises(TraceFormatError, match="rule returned 1 names"):
        read_trace(FB2009, window_s=(0, 3600), queue=lambda jobs: ["x"])


def test_recurring_key_marks_repeated_byte_triples():
    """Jobs whose byte triple repeats in the file share a non-empty recurring key."""
    jobs = read_trace(FB2009, max_tasks_per_stage=1).workload.jobs
    keyed = jobs[jobs["recurring_key"] != ""]
    assert len(keyed) == 668 and keyed.groupby("recurring_key").size().min() >= 2


@pytest.mark.parametrize(
    ("text", "options", "match"),
    [
        ("job0\t1\t1\t5\t5\n", {}, r"w\.tsv:1: expected 6 tab-separated fields"),
        (
            "job0\t1\t1\t5\t5\t5\njob1\t2\t1\tfive\t5\t5\n",
            {},
            r"w\.tsv:2: expected numbers in fields 2-6",
        ),
        ("job0\t1\t1\t-5\t5\t5\n", {}, r"w\.tsv:1: field 4 \(input bytes\): expected a byte"),
        (
            "job0\t1\t1\t5\t99999999999999999999999\t5\n",
            {},
            r"w\.tsv:1: field 5 \(shuffle bytes\): expected a byte count in \[0, 2\^60\], "
            r"got '99999999999999999999999'",
        ),
        ("job0\t-1\t1\t5\t5\t5\n", {}, r"w\.tsv:1: field 2 \(submit s\): expected a finite"),
        ("job0\tinf\t1\t5\t5\t5\n", {}, r"w\.tsv:1: field 2 \(submit s\): expected a finite"),
        (
            "job0\t1\t1\t5\t5\t5\n",
            {"block_size_mb": 0},
            r"option block_size_mb expects a number > 0",
        ),
        ("job0\t1\t1\t5\t5\t5\n", {"window_s": (5, 1)}, r"option window_s expects"),
        ("", {}, r"w\.tsv: no SWIM job lines"),
    ],
)
def test_malformed_swim(tmp_path, text, options, match):
    """Short rows, non-numbers, negative or huge values and bad options name the file, line and field."""
    path = tmp_path / "w.tsv"
    path.write_text(text)
    with pytest.raises(TraceFormatError, match=match):
        read_trace(path, format="swim", **options)


def test_unknown_option_is_rejected():
    """An option the reader does not have is a clear error listing the options."""
    with pytest.raises(
        TraceFormatError, match=r"format 'swim' has no option blocksize \(options: seed"
    ):
        read_trace(FB2009, blocksize=64)


def test_task_ids_and_stages_name_job_stage_and_number():
    """Ids built by Arrow kernels: <job>_m_NNNNNN maps first, then <job>_r_NNNNNN reduces."""
    tasks = read_trace(FB2009, window_s=(0, 600)).workload.tasks
    for job_id, group in tasks.groupby("job_id", sort=False):
        maps = group[group["stage"] == "map"]
        reduces = group[group["stage"] == "reduce"]
        assert len(maps) + len(reduces) == len(group) and len(maps) >= 1
        assert sorted(maps["task_id"]) == [f"{job_id}_m_{n:06d}" for n in range(len(maps))]
        assert sorted(reduces["task_id"]) == [f"{job_id}_r_{n:06d}" for n in range(len(reduces))]
    assert str(tasks["task_id"].dtype) == "string"
