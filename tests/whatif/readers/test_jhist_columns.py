"""The jhist reader's columnar fast path agrees with the precise path, field by field."""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.whatif.readers.agree import assert_same_trace
from whatif import TraceFormatError
from whatif.readers import read_trace
from whatif.readers.jhist import JhistReader
from whatif.readers.jhist_columns import read_jhist_tables

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "jhist"
NEW, OLD = DATA / "teragen-succeeded.jhist", DATA / "sleep-failed.jhist"
PACKAGE = "org.apache.hadoop.mapreduce.jobhistory."


@pytest.fixture(autouse=True)
def _every_file_fast(monkeypatch):
    """Small files normally go to the precise reader; here every file takes the fast path."""
    monkeypatch.setattr("whatif.readers.jhist_columns.SMALL_FILE_BYTES", 0)


def _same(path: Path, **options) -> None:
    reader = JhistReader(**options)
    assert read_jhist_tables(reader, reader.files(path)) is not None
    assert_same_trace(reader.read(path), reader.read_precise(path))


@pytest.mark.parametrize("path", [NEW, OLD, DATA])
def test_bundled_jhist_files_agree(path):
    _same(path)
    _same(path, map_memory_mb=2048.0, am_memory_mb=512.0, vcores=2.0)


class _Writer:
    """Events written as the schema of `sample` says: unions wrapped, plain fields as is."""

    def __init__(self, sample: Path) -> None:
        lines = sample.read_text().splitlines()
        schema = json.loads(lines[1])
        event = next(f for f in schema["fields"] if f["name"] == "event")["type"]
        if not any(isinstance(r, dict) and r["name"] == "NormalizedResource" for r in event):
            # Newer Hadoop's record, so that its events can be written with either schema.
            fields = [{"name": "memory", "type": "int"}, {"name": "taskType", "type": "string"}]
            event.append({"type": "record", "name": "NormalizedResource", "fields": fields})
        self.head = lines[0] + "\n" + json.dumps(schema) + "\n"
        self.unions = {
            r["name"]: {f["name"] for f in r["fields"] if isinstance(f["type"], list)}
            for r in event
            if isinstance(r, dict)
        }

    def line(self, kind: str, record: str, **fields) -> str:
        body = {
            k: ({"string": v} if k in self.unions.get(record, ()) and v is not None else v)
            for k, v in fields.items()
        }
        return json.dumps({"type": kind, "event": {PACKAGE + record: body}}) + "\n\n"


