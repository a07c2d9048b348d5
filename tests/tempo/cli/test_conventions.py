"""One CLI convention for every command: -q/-v anywhere, --json, --force, exit codes 0/1/2/3."""

import io
import json
import logging
import subprocess
import sys
from pathlib import Path

import click
import pytest
import requests
from click.testing import CliRunner

from tempo.cli import COMMANDS, LazyGroup, cli, exit_code_for, exitcodes
from tempo.cli.optimize import ALGORITHMS
from tempo.cli.options import progress_bar
from tempo.cli.schemas import SCHEMAS
from tempo.errors import RMError, TemplateSyntaxError
from tempo.optimizers import OPTIMIZERS
from whatif.errors import TraceFormatError, UnfinishedJobsError

#: Commands that print results: each has --json.
RESULTS = {
    ("config", "validate"),
    ("config", "show"),
    ("config", "set"),
    ("config", "diff"),
    ("config", "convert"),
    ("optimize",),
    ("whatif",),
    ("tune",),
    ("history",),
    ("trace", "inspect"),
    ("trace", "convert"),
    ("qs",),
    ("predict",),
    ("workload", "fit"),
    ("workload", "generate"),
}


def _commands():
    """(path, click command) of every leaf command."""
    group = LazyGroup()
    found = []
    for name in COMMANDS:
        command = group.get_command(None, name)
        if isinstance(command, click.Group) and command.commands:
            found += [((name, sub), c) for sub, c in command.commands.items()]
            if name == "emulate-rm":
                found.append(((name,), command))
        else:
            found.append(((name,), command))
    return found


def _options(command: click.Command) -> set[str]:
    return {o for p in command.params if not getattr(p, "hidden", False) for o in p.opts}


@pytest.mark.parametrize(
    "path,command", _commands(), ids=lambda v: " ".join(v) if isinstance(v, tuple) else ""
)
def test_every_command_takes_quiet_and_verbose_after_it(path, command):
    assert {"-q", "--quiet", "-v", "--verbose"} <= _options(command)
    help_text = CliRunner().invoke(cli, [*path, "--help"]).output
    assert "None]" not in help_text  # (an unbounded range printed as [x<=None])


@pytest.mark.parametrize(
    "path,command", _commands(), ids=lambda v: " ".join(v) if isinstance(v, tuple) else ""
)
def test_results_have_json_and_writers_have_force(path, command):
    options = _options(command)
    if path in RESULTS:
        assert "--json" in options
    writes = (
        "-o" in options
        or "--output" in options
        or any(getattr(p, "name", "") == "target" for p in command.params)
    )
    if writes:
        assert "--force" in options, f"tempo {' '.join(path)} writes but has no --force"
    assert "--overwrite" not in options


def test_every_json_document_has_a_schema():
    """Each command with --json has its JSON Schema in tempo/cli/schemas.py, under its
    command line: a new command cannot ship a --json document without one."""
    with_json = {" ".join(path) for path, command in _commands() if "--json" in _options(command)}
    assert {" ".join(path) for path in RESULTS} <= with_json
    assert sorted(with_json - set(SCHEMAS)) == [], "add its schema to tempo/cli/schemas.py"
    assert sorted(set(SCHEMAS) - with_json) == [], "a schema for no command's --json"


def test_library_errors_map_to_documented_exit_codes():
    assert (exitcodes.OK, exitcodes.NO, exitcodes.USAGE, exitcodes.REMOTE) == (0, 1, 2, 3)
    assert exit_code_for(RMError("down")) == exitcodes.REMOTE
    assert exit_code_for(requests.ConnectionError("refused")) == exitcodes.REMOTE
    assert exit_code_for(UnfinishedJobsError("never finished")) == exitcodes.NO
    assert exit_code_for(TraceFormatError("x.jhist:3: bad")) == exitcodes.USAGE
    assert exit_code_for(TemplateSyntaxError("bad", path="t.qs", line=1)) == exitcodes.USAGE


def test_a_remote_failure_exits_3_with_one_line(monkeypatch, tmp_path):
    def down(path):
        raise RMError("http://rm:8088: connection refused")

    monkeypatch.setattr("tempo.cli.history.read_history", down)
    result = CliRunner().invoke(cli, ["history", "--journal", str(tmp_path / "j.sqlite")])
    assert result.exit_code == 3
    assert result.stderr.strip() == "Error: http://rm:8088: connection refused"


def test_quiet_after_the_subcommand_hides_what_is_not_a_result(tmp_path):
    """-q after the subcommand: no preemption line, no warnings; the result still prints."""
    from pathlib import Path

    repo = Path(__file__).resolve().parents[3]
    args = [
        "qs",
        "--trace",
        str(repo / "traces" / "hadoop" / "sls"),
        "--config",
        str(repo / "configs" / "two-tenant-expert.xml"),
        "--cluster",
        "memory-mb=100000,vcores=100",
    ]
    loud = CliRunner().invoke(cli, args)
    quiet = CliRunner().invoke(cli, [*args, "-q"])
    assert "preemption: off" in loud.stderr
    assert quiet.stderr == "" and quiet.stdout == loud.stdout
    assert logging.getLogger().level == logging.ERROR
    CliRunner().invoke(cli, ["history", "--journal", str(tmp_path / "none.sqlite"), "-v"])
    assert logging.getLogger().level == logging.INFO


