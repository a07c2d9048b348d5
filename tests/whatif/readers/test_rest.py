"""REST response parsers (pure) and the REST dump reader, on the Hadoop doc examples."""

import json
from pathlib import Path

import pytest

from whatif import TraceFormatError
from whatif.readers import detect_format, read_trace
from whatif.readers.lenient_json import loads_lenient
from whatif.readers.rest import jhs_attempts, jhs_jobs, jhs_tasks, response_kind, rm_apps

REST = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "rest"


def _load(name):
    return loads_lenient((REST / name).read_text(), source=name)


def test_rm_apps_parser():
    """rm-apps.json gives 2 apps; the MapReduce one is keyed by its job id."""
    apps = rm_apps(_load("rm-apps.json"))
    assert apps["job_id"].tolist() == ["job_1326815542473_0001", "application_1326815542473_0002"]
    assert apps["queue"].tolist() == ["root.default", "root.default"]
    assert apps["state"].tolist() == ["SUCCEEDED", "SUCCEEDED"]
    assert apps["submit_s"].iloc[0] == pytest.approx(1326815573.334)
    assert apps["finish_s"].iloc[0] == pytest.approx(1326815598.530)
    assert apps["memory_mb_s"].iloc[0] == 151730


def test_jhs_parsers():
    """JobHistory jobs, tasks and attempts parse with ids, stages and times."""
    jobs = jhs_jobs(_load("jhs-jobs.json"))
    assert jobs["job_id"].tolist() == ["job_1326381300833_1_1", "job_1326381300833_2_2"]
    assert jobs["submit_s"].tolist() == pytest.approx([1326381344.449, 1326381446.5])
    tasks = jhs_tasks(_load("jhs-tasks.json"))
    assert tasks["stage"].tolist() == ["map", "reduce"]
    assert set(tasks["job_id"]) == {"job_1326381300833_2_2"}
    assert tasks["elapsed_s"].tolist() == pytest.approx([6.777, 135.559])
    attempts = jhs_attempts(_load("jhs-task-attempts.json"))
    assert attempts["task_id"].tolist() == ["task_1326381300833_2_2_m_0"]
    assert attempts["node"].tolist() == ["host.domain.com"]
    assert (attempts["finish_s"] - attempts["start_s"]).tolist() == pytest.approx([2.638])


def test_single_object_and_empty_responses():
    """A single-record response and the RM's "apps": null both parse."""
    one = {"job": {"id": "job_1_1", "submitTime": 1000, "queue": "etl"}}
    assert jhs_jobs(one)["queue"].tolist() == ["root.etl"]
    assert rm_apps({"apps": None}).empty
    assert response_kind({"clusterMetrics": {}}) is None


@pytest.mark.parametrize(
    ("payload", "match"),
    [
        (
            {"jobs": {"job": [{"id": "job_1_1"}]}},
            r"src: jobs\.job\[0\]: missing field 'submitTime'",
        ),
        (
            {"jobs": {"job": [{"id": "job_1_1", "submitTime": "x"}]}},
            r"jobs\.job\[0\]: field 'submitTime': expected a number, got 'x'",
        ),
        (
            {"tasks": {"task": [{"id": "nope", "type": "MAP"}]}},
            r"tasks\.task\[0\]: field 'id': expected a task id",
        ),
        (
            {"tasks": {"task": [{"id": "task_1_1_m_0", "type": "SHUFFLE"}]}},
            r"field 'type': expected MAP or REDUCE",
        ),
        ({"clusterMetrics": {}}, r"src: expected a REST jobs response"),
    ],
)
def test_parsers_reject_bad_records(payload, match):
    """Missing fields, wrong types and wrong response kinds name the source and record."""
    with pytest.raises(TraceFormatError, match=match):
        jhs_tasks(payload, source="src") if "tasks" in payload else jhs_jobs(payload, source="src")


def test_each_dump_file_and_the_directory_read_as_traces():
    """Each apps/jobs/tasks/attempts dump reads alone; the directory joins them."""
    counts = {
        "rm-apps.json": (2, 10, 0),  # their metered containers: 6 + 4
        "jhs-jobs.json": (2, 0, 0),
        "jhs-tasks.json": (1, 2, 0),
        "jhs-task-attempts.json": (1, 1, 1),
    }
    for name, (jobs, tasks, attempts) in counts.items():
        trace = read_trace(REST / name)
        assert detect_format(REST / name) == "rest"
        assert (trace.workload.n_jobs, trace.workload.n_tasks, trace.observed.n_attempts) == (
            jobs,
            tasks,
            attempts,
        ), name
    trace = read_trace(REST)
    assert (trace.workload.n_jobs, trace.workload.n_tasks, trace.observed.n_attempts) == (4, 12, 1)
    tasks = trace.workload.tasks.set_index("task_id")
    assert tasks.loc["task_1326381300833_2_2_m_0", "duration_s"] == pytest.approx(2.638)
    assert tasks.loc["task_1326381300833_2_2_r_0", "duration_s"] == pytest.approx(135.559)
    job = trace.workload.jobs.set_index("job_id").loc["job_1326381300833_2_2"]
    assert job["name"] == "Sleep job"


