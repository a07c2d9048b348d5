"""Hadoop 1 job history reader (issue 21): the real hRaven sample, hand-written edge cases, slots."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from samples import trace_inspect

from tempo.cli import cli
from whatif import TraceFormatError
from whatif.cluster import Cluster
from whatif.readers import detect_format, read_trace
from whatif.readers.hadoop1_history import parse_record
from whatif.readers.slots import observed_slots

SAMPLE_DIR = Path(__file__).resolve().parents[3] / "traces" / "hadoop1"
SAMPLE = SAMPLE_DIR / "job_201311192236_3583_1386370578196_user1_Sleep+job"

J = "job_201401010000_0001"
T = "task_201401010000_0001"
A = "attempt_201401010000_0001"


def _history(*records: str) -> str:
    return "\n".join(['Meta VERSION="1" .', *records]) + "\n"


def _job(extra: str = "") -> str:
    return f'Job JOBID="{J}" JOBNAME="n" USER="u" SUBMIT_TIME="1000000" {extra}.'


def _attempt(kind: str, task: str, n: int, start: int, finish: int, tracker: str, status="SUCCESS"):
    record = "MapAttempt" if task[0] in "ms" else "ReduceAttempt"
    letter = "m" if record == "MapAttempt" else "r"
    ids = f'TASK_TYPE="{kind}" TASKID="{T}_{letter}_{task[1:]}" TASK_ATTEMPT_ID="{A}_{letter}_{task[1:]}_{n}"'
    return [
        f'{record} {ids} START_TIME="{start}" TRACKER_NAME="tracker_{tracker}:localhost/127\\.0\\.0\\.1:1" .',
        f'{record} {ids} TASK_STATUS="{status}" FINISH_TIME="{finish}" HOSTNAME="/rack1/{tracker}" .',
    ]


def test_real_hraven_sample_is_read_with_every_stage_tracker_and_shuffle_time():
    trace = read_trace(SAMPLE)
    job = trace.workload.jobs.iloc[0]
    assert (job["job_id"], job["queue"], job["user"], job["name"]) == (
        "job_201311192236_3583",
        "root.user1",  # no *_conf.xml: the pool named by user.name (USER), not JOB_QUEUE
        "user1",
        "Sleep job",
    )
    assert job["submit_s"] == pytest.approx(1386370578.196)
    tasks = trace.workload.tasks.set_index("task_id")
    assert tasks["stage"].tolist() == ["setup", "map", "reduce", "cleanup"]
    reduce = tasks.loc["task_201311192236_3583_r_000000"]
    assert reduce["shuffle_finish_s"] == pytest.approx(1386370592.353)
    assert reduce["sort_finish_s"] == pytest.approx(1386370592.378)
    assert reduce["duration_s"] == pytest.approx(592.528 - 585.208)
    attempts = trace.observed.attempts.set_index("attempt_id")
    assert (
        attempts.loc["attempt_201311192236_3583_r_000000_0", "node"] == "localhost/127.0.0.1:8888"
    )
    assert set(attempts["host"]) == {"localhost"} and set(attempts["state"]) == {"SUCCEEDED"}
    observed_job = trace.observed.jobs.iloc[0]
    assert observed_job["state"] == "SUCCEEDED"
    assert observed_job["finish_s"] == pytest.approx(1386370594.884)


def test_file_and_directory_are_detected():
    assert detect_format(SAMPLE) == "hadoop1"
    assert detect_format(SAMPLE_DIR) == "hadoop1"


def test_escaped_quotes_dots_and_multiline_values():
    """\\" \\. \\= \\\\ unescape; a value may span lines, even one ending in '.'."""
    kind, values = parse_record(
        'Job JOBID="j" JOBNAME="say \\"hi\\" \\. a\\=b \\\\ end" ERROR="line one.\nline two" .',
        "f:1",
    )
    assert kind == "Job"
    assert values["JOBNAME"] == 'say "hi" . a=b \\ end'
    assert values["ERROR"] == "line one.\nline two"