def test_quiet_after_an_option_that_reads_a_file_hides_that_reading_s_warnings(caplog):
    """-q acts before the other options' callbacks wherever it stands: reading SLS's
    nodes.json (a rack entry without a node name is skipped with a warning) logs nothing."""
    shared = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop"
    args = [
        "config", "show", str(shared / "alloc" / "sls-test-allocation.xml"),
        "--cluster", str(shared / "sls" / "nodes.json"),
    ]  # fmt: skip
    caplog.set_level(logging.WARNING)
    loud = CliRunner().invoke(cli, args)
    assert any("has no 'node' name; skipped" in r.getMessage() for r in caplog.records)
    caplog.clear()
    quiet = CliRunner().invoke(cli, [*args, "-q"])
    assert not any(r.levelno >= logging.WARNING for r in caplog.records)
    assert quiet.stdout == loud.stdout


def test_a_reader_that_went_away_ends_the_command_silently_with_141():
    """`tempo ... | head`: stdout's reader closed before the output, no "Broken pipe"
    error on stderr, the status a shell gives a process ended by SIGPIPE."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[3]
    command = "from tempo.cli import main; main()"
    config = str(repo / "configs" / "two-tenant-expert.xml")
    process = subprocess.Popen(
        [sys.executable, "-c", command, "config", "show", config],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # the reader goes away before anything is written
    stderr = process.stderr.read().decode()
    assert process.wait() == exitcodes.BROKEN_PIPE
    assert "Broken pipe" not in stderr and "Traceback" not in stderr


def test_progress_bars_stay_off_when_stderr_is_not_a_terminal(monkeypatch):
    monkeypatch.setattr("sys.stderr", io.StringIO())
    bar = progress_bar(10, "test")
    bar.update(10)
    bar.close()
    assert bar.disable
    import sys

    assert sys.stderr.getvalue() == ""


def test_usage_errors_name_the_option():
    result = CliRunner().invoke(cli, ["predict", "--trace", "t", "--config", "c", "--cluster", "x"])
    assert result.exit_code == 2 and "'--cluster'" in result.output


def test_json_output_is_strict_json(tmp_path):
    from pathlib import Path

    repo = Path(__file__).resolve().parents[3]
    result = CliRunner().invoke(
        cli, ["trace", "inspect", str(repo / "traces" / "hadoop" / "sls"), "--json"]
    )
    assert result.exit_code == 0
    json.loads(result.stdout, parse_constant=lambda c: pytest.fail(f"{c} in --json output"))


#: What a command imports only when it runs: numba and the kernel, scipy, matplotlib and
#: the reports, the optimizer, the tuning loop, the RM client (requests), the what-if
#: analysis and its forecast.
HEAVY = (
    "numba",
    "whatif.predictor.compiled",
    "scipy",
    "matplotlib",
    "tempo.reports",
    "whatif.report",
    "tempo.optimize",
    "tempo.optimizers",
    "tempo.loop",
    "tempo.rm",
    "requests",
    "tempo.whatif",
    "whatif.forecast",
    "whatif.provisioning",
)


def test_help_and_usage_errors_load_no_heavy_module():
    """A script's quick commands stay quick: `tempo --help` loads every command for its
    summary line, and none imports a `HEAVY` module until it runs (2.0 s with them, 0.7 s
    without), so a usage error comes at once too."""
    code = (
        "import json, sys\n"
        "from tempo.cli import cli\n"
        "try:\n    cli(['--help'], prog_name='tempo')\nexcept SystemExit:\n    pass\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "optimize" in done.stdout  # the help listed the commands
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_optimize_offers_every_algorithm():
    """`--algorithm`'s choices, listed in the command so that its module need not import
    the optimizers, are the optimizers' names."""
    assert sorted(ALGORITHMS) == sorted(OPTIMIZERS)


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("tempo con", "config"),
        ("tempo config va", "validate"),
        ("tempo predict --clu", "--cluster"),
    ],
)
def test_the_shell_completes_commands_and_options(words, expected):
    """click's shell completion (docs/cli.md: ``_TEMPO_COMPLETE=bash_source tempo``) sees
    the lazily loaded commands and their options."""
    env = {"_TEMPO_COMPLETE": "bash_complete", "COMP_WORDS": words}
    env["COMP_CWORD"] = str(len(words.split()) - 1)
    result = CliRunner().invoke(cli, [], prog_name="tempo", env=env)
    assert result.exit_code == 0 and result.output == f"plain,{expected}\n"
