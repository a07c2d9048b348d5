"""`tempo config diff` wiring for the distance over the tunable space."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tempo.cli import cli

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "alloc"
EXAMPLE = str(DATA / "fairscheduler-doc-example.xml")


def test_diff_prints_the_distance_over_the_default_space(tmp_path):
    """The diff ends with the normalized distance; resources join with --cluster."""
    other = tmp_path / "b.xml"
    other.write_text(
        Path(EXAMPLE).read_text().replace("<weight>2.0</weight>", "<weight>4.0</weight>")
    )
    result = CliRunner().invoke(cli, ["config", "diff", EXAMPLE, str(other)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("distance: 0.")
    assert "without resources" in result.output
    with_cluster = CliRunner().invoke(
        cli, ["config", "diff", EXAMPLE, EXAMPLE, "--cluster", "memory-mb=204800,vcores=200"]
    )
    assert with_cluster.exit_code == 0, with_cluster.output
    assert with_cluster.output.splitlines()[-1].startswith(
        "distance: 0.0000 (normalized l2 over 12"
    )


def test_diff_with_a_space_file_that_does_not_fit_exits_2(tmp_path):
    """A space file naming an unknown queue is one error line and exit status 2 (input error)."""
    space = tmp_path / "space.toml"
    space.write_text('[queue."root.etl"]\nweight = "0.5:8"\n')
    result = CliRunner().invoke(
        cli,
        [
            "config",
            "diff",
            EXAMPLE,
            EXAMPLE,
            "--space",
            str(space),
            "--cluster",
            "memory-mb=1024,vcores=1",
        ],
    )
    assert result.exit_code == 2
    assert "space.toml:2: queue: expected one of root" in result.output


def test_diff_with_a_space_file_of_resources_and_no_cluster_names_the_file_and_option(tmp_path):
    """A space file whose settings list minResources, given without --cluster, stops with
    exit 2 naming the space file, the setting and --cluster (before: only
    'root.x.minResources: cluster: required ... got None', no file, no option)."""
    space = tmp_path / "space.toml"
    space.write_text('[space]\nsettings = ["weight", "minResources"]\n')
    result = CliRunner().invoke(cli, ["config", "diff", EXAMPLE, EXAMPLE, "--space", str(space)])
    assert result.exit_code == 2, result.output
    line = result.output.strip().splitlines()[-1]
    assert "space.toml: space.settings:" in line and "minResources" in line
    assert "--cluster SPEC" in line