def test_multiline_error_and_failed_killed_attempts(tmp_path):
    path = tmp_path / "h"
    ids = f'TASK_TYPE="MAP" TASKID="{T}_m_000000" TASK_ATTEMPT_ID="{A}_m_000000_0"'
    path.write_text(
        _history(
            _job('JOB_QUEUE="etl" '),
            f'Task TASKID="{T}_m_000000" TASK_TYPE="MAP" START_TIME="1000500" .',
            f'MapAttempt {ids} START_TIME="1001000" TRACKER_NAME="tracker_h1:x" .',
            f'MapAttempt {ids} TASK_STATUS="FAILED" FINISH_TIME="1002000" ERROR="boom.\n\tat x\\.y\n" .',
            *_attempt("MAP", "m000000", 1, 1003000, 1005000, "h2", "KILLED"),
            *_attempt("MAP", "m000000", 2, 1003000, 1006000, "h1"),
        )
    )
    trace = read_trace(path)
    assert trace.workload.queues == ["root.u"]  # USER's pool; JOB_QUEUE does not place it
    attempts = trace.observed.attempts.set_index("attempt_id")
    assert attempts["state"].tolist() == ["FAILED", "KILLED", "SUCCEEDED"]
    assert attempts.loc[f"{A}_m_000000_0", "node"] == "h1:x"
    # attempt 1 is a speculative copy, killed when attempt 2 finished first: a kill, not a
    # preemption; the task replays its successful attempt
    assert not attempts["preempted"].any()
    assert trace.workload.tasks.iloc[0]["duration_s"] == pytest.approx(3.0)


def test_map_splits_are_kept_for_delay_scheduling(tmp_path):
    """A map Task's ``SPLITS`` becomes its ``split_locations``; a reduce has none."""
    path = tmp_path / "h"
    path.write_text(
        _history(
            _job(),
            f'Task TASKID="{T}_m_000000" TASK_TYPE="MAP" START_TIME="1000500" '
            'SPLITS="/rack1/h1,/rack2/h2" .',
            *_attempt("MAP", "m000000", 0, 1001000, 1003000, "h1"),
            f'Task TASKID="{T}_r_000000" TASK_TYPE="REDUCE" START_TIME="1000500" SPLITS="" .',
            *_attempt("REDUCE", "r000000", 0, 1003000, 1004000, "h2"),
        )
    )
    tasks = read_trace(path).workload.tasks
    assert tasks["split_locations"].tolist() == ["/rack1/h1,/rack2/h2", ""]


@pytest.mark.parametrize(
    "record, message",
    [
        (f'Job JOBID="{J}" JOBNAME=unquoted .', 'Job: expected KEY="value"'),
        (f'Job JOBID="{J}" JOBNAME="unterminated .', "a quoted value is never closed"),
        (f'Job JOBID="{J}" JOBNAME="a\\(b" .', "Job JOBNAME: illegal escape"),
        (f'Job JOBID="{J}" SUBMIT_TIME="soon" .', "Job SUBMIT_TIME: expected a time in ms"),
        ('Jub JOBID="x" .', "unknown record type 'Jub'"),
        (f'Task TASKID="{T}_m_000000" TASK_TYPE="SHUFFLE" .', "TASK_TYPE: expected one of MAP"),
        ('Task TASK_TYPE="MAP" .', "Task: missing TASKID"),
    ],
)
def test_bad_record_names_path_line_and_key(tmp_path, record, message):
    path = tmp_path / "bad"
    path.write_text(_history(_job(), record))
    with pytest.raises(TraceFormatError, match=message) as caught:
        read_trace(path, format="hadoop1")
    assert str(caught.value).startswith(f"{path}:3: ")


def test_first_record_must_be_meta_version_1(tmp_path):
    path = tmp_path / "old"
    path.write_text('Meta VERSION="0" .\n' + _job() + "\n")
    with pytest.raises(TraceFormatError, match=r":1: expected the first record to be Meta"):
        read_trace(path, format="hadoop1")


