"""The bundled samples (``traces/``, ``templates/``, ``configs/``) as command-line arguments,
small fair-scheduler.xml and capacity-scheduler.xml documents, flat queue trees and
map-only workloads for tests, ``tempo trace inspect`` run on a trace, expected rows
written as a compact text table, and the scripts of ``benchmarks/`` as modules."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from whatif import EffectiveAllocation, EffectiveQueue, Workload
from whatif.capacity import ConfigurationDocument

if TYPE_CHECKING:
    from click.testing import Result

REPO = Path(__file__).resolve().parents[1]


def benchmark_module(name: str) -> ModuleType:
    """benchmarks/<name>.py as a module, loaded once and registered under its name (its
    dataclasses need that), with the benchmarks folder on the path while it loads."""
    if name in sys.modules and getattr(sys.modules[name], "__file__", "").endswith(
        f"benchmarks/{name}.py"
    ):
        return sys.modules[name]
    folder = str(REPO / "benchmarks")
    sys.path.insert(0, folder)
    try:
        spec = importlib.util.spec_from_file_location(name, Path(folder) / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(folder)


def sample_args(name: str, *, config: bool = False) -> list[str]:
    """``--trace`` and ``--templates`` of the bundled sample `name`; with `config`, also
    ``--config`` with its expert allocation file (``configs/<name>-expert.xml``)."""
    args = ["--trace", str(REPO / "traces" / name), "--templates", str(REPO / "templates" / name)]
    if config:
        args += ["--config", str(REPO / "configs" / f"{name}-expert.xml")]
    return args


def capacity_document(props: Mapping[str, object]) -> ConfigurationDocument:
    """A capacity-scheduler.xml of `props`, a property a block (short names after
    ``yarn.scheduler.capacity.``, or full ``yarn.`` names)."""
    body = "".join(
        f"  <property>\n    <name>{k if k.startswith('yarn.') else CAPACITY_PREFIX + k}</name>\n"
        f"    <value>{v}</value>\n  </property>\n"
        for k, v in props.items()
    )
    return ConfigurationDocument.from_bytes(f"<configuration>\n{body}</configuration>\n".encode())


CAPACITY_PREFIX = "yarn.scheduler.capacity."


def allocation_file(
    element: str, queues: Mapping[str, Mapping[str, object]], **top: object
) -> bytes:
    """A fair-scheduler.xml with an `element` (``queue``, or Hadoop 1's ``pool``) for each
    of `queues` (name -> its elements, tag -> value), then the top-level elements `top`,
    one element a line."""
    lines = ['<?xml version="1.0"?>', "<allocations>"]
    for name, settings in queues.items():
        lines.append(f'  <{element} name="{name}">')
        lines += [f"    <{tag}>{value}</{tag}>" for tag, value in settings.items()]
        lines.append(f"  </{element}>")
    lines += [f"  <{tag}>{value}</{tag}>" for tag, value in top.items()]
    return "\n".join([*lines, "</allocations>", ""]).encode()


def flat_tree(**queues: Mapping[str, Any]) -> EffectiveAllocation:
    """root with one leaf per keyword (name -> EffectiveQueue keyword arguments)."""
    return EffectiveAllocation(
        root=EffectiveQueue(
            "root", children=tuple(EffectiveQueue(f"root.{n}", **kw) for n, kw in queues.items())
        )
    )


def map_workload(
    jobs: pd.DataFrame, tasks: int | Sequence[int], duration_s: float | Sequence[float]
) -> Workload:
    """The job table `jobs` with `tasks` one-GB, one-vcore map tasks a job (one count for
    every job, or a count a job), named ``<job>_m0``, ``<job>_m1``..., each running
    `duration_s` seconds (one duration for every task, or one a task in job order)."""
    sizes = np.broadcast_to(tasks, len(jobs))
    ids = jobs["job_id"].to_numpy()
    return Workload(
        jobs=jobs,
        tasks=pd.DataFrame(
            {
                "job_id": np.repeat(ids, sizes),
                "task_id": [f"{j}_m{k}" for j, n in zip(ids, sizes, strict=True) for k in range(n)],
                "stage": "map",
                "duration_s": duration_s,
                "memory_mb": 1024.0,
                "vcores": 1.0,
            }
        ),
    )


def trace_inspect(path: Path, *flags: str) -> Result:
    """``tempo trace inspect PATH FLAGS`` run in-process; the test fails unless it exits 0."""
    from click.testing import CliRunner

    from tempo.cli import cli

    result = CliRunner().invoke(cli, ["trace", "inspect", str(path), *flags])
    assert result.exit_code == 0, result.output
    return result


def table(text: str, *kinds: Callable[[str], Any], sep: str | None = None) -> list[tuple[Any, ...]]:
    """The rows of `text`, a non-blank line each, as tuples of as many fields as `kinds`
    (``str``, ``float``, ``int``...), each read by its kind without the white space around
    it: a line splits at `sep` (at white space if None), its last field taking the rest of
    the line (with a `sep`, a blank field is ``""``)."""
    rows = (line.strip() for line in text.splitlines())
    return [
        tuple(
            kind(f.strip()) for kind, f in zip(kinds, row.split(sep, len(kinds) - 1), strict=True)
        )
        for row in rows
        if row
    ]