def _job_file(writer: _Writer, rng, k: int, n_tasks: int) -> str:
    """One job: every optional field present or absent, all task types, retries, kills."""
    job = f"job_17_{k:04d}"
    submit = 10**12 + k * 10**6
    out = [writer.head]
    app = f"appattempt_17_{k:04d}_00000"
    for a in range(1 + k % 2):
        out.append(
            writer.line(
                "AM_STARTED",
                "AMStarted",
                applicationAttemptId=f"{app}{a + 1}",
                startTime=submit + 5 + a * 1000,
                containerId=f"container_{k}_{a}",
                nodeManagerHost="nm1",
            )
        )
    submitted = {"jobid": job, "submitTime": submit}
    if k % 3:
        submitted.update(jobName=f"name{k}", userName=f"u{k % 3}", jobQueueName="q" + str(k % 4))
    out.append(writer.line("JOB_SUBMITTED", "JobSubmitted", **submitted))
    if k % 4 == 1 and "JobQueueChange" in writer.unions:
        out.append(writer.line("JOB_QUEUE_CHANGED", "JobQueueChange", jobid=job, jobQueueName="x"))
    if k % 5 == 2:
        out.append(
            writer.line("NORMALIZED_RESOURCE", "NormalizedResource", taskType="MAP", memory=2048)
        )
    out.append(writer.line("JOB_INITED", "JobInited", jobid=job, launchTime=submit + 20))
    events = []
    for t in range(n_tasks):
        task_type = ["MAP", "MAP", "REDUCE", "JOB_SETUP", "JOB_CLEANUP", "TASK_CLEANUP"][t % 6]
        letter = {"MAP": "m", "REDUCE": "r", "JOB_SETUP": "s"}.get(task_type, "c")
        task = f"task_17_{k:04d}_{letter}_{t:06d}"
        begin = submit + 100 + int(rng.integers(0, 10**5))
        if t % 9:
            events.append(
                writer.line(
                    "TASK_STARTED", "TaskStarted", taskid=task, taskType=task_type, startTime=begin
                )
            )
        prefix = {"MAP": "MAP", "REDUCE": "REDUCE", "JOB_SETUP": "SETUP"}.get(task_type, "CLEANUP")
        end_record = {"MAP": "MapAttemptFinished", "REDUCE": "ReduceAttemptFinished"}.get(
            task_type, "TaskAttemptFinished"
        )
        tries = 1 if t % 4 else int(rng.integers(1, 4))
        last = ""
        for a in range(tries):
            attempt = f"attempt_17_{k:04d}_{letter}_{t:06d}_{a}"
            start = begin + 10 + a * 500
            finish = start + int(rng.integers(1, 400))
            common = {"taskid": task, "taskType": task_type, "attemptId": attempt}
            if (t + a) % 13:
                extra = {"trackerName": f"host{(t + a) % 5}"} if (t + a) % 3 else {}
                events.append(
                    writer.line(
                        f"{prefix}_ATTEMPT_STARTED",
                        "TaskAttemptStarted",
                        startTime=start,
                        **common,
                        **extra,
                    )
                )
            outcome = "ok" if a == tries - 1 else ["failed", "killed"][a % 2]
            if t % 17 == 5 and a == tries - 1:
                continue  # still running
            host = {"hostname": f"h{t % 7}"} if (t + a) % 4 else {}
            if outcome == "ok":
                more = {"taskStatus": "SUCCEEDED"} if t % 2 else {}
                if end_record == "ReduceAttemptFinished":
                    more.update(
                        shuffleFinishTime=start + 1 if t % 3 else -1, sortFinishTime=start + 2
                    )
                events.append(
                    writer.line(
                        f"{prefix}_ATTEMPT_FINISHED",
                        end_record,
                        finishTime=finish,
                        **common,
                        **host,
                        **more,
                    )
                )
                last = attempt
            else:
                kind = f"{prefix}_ATTEMPT_{outcome.upper()}"
                error = (
                    {"error": "Container preempted by scheduler" if t % 2 else "boom"}
                    if t % 5
                    else {}
                )
                status = {"status": outcome.upper()} if t % 3 else {}
                events.append(
                    writer.line(
                        kind,
                        "TaskAttemptUnsuccessfulCompletion",
                        finishTime=finish,
                        **common,
                        **host,
                        **error,
                        **status,
                    )
                )
        if t % 17 == 5:
            continue
        # the task's end: failed, or finished naming its successful attempt (if any)
        failed = t % 11 == 3
        done = {"successfulAttemptId": last} if t % 2 and last and not failed else {}
        events.append(
            writer.line(
                "TASK_FAILED" if failed else "TASK_FINISHED",
                "TaskFailed" if failed else "TaskFinished",
                taskid=task,
                taskType=task_type,
                finishTime=begin + 5000,
                status="FAILED" if failed else "SUCCEEDED",
                **done,
            )
        )
    out += events
    if k % 3 == 0:
        out.append(
            writer.line(
                "JOB_FAILED",
                "JobUnsuccessfulCompletion",
                jobid=job,
                finishTime=submit + 10**6,
                jobStatus="FAILED",
            )
        )
    else:
        out.append(writer.line("JOB_FINISHED", "JobFinished", jobid=job, finishTime=submit + 10**6))
    return "".join(out)


def _generated(directory: Path, n_tasks: int, seed: int = 11) -> None:
    rng = np.random.default_rng(seed)
    directory.mkdir()
    writers = [_Writer(NEW), _Writer(OLD)]
    written, k = 0, 0
    while written < n_tasks:
        k += 1
        size = int(rng.integers(1, 3000))
        (directory / f"{k:04d}.jhist").write_text(_job_file(writers[k % 2], rng, k, size))
        written += size


def test_generated_100k_task_directory_agrees(tmp_path):
    """Both schema generations, retries, kills, preemptions, running tasks, unstarted attempts."""
    _generated(tmp_path / "history", 100_000)
    _same(tmp_path / "history")


def test_reader_options_agree_on_a_generated_directory(tmp_path):
    """The size options take the same path in both readers (10k tasks is enough for that)."""
    _generated(tmp_path / "history", 10_000, seed=5)
    _same(tmp_path / "history", reduce_memory_mb=3000.0, vcores=4.0)