def test_unfinished_record_at_end_of_file(tmp_path):
    path = tmp_path / "cut"
    path.write_text(_history(_job())[:-3])
    with pytest.raises(TraceFormatError, match=r"cut:2: record does not end .*file ends first"):
        read_trace(path, format="hadoop1")


def test_directory_pool_from_the_job_conf_and_other_files_skipped(tmp_path):
    (tmp_path / f"jt_1_{J}_u_n").write_text(_history(_job('JOB_QUEUE="default" ')))
    (tmp_path / f"jt_1_{J}_conf.xml").write_text(
        "<configuration><property><name>mapred.fairscheduler.pool</name>"
        "<value>deadline</value></property></configuration>"
    )
    (tmp_path / "notes.txt").write_text("not a history file")
    assert detect_format(tmp_path) == "hadoop1"
    assert read_trace(tmp_path).workload.queues == ["root.deadline"]


def _conf(**properties: str) -> str:
    entries = "".join(
        f"<property><name>{name}</name><value>{value}</value></property>"
        for name, value in properties.items()
    )
    return f"<configuration>{entries}</configuration>"


def _history_dir(tmp_path, conf: str | None, job_extra: str = 'JOB_QUEUE="etl" '):
    (tmp_path / f"jt_1_{J}_u_n").write_text(_history(_job(job_extra)))
    if conf is not None:
        (tmp_path / f"jt_1_{J}_conf.xml").write_text(conf)
    return tmp_path


@pytest.mark.parametrize(
    ("conf", "options", "pool"),
    [
        # mapred.fairscheduler.pool wins over poolnameproperty, whichever it names
        (
            _conf(**{"mapred.fairscheduler.pool": " deadline ", "user.name": "u"}),
            {},
            "root.deadline",
        ),
        (
            _conf(**{"mapred.fairscheduler.pool": "deadline", "project": "p"}),
            {"pool_name_property": "project"},
            "root.deadline",
        ),
        # without it: the value of user.name (Hadoop 1's default poolnameproperty)
        (_conf(**{"user.name": "alice", "mapred.job.queue.name": "etl"}), {}, "root.alice"),
        # ... the history's USER where there is no conf, or the conf does not set it
        (None, {}, "root.u"),
        (_conf(**{"mapred.job.queue.name": "etl"}), {}, "root.u"),
        # a blank explicit pool is unset
        (_conf(**{"mapred.fairscheduler.pool": " ", "user.name": "alice"}), {}, "root.alice"),
        # a non-default poolnameproperty: that job property's value
        (
            _conf(**{"project": "ads", "user.name": "alice"}),
            {"pool_name_property": "project"},
            "root.ads",
        ),
        (None, {"pool_name_property": "mapred.job.queue.name"}, "root.etl"),
        # ... unset (and not one the history carries): Pool.DEFAULT_POOL_NAME
        (_conf(**{"user.name": "alice"}), {"pool_name_property": "project"}, "root.default"),
        (None, {"pool_name_property": "project"}, "root.default"),
    ],
)
def test_pool_is_chosen_as_hadoop1_pool_manager_does(tmp_path, conf, options, pool):
    """PoolManager.getPoolName: conf.get(mapred.fairscheduler.pool,
    conf.get(poolNameProperty [user.name], "default")).trim()."""
    path = _history_dir(tmp_path, conf)
    assert read_trace(path, format="hadoop1", **options).workload.queues == [pool]


def test_pool_name_property_must_name_a_property(tmp_path):
    path = _history_dir(tmp_path, None)
    with pytest.raises(TraceFormatError, match="option pool_name_property expects"):
        read_trace(path, format="hadoop1", pool_name_property=" ")


