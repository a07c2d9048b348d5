"""`tempo history`: wiring, output shapes and exit codes."""

from __future__ import annotations

import json

import jsonschema
from click.testing import CliRunner

from tempo.cli import cli
from tempo.cli.schemas import HISTORY_SCHEMA
from tempo.journal import SQLiteJournal


def _journal(path):
    with SQLiteJournal(path) as journal:
        it = journal.begin_iteration(config_path="a.xml", config_sha256="ab" * 32)
        journal.finish_iteration(it, decision="accepted", reason="dominates the previous QS")
        it = journal.begin_iteration(config_path="a.xml", config_sha256="ab" * 32)
        journal.finish_iteration(it, decision="rolled_back", reason="QS got worse")
        journal.begin_iteration(config_path="a.xml", config_sha256="ab" * 32)


def test_history_json_lists_decisions_and_reasons(tmp_path):
    """--json prints a tempo.history/1 document: the journal and its iterations with
    decision and reason, valid against the documented schema."""
    path = tmp_path / "j.sqlite"
    _journal(path)
    result = CliRunner().invoke(cli, ["history", "--journal", str(path), "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    jsonschema.validate(document, HISTORY_SCHEMA)
    assert document["journal"] == str(path)
    rows = document["iterations"]
    assert [(r["decision"], r["reason"]) for r in rows] == [
        ("accepted", "dominates the previous QS"),
        ("rolled_back", "QS got worse"),
        (None, ""),
    ]


def test_history_table(tmp_path):
    """Without --json, a table shows each iteration's decision and reason."""
    path = tmp_path / "j.sqlite"
    _journal(path)
    result = CliRunner().invoke(cli, ["history", "--journal", str(path)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "rolled_back" in result.output and "QS got worse" in result.output  # kept whole
    assert "(unfinished)" in result.output and "abababababab" in result.output


def test_history_uses_tempo_journal_env(tmp_path):
    """$TEMPO_JOURNAL is the default journal."""
    path = tmp_path / "env.sqlite"
    _journal(path)
    result = CliRunner().invoke(cli, ["history", "--json"], env={"TEMPO_JOURNAL": str(path)})
    assert result.exit_code == 0 and len(json.loads(result.output)["iterations"]) == 3


def test_history_without_journal_fails_cleanly(tmp_path):
    """A missing journal is one line and exit status 2, and creates nothing."""
    path = tmp_path / "missing.sqlite"
    result = CliRunner().invoke(cli, ["history", "--journal", str(path)])
    assert result.exit_code == 2 and "no journal here" in result.output
    assert not path.exists()


def test_history_of_empty_journal(tmp_path):
    """An empty journal says so (and --json gives no iterations)."""
    path = tmp_path / "j.sqlite"
    SQLiteJournal(path).close()
    assert "no iterations" in CliRunner().invoke(cli, ["history", "--journal", str(path)]).output
    result = CliRunner().invoke(cli, ["history", "--journal", str(path), "--json"])
    assert json.loads(result.output)["iterations"] == []


def test_history_table_in_a_pipe_wraps_the_reason_between_words(tmp_path):
    """Piped (100 columns), a long reason wraps between words: no word is cut in two
    (it printed 'minSharePreemptionTim' and 'eout' on two lines), nothing is lost."""
    path = tmp_path / "j.sqlite"
    reason = (
        "root.engineer:QS_AJR got worse: observed 912.4s against 865.1s predicted (the "
        "previous window's), more than the 5% tolerance; minSharePreemptionTimeout of "
        "root.prod restored"
    )
    with SQLiteJournal(path) as journal:
        it = journal.begin_iteration(config_path="a.xml", config_sha256="ab" * 32)
        journal.finish_iteration(it, decision="rolled_back", reason=reason)
    result = CliRunner().invoke(cli, ["history", "--journal", str(path)], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    printed = result.stdout.split()
    assert [w for w in reason.split() if w not in printed] == []
    assert "rolled_back" in printed and "abababababab" in printed


def test_history_shows_the_cluster_each_iteration_predicted_on(tmp_path):
    """Iterations that journalled their cluster show it: nodes and totals in the table, the
    SPEC in --json (valid against the schema); a journal without any shows no such column."""
    path = tmp_path / "j.sqlite"
    with SQLiteJournal(path) as journal:
        for spec in ("nodes=4,memory-mb=1024,vcores=1", "nodes=3,memory-mb=1024,vcores=1"):
            it = journal.begin_iteration(config_path="a.xml", config_sha256="ab" * 32, cluster=spec)
            journal.finish_iteration(it, decision="rejected", reason="no gain")
    result = CliRunner().invoke(cli, ["history", "--journal", str(path)], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert "cluster (--json: SPEC)" in result.output
    assert "4 nodes, 4,096 MB, 4 vcores" in result.output
    assert "3 nodes, 3,072 MB, 3 vcores" in result.output
    document = json.loads(
        CliRunner().invoke(cli, ["history", "--journal", str(path), "--json"]).output
    )
    jsonschema.validate(document, HISTORY_SCHEMA)
    assert [r["cluster"] for r in document["iterations"]] == [
        "nodes=4,memory-mb=1024,vcores=1",
        "nodes=3,memory-mb=1024,vcores=1",
    ]
    _journal(tmp_path / "none.sqlite")
    plain = CliRunner().invoke(cli, ["history", "--journal", str(tmp_path / "none.sqlite")])
    assert "cluster" not in plain.output


def test_a_cluster_cell_is_short_and_keeps_a_spec_it_cannot_read():
    """Nodes and totals for a SPEC, the totals alone for one pool, slots on a slot
    cluster, the text as it is when it does not parse, '-' when none was recorded."""
    from whatif.cluster import spec_totals

    assert spec_totals("nodes=2,memory-mb=8192,vcores=8") == "2 nodes, 16,384 MB, 16 vcores"
    assert spec_totals("memory-mb=4096,vcores=4") == "4,096 MB, 4 vcores"
    assert (
        spec_totals("nodes=2,map-slots=4,reduce-slots=2") == "2 nodes, 4 map slots, 2 reduce slots"
    )
    assert spec_totals("nodes=oops") == "nodes=oops"
    assert spec_totals(None) == "-"
