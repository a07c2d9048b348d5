"""Time `whatif.metrics.evaluate` on a synthetic six-queue schedule (2,000 jobs, 30,000 attempts).

`frames` builds the job and attempt tables of such a schedule from drawn columns; the
metrics tests build theirs with it too (``tests/whatif/test_metrics.py``).
"""

import time

import numpy as np
import pandas as pd

from whatif import Cluster, Schedule, Workload
from whatif.metrics import Metric, Window, evaluate


def frames(
    jobs: dict[str, np.ndarray], owner: np.ndarray, attempts: dict[str, np.ndarray | float | str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The job table of jobs ``j0``, ``j1``... with the columns `jobs` (queue, submit_s,
    launch_s, finish_s), and the attempt table of attempts ``a0``, ``a1``... of tasks
    ``t0``, ``t1``..., attempt k of job ``j<owner[k]>``, with the columns `attempts`
    (stage, start_s, finish_s, memory_mb, vcores, state)."""
    m = len(owner)
    return (
        pd.DataFrame({"job_id": [f"j{i}" for i in range(len(jobs["submit_s"]))], **jobs}),
        pd.DataFrame(
            {
                "job_id": [f"j{i}" for i in owner],
                "task_id": [f"t{k}" for k in range(m)],
                "attempt_id": [f"a{k}" for k in range(m)],
                **attempts,
            }
        ),
    )


def main() -> None:
    rng = np.random.default_rng(0)
    n = 2000
    per = 15
    sub = rng.uniform(0, 3600, n)
    q = rng.choice(["root.bi", "root.dev", "root.app", "root.str", "root.mv", "root.etl"], n)
    m = n * per
    jid = np.repeat(np.arange(n), per)
    job_columns = {
        "queue": q,
        "submit_s": sub,
        "launch_s": sub + 1,
        "finish_s": sub + rng.exponential(300, n),
    }
    st = sub[jid] + rng.uniform(1, 100, m)
    jobs, att = frames(
        job_columns,
        jid,
        {
            "stage": rng.choice(["map", "reduce"], m),
            "start_s": st,
            "finish_s": st + rng.exponential(60, m),
            "memory_mb": 1024.0,
            "vcores": 1.0,
            "state": "SUCCEEDED",
        },
    )
    s = Schedule(jobs, att)
    wl = Workload(
        jobs.assign(deadline_s=sub + 600)[["job_id", "queue", "submit_s", "deadline_s"]],
        pd.DataFrame(
            {
                "job_id": [],
                "task_id": [],
                "stage": [],
                "duration_s": [],
                "memory_mb": [],
                "vcores": [],
            }
        ),
    )
    ms = [
        "QS_AJR",
        Metric.of("QS_DL", slack=0.25),
        "QS_UTIL",
        "QS_UTIL_NOPREEMPT",
        "QS_THR",
        Metric.of("QS_FAIR", share=0.2),
        "QS_PCT",
        "QS_SLOWDOWN",
        "QS_WASTE",
        "QS_ATTAIN",
    ]
    c = Cluster.parse("memory-mb=1024000,vcores=1000")
    w = Window(0, 2700)
    evaluate(s, ms, window=w, cluster=c, workload=wl)
    for sel in (["QS_AJR", "QS_THR", Metric.of("QS_DL", slack=0.25)], ms):
        t = time.perf_counter()
        k = 20
        for _ in range(k):
            evaluate(s, sel, window=w, cluster=c, workload=wl)
        print(
            len(sel),
            "metrics",
            (time.perf_counter() - t) / k * 1000,
            "ms per evaluate,",
            n,
            "jobs",
            m,
            "attempts",
        )


if __name__ == "__main__":
    main()
