"""What an operator scripting tempo relies on: an existing output is refused before any
work with the one flag that overrides it, and exit statuses keep their documented meaning."""

import pytest
from click.testing import CliRunner
from samples import REPO

from tempo.cli import cli

SLS_TRACE = str(REPO / "traces/hadoop/sls")
SLS_ALLOC = str(REPO.parent / "shared" / "data" / "hadoop" / "alloc" / "sls-test-allocation.xml")


@pytest.mark.parametrize(
    "command",
    [
        [
            "predict",
            "--trace",
            SLS_TRACE,
            "--config",
            SLS_ALLOC,
            "--cluster",
            "nodes=19,memory-mb=8192,vcores=8",
            "--engine",
            "reference",
            "-o",
        ],
        ["trace", "convert", SLS_TRACE],
        ["workload", "generate", str(REPO / "configs/contended-expert.xml"), "--hours", "1", "-o"],
    ],
    ids=["predict", "trace convert", "workload generate"],
)
def test_an_existing_native_trace_output_is_refused_up_front_naming_force(tmp_path, command):
    """predict -o, trace convert TARGET and workload generate -o refuse an existing output
    at once (no simulation, no model read) and say which flag overwrites it."""
    target = tmp_path / "out"
    target.mkdir()
    result = CliRunner().invoke(cli, [*command, str(target)])
    assert result.exit_code == 2, result.output
    assert f"{target}: already exists" in result.output
    assert "add --force" in result.output
    assert "preemption:" not in result.output  # nothing was simulated
    assert list(target.iterdir()) == []
