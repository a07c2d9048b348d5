"""What an operator scripting tempo relies on: an existing output is refused before any
work with the one flag that overrides it, and exit statuses keep their documented meaning."""

import json

import click
import jsonschema
import pytest
from click.testing import CliRunner
from samples import REPO

from tempo.cli import COMMANDS, LazyGroup, cli, exit_code_for, exitcodes
from tempo.cli.schemas import CONFIG_DIFF_SCHEMA, PREDICT_SCHEMA, WORKLOAD_FIT_SCHEMA
from tempo.errors import ReloadRefused, RMError
from whatif.errors import RemoteServiceError
from whatif.executors import make_executor

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


def test_config_diff_of_files_without_a_common_queue_prints_the_diff(tmp_path):
    """Two allocation files with no queue in common still differ queue by queue: the diff
    is printed (exit 0) and the distance, which needs a common queue, is null."""
    a, b = tmp_path / "a.xml", tmp_path / "b.xml"
    a.write_text('<allocations><queue name="x"><weight>2</weight></queue></allocations>')
    b.write_text('<allocations><queue name="y"><weight>3</weight></queue></allocations>')
    result = CliRunner().invoke(cli, ["config", "diff", str(a), str(b), "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    jsonschema.validate(document, CONFIG_DIFF_SCHEMA)
    assert document["distance"] is None and document["dimensions"] == 0
    assert document["changes"]
    text = CliRunner().invoke(cli, ["config", "diff", str(a), str(b)])
    assert text.exit_code == 0, text.output
    assert "distance: none" in text.stdout


def test_a_refused_reload_is_the_answer_no_and_an_unreachable_rm_a_remote_failure():
    """docs/cli.md: a reload the RM refuses exits 1; an RM that cannot be reached exits 3."""
    assert exit_code_for(ReloadRefused("refused: pro.d")) == exitcodes.NO
    assert exit_code_for(RMError("connection refused")) == exitcodes.REMOTE


def test_emulate_rm_checks_its_cluster_spec_as_every_command_does():
    """A bad --cluster is a usage error naming the option, before the trace is read."""
    result = CliRunner().invoke(
        cli, ["emulate-rm", "--trace", SLS_TRACE, "--config", SLS_ALLOC, "--cluster", "nodes=x"]
    )
    assert result.exit_code == 2
    assert "Invalid value for '--cluster'" in result.output


def test_predict_on_a_slot_cluster_simulates_hadoop_1_unless_told_otherwise():
    """predict's --hadoop-version defaults as optimize's does: a slot cluster is Hadoop 1
    (it predicted under YARN's rules, with MRv1 warnings about the Hadoop 1 file)."""
    args = [
        "predict",
        "--trace",
        str(REPO / "traces/hadoop1"),
        "--config",
        str(REPO / "configs/contended-expert-hadoop1.xml"),
        "--cluster",
        "map-slots=4,reduce-slots=4",
        "--engine",
        "reference",
        "--json",
    ]
    default = CliRunner().invoke(cli, args)
    explicit = CliRunner().invoke(cli, [*args, "--hadoop-version", "1"])
    assert default.exit_code == explicit.exit_code == 0, default.output
    assert json.loads(default.stdout) == json.loads(explicit.stdout)
    jsonschema.validate(json.loads(default.stdout), PREDICT_SCHEMA)
    assert "MRv1" not in default.stderr


@pytest.mark.parametrize("command", ["predict", "qs", "optimize", "whatif", "tune"])
def test_a_bad_window_is_a_usage_error_naming_the_option(command):
    """--window abc names the option, as --cluster does, before anything is read."""
    result = CliRunner().invoke(cli, [command, "--window", "abc"])
    assert result.exit_code == 2
    assert "Invalid value for '--window'" in result.output, result.output


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["workload", "generate", "MODEL", "-o", "OUT", "--hours", "nan"], "--hours"),
        (["workload", "generate", "MODEL", "-o", "OUT", "--hours", "inf"], "--hours"),
        (["whatif", "--tolerance", "inf"], "--tolerance"),
        (["optimize", "--radius", "nan"], "--radius"),
        (["optimize", "--seed", "-1"], "--seed"),
        (["tune", "--min-gain", "nan"], "--min-gain"),
        (["emulate-rm", "refresh", "--rm", "http://127.0.0.1:9", "--timeout", "nan"], "--timeout"),
    ],
)
def test_nan_inf_and_negative_seeds_are_usage_errors_naming_the_option(tmp_path, args, option):
    """A number option refuses nan and inf (click's ranges let them through) and a seed a
    negative value when the command line is read, naming the option: no traceback, no
    work done first."""
    model = tmp_path / "model.json"
    model.write_text("{}")
    args = [
        str(model) if a == "MODEL" else str(tmp_path / "out") if a == "OUT" else a for a in args
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}'" in result.output, result.output


