"""The schedule predictor: a time-warp simulation of the YARN Fair Scheduler.

`predict` replays a Workload under an EffectiveAllocation on a Cluster and returns the
predicted Schedule; `Simulation` does the same step by step (advance, inspect,
reconfigure, continue). Two engines give identical schedules: ``"numba"`` (the compiled
kernel, for speed) and ``"reference"`` (plain Python, for reading and checking).
"""

from whatif.predictor.jobruntime import write_jobruntime_csv
from whatif.predictor.settings import TYPICAL_NOISE, NoiseModel, SchedulerSettings
from whatif.predictor.simulation import Simulation, SimulationState, predict, predict_taking

__all__ = [
    "NoiseModel",
    "TYPICAL_NOISE",
    "SchedulerSettings",
    "Simulation",
    "SimulationState",
    "predict",
    "predict_taking",
    "write_jobruntime_csv",
]
