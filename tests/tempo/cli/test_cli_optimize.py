"""`tempo optimize`: wiring, output file and exit codes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from click.testing import CliRunner

from tempo.cli import cli
from tempo.cli.optimize import _render_failures
from tempo.optimize import CandidateFailure
from whatif.allocation import AllocationDocument

REPO = Path(__file__).resolve().parents[3]
ARGS = [
    "optimize",
    "--trace",
    str(REPO / "traces" / "two-tenant"),
    "--templates",
    str(REPO / "templates" / "two-tenant"),
    "--cluster",
    "nodes=20,memory-mb=8192,vcores=8",
    "--window",
    "45min",
    "--iterations",
    "1",
    "--batch-size",
    "3",
    "--executor",
    "serial",
    "--engine",
    "reference",
    "--tune",
    "root.prod.minResources=fixed",
]


def test_optimize_writes_the_new_file_and_prints_progress(tmp_path):
    """The command prints per-iteration QS, the diff and the distance, and writes -o."""
    out = tmp_path / "new.xml"
    config = str(REPO / "configs" / "two-tenant-expert.xml")
    result = CliRunner().invoke(cli, [*ARGS, "--config", config, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "iteration 1: 3/4 evaluations" in result.output
    assert "root.engineer" in result.output and "QS_AJR" in result.output
    assert "distance moved:" in result.output
    assert AllocationDocument.from_file(out).effective().queue("root.prod") is not None


def test_optimize_refuses_to_overwrite_the_config(tmp_path):
    """-o naming the --config file is refused (exit 1) and the file is left alone."""
    config = tmp_path / "fair-scheduler.xml"
    data = (REPO / "configs" / "two-tenant-expert.xml").read_bytes()
    config.write_bytes(data)
    result = CliRunner().invoke(cli, [*ARGS, "--config", str(config), "-o", str(config)])
    assert result.exit_code == 1
    assert "refusing to overwrite" in result.output
    assert config.read_bytes() == data


def test_optimize_runs_optunas_tpe(tmp_path):
    """--algorithm tpe is offered and spends the same budget as the default algorithm."""
    out = tmp_path / "new.xml"
    config = str(REPO / "configs" / "two-tenant-expert.xml")
    result = CliRunner().invoke(
        cli, [*ARGS, "--algorithm", "tpe", "--config", config, "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "iteration 2: 4/4 evaluations" in result.output
    assert AllocationDocument.from_file(out).effective().queue("root.prod") is not None


def test_failed_candidates_are_listed_with_their_reasons(capsys):
    """Failed candidates (e.g. jobs that never finish under them) are reported at the end of
    the output: how many, and each distinct reason with its count, most frequent first."""
    never = "prediction failed: predicted schedule (seed 0): 4 jobs (root.b: 4; ...) never finished"
    _render_failures(
        [CandidateFailure(np.zeros(2), "cannot write the candidate: x")]
        + [CandidateFailure(np.ones(2), never)] * 2
    )
    assert capsys.readouterr().out.splitlines() == [
        "3 candidate(s) failed: scored as failed (NaN), never picked or averaged",
        f"  2 x {never}",
        "  1 x cannot write the candidate: x",
    ]
    _render_failures([])
    assert capsys.readouterr().out == ""