def test_non_trace_rest_responses_are_rejected():
    """Metrics and scheduler responses are not traces."""
    for name in ("rm-metrics.json", "rm-scheduler-fair.json", "rm-scheduler-capacity.json"):
        with pytest.raises(TraceFormatError, match="not a trace"):
            read_trace(REST / name)
    with pytest.raises(TraceFormatError, match=r"rm-metrics\.json: expected a REST response"):
        read_trace(REST / "rm-metrics.json", format="rest")


def test_attempt_dump_with_preemption(tmp_path):
    """A killed attempt whose diagnostics mention preemption is marked preempted."""
    payload = {
        "taskAttempts": {
            "taskAttempt": [
                {
                    "id": "attempt_1_1_r_0_0",
                    "type": "REDUCE",
                    "state": "KILLED",
                    "startTime": 1000,
                    "finishTime": 2000,
                    "diagnostics": "Container preempted by scheduler",
                },
                {
                    "id": "attempt_1_1_r_0_1",
                    "type": "REDUCE",
                    "state": "SUCCEEDED",
                    "startTime": 3000,
                    "finishTime": 9000,
                    "shuffleFinishTime": 5000,
                    "mergeFinishTime": 6000,
                },
            ]
        }
    }
    path = tmp_path / "a.json"
    path.write_text(json.dumps(payload))
    trace = read_trace(path)
    assert trace.observed.attempts["preempted"].tolist() == [True, False]
    task = trace.workload.tasks.iloc[0]
    assert (task["duration_s"], task["shuffle_finish_s"], task["sort_finish_s"]) == (6.0, 5.0, 6.0)


EPOCH_MS = 1_700_000_000_000


def _app(app_id, *, started, finished, memory_s, launched=None, state="FINISHED"):
    app = {
        "id": app_id,
        "applicationType": "SPARK",
        "queue": "etl",
        "user": "u",
        "state": state,
        "finalStatus": "SUCCEEDED" if finished else "UNDEFINED",
        "startedTime": EPOCH_MS + started,
        "finishedTime": EPOCH_MS + finished if finished else 0,  # 0: still running
    }
    if launched is not None:
        app["launchTime"] = EPOCH_MS + launched
    if memory_s is not None:
        app["memorySeconds"] = memory_s
    return app


def test_apps_without_tasks_are_replayed_as_their_metered_containers(tmp_path):
    """A finished app no task response covers (Spark) holds what the RM metered: containers
    of the map size for its run time (from launch when known), as many as memorySeconds
    pays for; a running app or one without memorySeconds is left without tasks, and the
    notes say so."""
    apps = [
        # 4 x 2048 MB for 100 s from its launch at 10 s (+ a little: rounds to 4)
        _app("application_9_0001", started=0, launched=10_000, finished=110_000, memory_s=830_000),
        # a tiny app still holds one container
        _app("application_9_0002", started=0, finished=5_000, memory_s=10),
        _app("application_9_0003", started=0, finished=None, memory_s=5_000, state="RUNNING"),
        _app("application_9_0004", started=0, finished=9_000, memory_s=None),
    ]
    path = tmp_path / "apps.json"
    path.write_text(json.dumps({"apps": {"app": apps}}))
    trace = read_trace(path, map_memory_mb=2048)
    tasks = trace.workload.tasks
    assert tasks.groupby("job_id")["task_id"].size().to_dict() == {
        "application_9_0001": 4,
        "application_9_0002": 1,
    }
    first = tasks[tasks["job_id"] == "application_9_0001"]
    assert first["task_id"].tolist() == [f"application_9_0001_container_{i}" for i in range(4)]
    assert first["duration_s"].tolist() == [100.0] * 4
    assert first["memory_mb"].tolist() == [2048.0] * 4
    assert tasks.loc[tasks["job_id"] == "application_9_0002", "duration_s"].tolist() == [5.0]
    notes = " | ".join(trace.notes)
    assert "2 app(s) with no task records" in notes and "(5 container(s) in all)" in notes
    assert "2 job(s) with neither task records nor a metered app" in notes


def test_a_corrupt_memory_seconds_is_capped_not_allocated(tmp_path):
    """memorySeconds worth 10^12 containers is replayed as MAX_METERED_CONTAINERS, and said."""
    from whatif.readers.rest_dump import MAX_METERED_CONTAINERS

    path = tmp_path / "apps.json"
    apps = [_app("application_9_0001", started=0, finished=1_000, memory_s=1024 * 10**12)]
    path.write_text(json.dumps({"apps": {"app": apps}}))
    trace = read_trace(path)
    assert trace.workload.n_tasks == MAX_METERED_CONTAINERS
    assert any("metered more than 100,000 containers' worth" in n for n in trace.notes)