def _options():
    """(command path, option) of every visible option of every command."""
    group = LazyGroup()
    found = []

    def walk(path, command):
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk((*path, name), sub)
        found.extend(
            (" ".join(path), p)
            for p in command.params
            if isinstance(p, click.Option) and not p.hidden
        )

    for name in COMMANDS:
        walk((name,), group.get_command(None, name))
    return found


def test_every_option_says_what_it_does_and_its_help_renders_as_written():
    """--help is the operator's manual: no option without a text, no '%%' printed."""
    silent = [f"{path} {p.opts[-1]}" for path, p in _options() if not p.help]
    assert silent == []
    doubled = [f"{path} {p.opts[-1]}" for path, p in _options() if "%%" in p.help]
    assert doubled == []


CONTENDED = [
    "--trace",
    str(REPO / "traces/contended"),
    "--config",
    str(REPO / "configs/contended-expert.xml"),
]


@pytest.mark.parametrize(
    "command,where",
    [
        (["config", "set", str(REPO / "configs/contended-expert.xml"), "-o"], "nodir/x.xml"),
        (["workload", "fit", str(REPO / "traces/contended"), "-o"], "nodir/model.json"),
        (
            ["predict", *CONTENDED, "--cluster", "nodes=5,memory-mb=8192,vcores=8", "--jobruntime"],
            "file/jobruntime.csv",
        ),
        (["predict", *CONTENDED, "--cluster", "nodes=5,memory-mb=8192,vcores=8", "-o"], "file/p"),
        (["whatif", *CONTENDED, "--templates", str(REPO / "templates/contended"), "-o"], "file"),
    ],
    ids=["config set", "workload fit", "predict --jobruntime", "predict -o", "whatif -o"],
)
def test_an_output_that_cannot_be_written_is_refused_before_any_work(tmp_path, command, where):
    """An -o in a missing directory or under a file fails at once (exit 2), naming the path
    and the option: not after the simulation or the fit, not naming a temporary file."""
    (tmp_path / "file").write_text("")
    target = tmp_path / where
    result = CliRunner().invoke(cli, [*command, str(target)])
    assert result.exit_code == 2, result.output
    assert f"{target}" in result.output and "cannot be written" in result.output, result.output
    assert "preemption:" not in result.output  # nothing was simulated
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize(
    ("option", "existing", "what"),
    [("--jobruntime", "dir", "it is a directory"), ("-o", "file", "it is a file")],
)
def test_an_output_of_the_wrong_kind_is_refused_for_what_it_is_not_for_force(
    tmp_path, option, existing, what
):
    """An existing directory where a file goes (or a file where a native trace directory
    goes) is refused at once for what it is: not with 'add --force', which would only lead
    to that refusal."""
    target = tmp_path / existing
    target.mkdir() if existing == "dir" else target.write_text("")
    cluster = ["--cluster", "nodes=5,memory-mb=8192,vcores=8"]
    result = CliRunner().invoke(cli, ["predict", *CONTENDED, *cluster, option, str(target)])
    assert result.exit_code == 2, result.output
    assert f"{target}: cannot be written ({option} expects" in result.output
    assert what in result.output and "--force" not in result.output


@pytest.mark.parametrize("option", ["--jobruntime", "-o"])
def test_an_empty_output_path_is_refused_as_no_path(tmp_path, option):
    """An empty path (a script's unset variable) is no path: not 'already exists', which
    is what this directory ('' read as '.') would have said."""
    cluster = ["--cluster", "nodes=5,memory-mb=8192,vcores=8"]
    result = CliRunner().invoke(cli, ["predict", *CONTENDED, *cluster, option, ""])
    assert result.exit_code == 2 and f"{option}: expected a path, got ''" in result.output


def test_whatif_o_that_cannot_be_a_report_directory_names_o_and_what_it_expects(tmp_path):
    """whatif -o naming a file, or a directory whose report.json is a directory: exit 2
    at once, naming the path given, -o and what -o expects, not a report file."""
    whatif = ["whatif", *CONTENDED, "--templates", str(REPO / "templates/contended")]
    (tmp_path / "file").write_text("")
    result = CliRunner().invoke(cli, [*whatif, "-o", str(tmp_path / "file")])
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'file'}: cannot be written (-o expects a writable directory" in (
        result.output
    )
    assert result.output.rstrip().endswith("it is a file"), result.output
    (tmp_path / "report" / "report.json").mkdir(parents=True)
    result = CliRunner().invoke(cli, [*whatif, "-o", str(tmp_path / "report"), "--force"])
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'report' / 'report.json'}: cannot be written (-o): it is a directory" in (
        result.output
    )
    assert "preemption:" not in result.output  # nothing was simulated