def test_predict_takes_poolnameproperty_from_the_site_file(tmp_path):
    """``--site mapred-site.xml`` with mapred.fairscheduler.poolnameproperty places the jobs."""
    from whatif.predictor.site import read_pool_name_property

    (tmp_path / "trace").mkdir()
    trace = _history_dir(tmp_path / "trace", None)
    site = tmp_path / "mapred-site.xml"
    site.write_text(_conf(**{"mapred.fairscheduler.poolnameproperty": "mapred.job.queue.name"}))
    assert read_pool_name_property(site) == "mapred.job.queue.name"
    config = tmp_path / "pools.xml"
    config.write_text('<allocations><pool name="etl"/><pool name="u"/></allocations>')
    common = ["predict", "--trace", str(trace), "--config", str(config)]
    common += ["--cluster", "map-slots=2,reduce-slots=2"]
    common += ["--hadoop-version", "1", "--json"]
    runner = CliRunner()
    plain = runner.invoke(cli, common)
    sited = runner.invoke(cli, [*common, "--site", str(site)])
    assert plain.exit_code == 0, plain.output
    assert sited.exit_code == 0, sited.output
    assert [q["queue"] for q in json.loads(plain.stdout)["queues"]] == ["root.u"]
    assert [q["queue"] for q in json.loads(sited.stdout)["queues"]] == ["root.etl"]


def test_observed_slots_hand_computed():
    """Tracker a: 2 maps overlap (setup counts as a map slot), 1 reduce; b: back-to-back maps."""
    rows = [
        # task, stage, start, finish, node
        (f"{T}_m_000003", "setup", 0.0, 5.0, "a"),
        (f"{T}_m_000000", "map", 2.0, 10.0, "a"),
        (f"{T}_r_000000", "reduce", 3.0, 20.0, "a"),
        (f"{T}_m_000001", "map", 0.0, 4.0, "b"),
        (f"{T}_m_000002", "map", 4.0, 8.0, "b"),  # starts when the other ends: no overlap
        (f"{T}_r_000001", "reduce", 1.0, math.nan, ""),  # no node: not counted
    ]
    frame = pd.DataFrame(rows, columns=["task_id", "stage", "start_s", "finish_s", "node"])
    seen = observed_slots(frame)
    assert (seen.trackers, seen.map_slots, seen.reduce_slots) == (2, 2, 1)
    assert dict(seen.per_tracker) == {"a": (2, 1), "b": (1, 0)}
    assert seen.spec == "map-slots=4,reduce-slots=2"
    assert Cluster.parse(seen.spec).slot_pools == {"map": 4, "reduce": 2}


def test_trace_inspect_shows_the_cluster_spec():
    output = trace_inspect(SAMPLE_DIR).output
    assert "4 TaskTracker(s)" in output
    assert "--cluster map-slots=4,reduce-slots=4" in output
    assert json.loads(trace_inspect(SAMPLE, "--json").output)["slots"] == {
        "trackers": 4,
        "map_slots_per_tracker": 1,
        "reduce_slots_per_tracker": 1,
        "named_by_host": False,  # four trackers on one host: splits cannot tell them apart
        "cluster": "map-slots=4,reduce-slots=4",
    }


def _located_history(path: Path) -> Path:
    """Two trackers on two racks, a map whose split is on the first (issue 21)."""
    path.write_text(
        _history(
            _job(),
            f'Task TASKID="{T}_m_000000" TASK_TYPE="MAP" START_TIME="1000500" SPLITS="/rack1/h1" .',
            *_attempt("MAP", "m000000", 0, 1001000, 1003000, "h1"),
            *_attempt("MAP", "m000001", 0, 1001000, 1002000, "h1"),
            f'Task TASKID="{T}_r_000000" TASK_TYPE="REDUCE" START_TIME="1000500" SPLITS="" .',
            *[
                r.replace("/rack1/h2", "/rack2/h2")
                for r in _attempt("REDUCE", "r000000", 0, 1003000, 1004000, "h2")
            ],
        )
    )
    return path


