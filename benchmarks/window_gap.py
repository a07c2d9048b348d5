"""Observed vs predicted response of one `tempo tune` demo window, job by job (issue 21).

Builds the emulated RM and the stepper as `tempo tune` does on the bundled sample
(`tempo.loop.wiring.build`), lets the replay run to the end of window N, fetches
that window through the RM REST client, and predicts the window's workload under
the configuration in force. Prints both sides' best-effort AJR and, per job, the
observed and predicted response, so a gap can be traced to the jobs causing it.

    python benchmarks/window_gap.py [--windows 3] [--engine numba] [--jobs]
"""

from __future__ import annotations

import argparse
import logging
import tempfile
from contextlib import ExitStack
from pathlib import Path

import pandas as pd

from tempo.cli.preemption import scheduler_settings as site_settings
from tempo.cli.tune import DEMO_SITE
from tempo.loop.demo import demo_paths
from tempo.loop.observe import observed_qs
from tempo.loop.settings import TuneSettings
from tempo.loop.wiring import build
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.predictor import predict


def responses(schedule) -> pd.Series:
    jobs = schedule.jobs.set_index("job_id")
    return (jobs["finish_s"] - jobs["submit_s"]).rename("response_s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--windows", type=int, default=3)
    parser.add_argument("--engine", default="numba")
    parser.add_argument("--jobs", action="store_true", help="print every best-effort job")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    work = Path(tempfile.mkdtemp(prefix="window-gap-"))
    settings = TuneSettings(
        work_dir=work,
        engine=args.engine,
        scheduler=site_settings(3, DEMO_SITE, None, announce=False),
    )
    paths = demo_paths(settings)
    with ExitStack() as stack:
        tuner, connection = build(settings, paths, stack)
        tuner.resume()
        connection.warm_up()
        seen: set[int] = set()
        for n in range(1, args.windows + 1):
            if n > 1:
                connection.wait(settings.interval_s / settings.speed)
            document = AllocationDocument.from_file(paths.config)  # in force in the window
            allocation = effective_allocation(document)
            report = tuner.step()  # the demo's iteration: observes, steps, applies
            begin, end = report.begin_s, report.end_s
            trace = tuner.observer.window(begin, end)
            obs = observed_qs(trace, tuner.entries_, cluster=tuner.cluster)
            pred_qs = tuner.stepper.predict(document, trace.workload)
            schedule = predict(
                trace.workload,
                allocation,
                tuner.cluster,
                settings=tuner.stepper.settings,
                engine=args.engine,
                seed=tuner.stepper.seed,
            )
            queues = trace.workload.jobs.set_index("job_id")["queue"]
            table = pd.DataFrame(
                {
                    "queue": queues,
                    "submit_s": trace.workload.jobs.set_index("job_id")["submit_s"] - begin,
                    "tasks": trace.workload.tasks.groupby("job_id").size(),
                    "observed_s": responses(trace.observed),
                    "predicted_s": responses(schedule),
                    "obs_state": trace.observed.jobs.set_index("job_id")["state"],
                    "pred_state": schedule.jobs.set_index("job_id")["state"],
                }
            )
            killed = schedule.attempts["state"].eq("KILLED").sum()
            print(
                f"\n== window {n}: [{begin:.0f}, {end:.0f}) "
                f"{len(table)} jobs, predicted attempts {len(schedule.attempts)} ({killed} killed)"
            )
            print(
                f"demo: {report.decision}, observed {report.observed}, predicted now "
                f"{report.predicted_current}"
            )
            print("observed QS ", {k: round(v, 1) for k, v in obs.items()})
            print("predicted QS", {k: round(v, 1) for k, v in pred_qs.items()})
            for queue, group in table.groupby("queue"):
                print(
                    f"  {queue}: {len(group)} jobs, mean observed {group['observed_s'].mean():.1f} s, "
                    f"mean predicted {group['predicted_s'].mean():.1f} s, "
                    f"submitted before window {int((group['submit_s'] < 0).sum())}"
                )
            inside = table[(table["submit_s"] >= 0) & (table["queue"] == "root.besteffort")]
            print(
                f"  root.besteffort submitted in the window only: {len(inside)} jobs, mean observed "
                f"{inside['observed_s'].mean():.1f} s, predicted {inside['predicted_s'].mean():.1f} s"
            )
            seen.update(int(j.rsplit("_", 1)[1]) for j in table.index)
            running = [k for k in range(1, max(seen) + 1) if k not in seen]
            print(
                f"  jobs submitted before the last one seen but not finished by the window's end "
                f"(load the prediction does not see): {len(running)}"
            )
            if args.jobs:
                with pd.option_context("display.max_rows", 500, "display.width", 160):
                    print(table.sort_values("submit_s").round(1).to_string())


if __name__ == "__main__":
    main()
