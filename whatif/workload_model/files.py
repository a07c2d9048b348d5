"""Trace files in and out: fit a model to a trace on disk, generate a trace to disk.

These are the library functions behind ``tempo workload fit`` and ``tempo workload
generate``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from whatif.errors import ValidationError
from whatif.readers import read_trace, write_native
from whatif.trace import Trace
from whatif.workload import Workload
from whatif.workload_model.model import WorkloadModel

logger = logging.getLogger(__name__)


def fit_trace(
    trace: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    format: str | None = None,
    **params: Any,
) -> WorkloadModel:
    """Read the trace at `trace`, fit a `WorkloadModel(**params)` and write it to `output`.

    `format` is the trace format (detected when None). Returns the fitted model,
    whose ``goodness_of_fit_`` is the fit report. The parameters are checked before the
    trace is read; a trace the model cannot fit is named in the error.
    """
    model = WorkloadModel(**params)
    model.validate_params()  # before reading: a bad parameter is not the trace's fault
    workload = read_trace(trace, format=format).workload
    try:
        model.fit(workload)
    except ValidationError as error:  # the workload's problem: name the trace
        raise ValidationError(f"{trace}: {str(error).removeprefix('workload: ')}") from error
    model.to_json(output)
    logger.info("wrote workload model %s", output)
    return model


def generate_trace(
    model: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    hours: float,
    seed: int = 0,
    start_s: float = 0.0,
    growth: float = 1.0,
    arrival_scale: float = 1.0,
    kind: str = "parquet",
    overwrite: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
) -> Workload:
    """Generate `hours` of workload from the model file `model` into a native trace `output`.

    `growth` and `arrival_scale` apply `WorkloadModel.with_growth` and
    `WorkloadModel.with_arrival_scale` to every queue first. `progress` is called with
    (steps done, steps, what was done): one step per queue generated, one for writing.
    Returns the workload written.
    """
    fitted = WorkloadModel.from_json(model)
    if growth != 1.0:
        fitted = fitted.with_growth(growth)
    if arrival_scale != 1.0:
        fitted = fitted.with_arrival_scale(arrival_scale)
    steps = len(fitted.queues_) + 1

    def generated(done: int, queues: int, name: str) -> None:
        if progress is not None:
            progress(done, steps, f"generated {name}")

    workload = fitted.generate(hours=hours, seed=seed, start_s=start_s, progress=generated)
    note = (
        f"generated from workload model {Path(model).name}: hours={hours} seed={seed} "
        f"start_s={start_s} growth={growth} arrival_scale={arrival_scale}"
    )
    write_native(
        Trace(workload=workload, format="synthetic", notes=(note,)),
        output,
        kind=kind,  # type: ignore[arg-type]
        overwrite=overwrite,
    )
    if progress is not None:
        progress(steps, steps, f"wrote {Path(output).name}")
    return workload
