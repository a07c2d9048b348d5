"""`tempo optimize`: wiring, output file and exit codes."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tempo.cli import cli
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