def test_the_derived_cluster_names_trackers_by_rack_and_host(tmp_path, caplog):
    """Trackers whose HOSTNAME is known give a hosts= spec with the same slot totals, on
    which the predictor matches the split locations (no "skipped" warning)."""
    trace = read_trace(_located_history(tmp_path / "h"))
    seen = observed_slots(trace.observed.attempts)
    assert seen.hosts == (("/rack1", "h1"), ("/rack2", "h2"))
    assert seen.spec == "hosts=/rack1/h1;/rack2/h2,map-slots=4,reduce-slots=2"
    cluster = Cluster.parse(seen.spec)
    assert [(n.rack, n.name) for n in cluster.nodes] == [("/rack1", "h1"), ("/rack2", "h2")]
    assert cluster.slot_pools == {"map": 4, "reduce": 2}
    config = tmp_path / "pools.xml"
    config.write_text("<allocations/>")
    with caplog.at_level(logging.WARNING, logger="whatif.predictor.locality"):
        args = ["predict", "--trace", str(tmp_path / "h"), "--config", str(config),
                "--cluster", seen.spec, "--hadoop-version", "1", "--json"]  # fmt: skip
        result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "delay scheduling is skipped" not in caplog.text + result.output
    counts = [*args[:6], "map-slots=4,reduce-slots=2", *args[7:]]
    with caplog.at_level(logging.WARNING, logger="whatif.predictor.locality"):
        output = CliRunner().invoke(cli, counts).output
    assert "delay scheduling is skipped" in caplog.text + output  # the control
    inspected = trace_inspect(tmp_path / "h", "--json")
    assert json.loads(inspected.stdout)["slots"]["named_by_host"] is True
    assert json.loads(inspected.stdout)["slots"]["cluster"] == seen.spec


def test_trackers_without_a_known_host_keep_the_counts_spec():
    """No host column and node names that are not /rack/host: map-slots=..., as before;
    Rumen-style /rack/host node names are hosts."""
    rows = [(f"{T}_m_000000", "map", 0.0, 5.0, "/r1/a"), (f"{T}_m_000001", "map", 0.0, 5.0, "b")]
    frame = pd.DataFrame(rows, columns=["task_id", "stage", "start_s", "finish_s", "node"])
    assert observed_slots(frame).spec == "map-slots=2,reduce-slots=2"
    frame["node"] = ["/r1/a", "/r2/b"]
    assert observed_slots(frame).spec == "hosts=/r1/a;/r2/b,map-slots=2,reduce-slots=2"


def test_qs_and_optimize_take_poolnameproperty_from_the_site_file(tmp_path):
    """``tempo qs`` and ``tempo optimize`` read the trace as ``predict`` does with ``--site``."""
    (tmp_path / "trace").mkdir()
    trace = _history_dir(tmp_path / "trace", None)
    site = tmp_path / "mapred-site.xml"
    site.write_text(_conf(**{"mapred.fairscheduler.poolnameproperty": "mapred.job.queue.name"}))
    config = tmp_path / "pools.xml"
    config.write_text('<allocations><pool name="etl"/><pool name="u"/></allocations>')
    runner = CliRunner()
    qs = runner.invoke(cli, ["qs", "--trace", str(trace), "--site", str(site), "--json"])
    assert qs.exit_code == 0, qs.output
    assert "root.etl" in qs.stdout and "root.u" not in qs.stdout
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "etl.qs").write_text("QUEUE root.etl\nOPTIMIZE QS_AJR;\n")
    optimize = [
        "optimize", "--trace", str(trace), "--config", str(config), "--templates", str(templates),
        "--cluster", "map-slots=2,reduce-slots=2", "--hadoop-version", "1", "--iterations", "1",
        "--batch-size", "2", "--site", str(site), "-o", str(tmp_path / "new.xml"),
    ]  # fmt: skip
    result = runner.invoke(cli, optimize)
    assert result.exit_code == 0, result.output  # without --site root.etl has no job: an error


