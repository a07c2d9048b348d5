"""SLS's ``jobruntime.csv``: real and simulated start and end of each job, in milliseconds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from whatif.atomic import write_atomic
from whatif.schedule import Schedule
from whatif.workload import Workload

JOBRUNTIME_COLUMNS = (
    "JobID",
    "real_start_time",
    "real_end_time",
    "simulate_start_time",
    "simulate_end_time",
)


def jobruntime_table(
    schedule: Schedule, observed: Schedule | Workload | None = None
) -> pd.DataFrame:
    """The jobruntime rows: simulated times from `schedule`, real ones from `observed`.

    Times are integer milliseconds as SLS writes them; a real time the source does
    not know (a Workload has submissions but no finish) is left empty. Start is the
    job's launch (first container), falling back to its submission.
    """
    sim = schedule.jobs.set_index("job_id")
    ids = sim.index.to_numpy(dtype=object)
    real_start = pd.Series(np.nan, index=ids)
    real_end = pd.Series(np.nan, index=ids)
    if isinstance(observed, Schedule):
        obs = observed.jobs.set_index("job_id").reindex(ids)
        real_start = obs["launch_s"].fillna(obs["submit_s"])
        real_end = obs["finish_s"]
    elif isinstance(observed, Workload):
        real_start = observed.jobs.set_index("job_id")["submit_s"].reindex(ids)

    def ms(values: pd.Series) -> pd.Series:
        return (pd.Series(values.to_numpy(dtype=float), index=ids) * 1000.0).round().astype("Int64")

    return pd.DataFrame(
        {
            "JobID": ids,
            "real_start_time": ms(real_start).to_numpy(),
            "real_end_time": ms(real_end).to_numpy(),
            "simulate_start_time": ms(sim["launch_s"].fillna(sim["submit_s"])).to_numpy(),
            "simulate_end_time": ms(sim["finish_s"]).to_numpy(),
        },
        columns=list(JOBRUNTIME_COLUMNS),
    )


def write_jobruntime_csv(
    schedule: Schedule, observed: Schedule | Workload | None, path: str | Path
) -> Path:
    """Write `jobruntime_table` to `path` atomically (`whatif.atomic.write_atomic`)."""
    return write_atomic(path, jobruntime_table(schedule, observed).to_csv(index=False))