def test_small_and_large_files_mixed_agree(tmp_path, monkeypatch):
    """Runs of small files read precisely between large ones read fast: same tables, in order."""
    _generated(tmp_path / "history", 20_000, seed=4)
    sizes = sorted(f.stat().st_size for f in (tmp_path / "history").iterdir())
    monkeypatch.setattr("whatif.readers.jhist_columns.SMALL_FILE_BYTES", sizes[len(sizes) // 2])
    assert sizes[0] < sizes[len(sizes) // 2] <= sizes[-1]
    _same(tmp_path / "history")


@pytest.mark.parametrize(
    "change",
    [
        ('"startTime":1416424779381', '"startTime":"1416424779381"'),
        (
            '"taskType":"MAP","startTime":1416424779381',
            '"taskType":"SHUFFLE","startTime":1416424779381',
        ),
        ('{"type":"TASK_STARTED"', '{"type":"TASK_UPDATED"'),
        (
            '"successfulAttemptId":{"string":"attempt_1416424547277_0002_m_000000_0"}',
            '"successfulAttemptId":"attempt_1416424547277_0002_m_000000_0"',
        ),
        ('{"name":"taskid","type":"string"}', '{"name":"taskid"}'),
        (  # a record no event carries: Arrow reads the file, the columns do not join
            '"TaskFailed","fields":[{"name":"taskid","type":"string"},'
            '{"name":"taskType","type":"string"},{"name":"finishTime","type":"long"}',
            '"TaskFailed","fields":[{"name":"taskid","type":"string"},'
            '{"name":"taskType","type":"string"},{"name":"finishTime","type":"string"}',
        ),
        ('{"name":"taskid","type":"string"}', '{"name":["taskid"],"type":"string"}'),
        ("attempt_1416424547277_0002_m_000001_0", "attempt_\udcff416424547277_0002_m_000001_0"),
    ],
)
def test_unusual_input_goes_to_the_precise_path(tmp_path, change):
    """A time as a string, an unknown task type, a type/record mismatch, a plain union;
    a schema field without a type, of another type, or named by a list; bytes not UTF-8."""
    path = tmp_path / "j.jhist"
    text = NEW.read_text()
    assert change[0] in text
    path.write_bytes(text.replace(change[0], change[1], 1).encode("utf-8", "surrogateescape"))
    reader = JhistReader()
    assert read_jhist_tables(reader, [path]) is None
    try:
        precise = reader.read_precise(path)
    except TraceFormatError as error:
        with pytest.raises(TraceFormatError) as again:
            read_trace(path, format="jhist")
        assert str(again.value) == str(error) and "j.jhist:" in str(error)
    else:
        pd.testing.assert_frame_equal(read_trace(path).workload.tasks, precise.workload.tasks)


def test_bad_input_still_names_the_line(tmp_path):
    path = tmp_path / "j.jhist"
    lines = NEW.read_text().splitlines(keepends=True)
    at = next(k for k, line in enumerate(lines) if line.startswith('{"type":"TASK_STARTED"'))
    lines[at] = lines[at].replace('"taskType":"MAP"', '"taskType":"SHUFFLE"')
    path.write_text("".join(lines))
    where = rf"j\.jhist:{at + 1}:"
    with pytest.raises(TraceFormatError, match=where + " TASK_STARTED event field 'taskType'"):
        read_trace(path, format="jhist")
    lines[at] = lines[at].replace('"taskType":"SHUFFLE"', '"taskType":"MAP"')
    lines[at] = re.sub(r'"startTime":\d+', '"startTime":-1', lines[at])
    path.write_text("".join(lines))
    with pytest.raises(
        TraceFormatError,
        match=where + " TASK_STARTED event field 'startTime': expected a time in ms >= 0",
    ):
        read_trace(path, format="jhist")
    lines[at] = '{"type": "TASK_STARTED", \n'
    path.write_text("".join(lines))
    with pytest.raises(TraceFormatError, match=where + r"\d+: invalid JSON"):
        read_trace(path, format="jhist")


def test_tasks_without_attempt_events_agree(tmp_path):
    """Task events but no attempt events (a cut history): the tasks' own times, as precisely."""
    path = tmp_path / "j.jhist"
    lines = NEW.read_text().splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith('{"type":"MAP_ATTEMPT')))
    _same(path)


def test_split_locations_are_kept_by_both_paths(tmp_path):
    """TASK_STARTED ``splitLocations`` becomes a map's ``split_locations``, fast == precise."""
    path = tmp_path / "j.jhist"
    text = NEW.read_text().replace('"splitLocations":""', '"splitLocations":"h1,h2"', 1)
    path.write_text(text)
    _same(path)
    tasks = JhistReader().read(path).workload.tasks
    assert (tasks["split_locations"] == "h1,h2").sum() == 1