def test_task_cleanup_attempts_are_not_read_as_work_or_as_the_failed_attempt():
    """Hadoop 1 runs a task-cleanup attempt after a failed or killed one, recorded as
    TASK_TYPE="CLEANUP" under the map's (or reduce's) task id and, in JobInProgress, under
    the failed attempt's own id. It is left out (the predictor runs its own): no extra
    task, the failed attempt keeps its times, the task is timed by its success; a reduce
    whose only attempt was killed keeps that attempt's 2 s, not its cleanup's."""
    cleanup_m = [
        r.replace('TASK_TYPE="MAP"', 'TASK_TYPE="CLEANUP"')
        for r in _attempt("MAP", "m000000", 0, 1004000, 1005000, "h1", "FAILED")
    ]
    cleanup_r = [
        r.replace('TASK_TYPE="REDUCE"', 'TASK_TYPE="CLEANUP"')
        for r in _attempt("REDUCE", "r000000", 1, 1012000, 1013500, "h2", "KILLED")
    ]
    text = _history(
        _job(),
        f'Task TASKID="{T}_m_000000" TASK_TYPE="MAP" START_TIME="1000500" SPLITS="" .',
        *_attempt("MAP", "m000000", 0, 1001000, 1003000, "h1", "FAILED"),
        *cleanup_m,
        *_attempt("MAP", "m000000", 1, 1005000, 1009000, "h2"),
        f'Task TASKID="{T}_r_000000" TASK_TYPE="REDUCE" START_TIME="1000500" SPLITS="" .',
        *_attempt("REDUCE", "r000000", 0, 1009000, 1011000, "h2", "KILLED"),
        *cleanup_r,
    )
    trace = _read_text(text)
    tasks = trace.workload.tasks.set_index("task_id")
    assert tasks["stage"].to_dict() == {f"{T}_m_000000": "map", f"{T}_r_000000": "reduce"}
    assert tasks["duration_s"].tolist() == [4.0, 2.0]
    attempts = trace.observed.attempts.set_index("attempt_id")
    assert attempts.index.tolist() == [f"{A}_m_000000_0", f"{A}_m_000000_1", f"{A}_r_000000_0"]
    failed = attempts.loc[f"{A}_m_000000_0"]
    assert (failed["start_s"], failed["finish_s"], failed["state"]) == (1001.0, 1003.0, "FAILED")
    assert set(attempts["stage"]) == {"map", "reduce"}
    assert any("2 task-cleanup attempt(s)" in note for note in trace.notes)


def _read_text(text: str):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "h"
        path.write_text(text)
        return read_trace(path)


def test_a_job_at_another_priority_than_normal_is_a_warning_and_a_note(tmp_path, caplog):
    """Hadoop 1's Fair Scheduler weighs and orders jobs by JOB_PRIORITY; the predictor runs
    every job at NORMAL, so a trace with another priority says so (the last Job record's
    priority counts: `hadoop job -set-priority` logs one more)."""
    high = tmp_path / "high"
    high.write_text(SAMPLE.read_text().replace('JOB_PRIORITY="NORMAL"', 'JOB_PRIORITY="HIGH"'))
    with caplog.at_level(logging.WARNING, logger="whatif.readers.hadoop1_history"):
        trace = read_trace(high)
    (note,) = [n for n in trace.notes if "priority" in n]
    assert note.startswith("1 job(s) ran at a priority other than NORMAL (JOB_PRIORITY: HIGH 1)")
    assert f"{high}: {note}" in caplog.text
    changed = tmp_path / "changed"
    changed.write_text(
        high.read_text() + 'Job JOBID="job_201311192236_3583" JOB_PRIORITY="NORMAL" .\n'
    )
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="whatif.readers.hadoop1_history"):
        assert not [n for n in read_trace(changed).notes if "priority" in n]
        assert not [n for n in read_trace(SAMPLE).notes if "priority" in n]
    assert "priority" not in caplog.text