def test_a_report_file_that_is_a_directory_is_refused_for_that_without_force(tmp_path):
    """whatif -o DIR whose report.json is a directory, without --force: refused for what it
    is, not with 'add --force', which would only lead to that refusal."""
    whatif = ["whatif", *CONTENDED, "--templates", str(REPO / "templates/contended")]
    (tmp_path / "report" / "report.json").mkdir(parents=True)
    result = CliRunner().invoke(cli, [*whatif, "-o", str(tmp_path / "report")])
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'report' / 'report.json'}: cannot be written (-o): it is a directory" in (
        result.output
    )
    assert "--force" not in result.output


def test_config_diff_reads_hadoop_1_files_as_hadoop_1_as_the_other_config_commands_do():
    """Without --hadoop-version, a <pool> file in A or B makes the diff Hadoop 1's (it read
    both as YARN's, leaving out MRv1 settings such as a user's maxRunningJobs)."""
    corpus = REPO.parent / "shared" / "data" / "alloc-corpus"
    files = [
        str(corpus / "01-apache-hadoop-mrv1-template.xml"),
        str(corpus / "04-weilu-Hadoop-Resource-Aware-Scheduler-mrv1-pool.xml"),
    ]
    default = CliRunner().invoke(cli, ["config", "diff", *files, "--json"])
    explicit = CliRunner().invoke(
        cli, ["config", "diff", *files, "--json", "--hadoop-version", "1"]
    )
    assert default.exit_code == explicit.exit_code == 0, default.output
    assert json.loads(default.stdout) == json.loads(explicit.stdout)
    jsonschema.validate(json.loads(default.stdout), CONFIG_DIFF_SCHEMA)


def test_an_unreachable_dask_scheduler_is_a_remote_failure(monkeypatch):
    """--executor dask://... whose scheduler cannot be reached exits 3 (a remote service
    failed), not 2 (the input is wrong)."""
    import distributed

    class Unreachable:
        def __init__(self, address, **kwargs):
            raise OSError(f"Timed out trying to connect to {address} after 10 s")

    monkeypatch.setattr(distributed, "Client", Unreachable)
    with pytest.raises(RemoteServiceError, match="cannot reach the Dask scheduler"):
        make_executor("dask://127.0.0.1:1")
    assert exit_code_for(RemoteServiceError("x")) == exitcodes.REMOTE


@pytest.mark.parametrize(
    "command",
    [
        ["tune", "--rm", "rm-host:8088"],
        ["tune", "--rm", "http://rm:8088", "--history-server", "jhs"],
        ["emulate-rm", "refresh", "--rm", "notaurl"],
        ["tune", "--rm", "http://127.0.0.1:99999"],
    ],
    ids=["tune --rm", "tune --history-server", "emulate-rm refresh --rm", "port"],
)
def test_a_mistyped_url_is_a_usage_error_not_a_failed_cluster(command):
    """A URL without http://, or with a port past 65535, is exit 2 naming the option,
    before anything is contacted; 3 is kept for an RM or JobHistory Server that is down."""
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--" in result.output
    assert "http://" in result.output or "expected a port from 0 to 65535" in result.output


def test_workload_fit_json_is_one_named_document_like_the_others(tmp_path):
    """`workload fit --json` is one object with a schema name (tempo.workload.fit/1), the
    model written and the goodness-of-fit rows under a key, indented as every --json is."""
    model = tmp_path / "m.json"
    result = CliRunner().invoke(
        cli, ["workload", "fit", str(REPO / "traces/two-tenant"), "-o", str(model), "--json"]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    jsonschema.validate(document, WORKLOAD_FIT_SCHEMA)
    assert document["output"] == str(model)
    rows = document["goodness_of_fit"]
    assert {(r["queue"], r["quantity"]) for r in rows} >= {("root.engineer", "duration_s")}
    assert result.stdout.startswith('{\n  "schema"')


@pytest.mark.parametrize("command", ["optimize", "whatif"])
@pytest.mark.parametrize("spec", ["local:0", "local:two", "locall"])
def test_a_bad_executor_is_a_usage_error_naming_the_option(command, spec):
    """--executor local:0 names the option and what it takes when the command line is
    read, not the worker pool's 'max_workers must be >= 1' after the inputs."""
    result = CliRunner().invoke(cli, [command, "--executor", spec])
    assert result.exit_code == 2
    assert "Invalid value for '--executor'" in result.output, result.output
    assert "local:N with N >= 1" in result.output and "max_workers" not in result.output
