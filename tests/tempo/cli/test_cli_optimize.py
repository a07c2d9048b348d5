"""`tempo optimize`: wiring, output file and exit codes."""

from __future__ import annotations

import json
import re

import jsonschema
import numpy as np
import pytest
from click.testing import CliRunner
from samples import REPO, sample_args

from tempo.cli import cli
from tempo.cli.optimize import _render_failures
from tempo.cli.schemas import OPTIMIZE_SCHEMA
from tempo.optimize import CandidateFailure
from whatif.allocation import AllocationDocument, effective_allocation

ARGS = [
    "optimize",
    *sample_args("two-tenant"),
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
    """The command prints per-iteration QS, the diff in allocation-file syntax and the
    distance, and writes -o. With --iterations 1 there is no "iteration 2": the budget's
    last evaluation is printed as the final one. No Python repr reaches the output."""
    out = tmp_path / "new.xml"
    config = str(REPO / "configs" / "two-tenant-expert.xml")
    site = str(REPO / "configs" / "sample-yarn-site.xml")
    result = CliRunner().invoke(
        cli,
        [*ARGS, "--config", config, "-o", str(out), "--site", site]
        + ["--min-gain", "0", "--min-gain-abs", "0s"],
    )
    assert result.exit_code == 0, result.output
    assert "iteration 1 of 1: 3/4 evaluations" in result.output
    assert "iteration 2" not in result.output
    assert "final evaluation of the last step: 4/4 evaluations" in result.output
    assert "root.engineer" in result.output and "QS_AJR" in result.output
    assert "distance moved:" in result.output and "  root." in result.output
    assert "Resources(" not in result.output and "ResourceLimit(" not in result.output
    assert re.search(r"\b(nan|inf|NaN)\b", result.output) is None
    assert re.search(r"\d\.\d{7,}", result.output) is None  # no float noise
    assert "preemption: on (yarn.scheduler.fair.preemption in " in result.stderr
    assert "minSharePreemptionTimeout: never -> " in result.output
    assert effective_allocation(AllocationDocument.from_file(out)).queue("root.prod") is not None


def test_optimize_proposes_no_change_below_the_minimum_gain(tmp_path):
    """A gain below --min-gain proposes nothing: -o is the --config file as it was."""
    out = tmp_path / "new.xml"
    config = REPO / "configs" / "two-tenant-expert.xml"
    site = str(REPO / "configs" / "sample-yarn-site.xml")
    result = CliRunner().invoke(
        cli, [*ARGS, "--config", str(config), "-o", str(out), "--min-gain", "100", "--site", site]
    )
    assert result.exit_code == 0, result.output
    assert "none (no change proposed: the best point found" in result.output
    assert "predicts no gain of at least 100 relative" in result.output
    assert out.read_bytes() == config.read_bytes()


def test_optimize_json_follows_its_schema(tmp_path):
    """--json prints one document (schema tempo.optimize/1) and nothing else on stdout."""
    out = tmp_path / "new.xml"
    config = str(REPO / "configs" / "two-tenant-expert.xml")
    result = CliRunner().invoke(
        cli,
        [*ARGS, "--config", config, "-o", str(out), "--json", "--site"]
        + [str(REPO / "configs" / "sample-yarn-site.xml")],
    )
    assert result.exit_code in (0, 1), result.output
    data = json.loads(result.stdout)
    jsonschema.validate(data, OPTIMIZE_SCHEMA)
    assert data["preemption"] is True and data["output"] == str(out)
    assert [i["final"] for i in data["iterations"]] == [False, True]
    assert result.exit_code == (0 if data["feasible"] else 1)


def test_optimize_refuses_to_overwrite_without_force(tmp_path):
    """-o naming an existing file (the --config file too) is refused (exit 2), left alone."""
    config = tmp_path / "fair-scheduler.xml"
    data = (REPO / "configs" / "two-tenant-expert.xml").read_bytes()
    config.write_bytes(data)
    result = CliRunner().invoke(cli, [*ARGS, "--config", str(config), "-o", str(config)])
    assert result.exit_code == 2
    assert "already exists (-o); add --force to overwrite it" in result.output
    assert config.read_bytes() == data


def test_optimize_runs_optunas_tpe(tmp_path):
    """--algorithm tpe is offered and spends the same budget as the default algorithm."""
    out = tmp_path / "new.xml"
    config = str(REPO / "configs" / "two-tenant-expert.xml")
    result = CliRunner().invoke(
        cli, [*ARGS, "--algorithm", "tpe", "--config", config, "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "final evaluation of the last step: 4/4 evaluations" in result.output
    assert effective_allocation(AllocationDocument.from_file(out)).queue("root.prod") is not None


def test_failed_candidates_are_listed_with_their_reasons(capsys):
    """Failed candidates (e.g. jobs that never finish under them) are reported at the end of
    the output: how many, and each distinct reason with its count, most frequent first."""
    never = "prediction failed: predicted schedule (seed 0): 4 jobs (root.b: 4; ...) never finished"
    _render_failures(
        [CandidateFailure(np.zeros(2), "cannot write the candidate: x")]
        + [CandidateFailure(np.ones(2), never)] * 2
    )
    assert capsys.readouterr().out.splitlines() == [
        "3 candidate(s) failed: scored as failed, never picked or averaged",
        f"  2 x {never}",
        "  1 x cannot write the candidate: x",
    ]
    _render_failures([])
    assert capsys.readouterr().out == ""


def test_optimize_without_preemption_leaves_the_timeouts_alone_and_says_so(tmp_path):
    """No --site, no --preemption: Hadoop's default (off) is used and printed, and the space
    tunes no preemption timeout."""
    out = tmp_path / "new.xml"
    config = str(REPO / "configs" / "two-tenant-expert.xml")
    result = CliRunner().invoke(cli, [*ARGS, "--config", config, "-o", str(out), "--json"])
    data = json.loads(result.stdout)
    assert data["preemption"] is False
    assert not [s for s in data["tuned_settings"] if "Preemption" in s]
    assert any(
        "preemption is off (yarn.scheduler.fair.preemption=false)" in n for n in data["notes"]
    )
    text = CliRunner().invoke(cli, [*ARGS, "--config", config, "-o", str(out), "--force"])
    assert "preemption: off (Hadoop 3's default for yarn.scheduler.fair.preemption)" in text.stderr
    assert "minSharePreemptionTimeout, fairSharePreemptionTimeout not tuned" in text.stderr


def test_optimize_prints_what_it_tunes_and_its_notes_on_stderr_and_quiet_hides_them(tmp_path):
    """The "tuning N ... settings" and "note: ..." lines are diagnostics: on stderr, so that stdout
    carries only the result, and -q hides them as it hides the other diagnostics."""
    out = tmp_path / "new.xml"
    args = [*ARGS, "--config", str(REPO / "configs" / "two-tenant-expert.xml"), "-o", str(out)]
    text = CliRunner().invoke(cli, args)
    assert text.exit_code in (0, 1), text.output
    assert "tuning " not in text.stdout and "note: " not in text.stdout
    assert "wrote " in text.stdout
    assert re.search(r"^tuning \d+ Hadoop 2/3 \(YARN\) settings$", text.stderr, re.M)
    assert "note: preemption is off" in text.stderr
    quiet = CliRunner().invoke(cli, [*args, "--force", "-q"])
    assert quiet.exit_code == text.exit_code, quiet.output
    assert "tuning " not in quiet.output and "note: " not in quiet.output
    assert "wrote " in quiet.stdout


CONTENDED = ["optimize", *sample_args("contended"), "--preemption"]


def test_optimize_finds_the_large_gain_on_the_contended_sample_in_both_dialects(tmp_path):
    """At its default budget, `tempo optimize` (PALD) cuts best-effort AJR under the
    contended sample's expert file by more than half on Hadoop 1 and by more than a third
    on YARN (157.0 s -> 89.5 s; more than half before the predictor modeled the AM's reduce
    ramp-up, which makes the expert itself waste less), keeping the deadlines."""
    for config, cluster, most in (
        ("contended-expert.xml", "nodes=5,memory-mb=8192,vcores=8", 2 / 3),
        ("contended-expert-hadoop1.xml", "map-slots=30,reduce-slots=10", 0.5),
    ):
        out = tmp_path / config
        result = CliRunner().invoke(
            cli,
            [*CONTENDED, "--config", str(REPO / "configs" / config), "--cluster", cluster,
             "-o", str(out), "--json"],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        qs = {(q["queue"], q["metric"]): q for q in report["qs"]}
        ajr = qs["root.besteffort", "QS_AJR"]
        assert ajr["proposed"] < most * ajr["in_force"]
        assert qs["root.deadline", "QS_DL(deadline=+90min)"]["proposed"] == 0.0
        assert report["feasible"]


@pytest.mark.parametrize(
    "noise,expected",
    [
        ("failures=2", "failures: expected a value in [0.0, 0.99], got 2.0"),
        ("jitter=x", "jitter: expected a number, got 'x'"),
        ("max-attempts=1.5", "max-attempts: expected an integer >= 1, got '1.5'"),
        ("lots", "expected 'typical', 'none' or KEY=VALUE pairs with keys failures,"),
    ],
)
def test_a_bad_noise_is_worded_as_clicks_errors_naming_the_key(tmp_path, noise, expected):
    """'--noise' quoted as click quotes an option, the key the user wrote (not the noise
    model's field name), what it expects; checked before any file is read."""
    args = [*CONTENDED, "--config", str(REPO / "configs" / "contended-expert.xml"),
            "--cluster", "nodes=5,memory-mb=8192,vcores=8", "--noise", noise]  # fmt: skip
    result = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "a.xml")])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Usage: "), result.output  # as the command line is read
    assert f"Error: Invalid value for '--noise': {expected}" in result.output


def test_optimize_replicates_under_the_noise_model(tmp_path):
    """--noise typical makes replicates differ (a spread > 0); a bad spec is a usage error."""
    args = [*CONTENDED, "--config", str(REPO / "configs" / "contended-expert.xml"),
            "--cluster", "nodes=5,memory-mb=8192,vcores=8", "--iterations", "1",
            "--replicates", "2", "--noise", "typical", "-o", str(tmp_path / "a.xml"), "--json"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    bad = CliRunner().invoke(
        cli, [*args[:-3], "--noise", "stragglers=lots", "-o", str(tmp_path / "b.xml")]
    )
    assert bad.exit_code == 2 and "--noise" in bad.output and "stragglers" in bad.output


def test_a_configuration_in_force_whose_jobs_never_finish_is_the_answer_no(tmp_path):
    """Nodes of 512 MB fit none of the sample's 1024 MB containers: the configuration in
    force cannot be scored, which `optimize` says with exit 1 as `predict` does for the
    same schedule (not 2, an input error), and writes nothing."""
    out = tmp_path / "tuned.xml"
    result = CliRunner().invoke(
        cli,
        [
            "optimize",
            "--trace", str(REPO / "traces/contended"),
            "--templates", str(REPO / "templates/contended"),
            "--config", str(REPO / "configs/contended-expert.xml"),
            "--cluster", "nodes=5,memory-mb=512,vcores=8",
            "--iterations", "1",
            "-o", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "the configuration in force cannot be evaluated" in result.output
    assert "never finished" in result.output and not out.exists()
