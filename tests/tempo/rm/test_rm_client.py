"""RMClient against a real local HTTP server serving the verbatim Hadoop responses."""

from __future__ import annotations

import json

import pytest
from fake_rm import REST, Reply, rest_fixture

from tempo import RMError
from tempo.rm import JobHistoryClient, RMClient
from whatif import Resources

METRICS = "/ws/v1/cluster/metrics"
SCHEDULER = "/ws/v1/cluster/scheduler"


def test_cluster_metrics(rm_server, make_transport):
    """cluster_metrics() reads the verbatim metrics response."""
    rm_server.script(METRICS, Reply(body=rest_fixture("rm-metrics.json")))
    metrics = RMClient(make_transport(rm_server.url)).cluster_metrics()
    assert (metrics.total_mb, metrics.total_vcores, metrics.active_nodes) == (17408, 8, 1)


def test_capacity_scheduler_response_is_refused(rm_server, make_transport):
    """scheduler() on a Capacity Scheduler RM is one RMError naming the URL and the need."""
    rm_server.script(SCHEDULER, Reply(body=rest_fixture("rm-scheduler-capacity.json")))
    with pytest.raises(
        RMError,
        match=r"^http://127\.0\.0\.1:\d+/ws/v1/cluster/scheduler: .*needs the Fair Scheduler",
    ):
        RMClient(make_transport(rm_server.url)).scheduler()


def test_wrong_typed_json_names_url_and_field(rm_server, make_transport):
    """A metrics body with a string where a number belongs names the URL and the field."""
    rm_server.script(METRICS, Reply(body='{"clusterMetrics": {"totalMB": "x"}}'))
    with pytest.raises(RMError, match=r"/ws/v1/cluster/metrics: clusterMetrics\.totalMB: expected"):
        RMClient(make_transport(rm_server.url)).cluster_metrics()


APPS = "/ws/v1/cluster/apps"
JOBS = "/ws/v1/history/mapreduce/jobs"
SLEEP_JOB = "job_1326381300833_2_2"
WORD_COUNT_JOB = "job_1326381300833_1_1"


@pytest.fixture
def cluster(rm_server, make_transport):
    """One local server playing RM and JobHistory Server with the verbatim responses."""
    rm_server.script(APPS, Reply(body=rest_fixture("rm-apps.json")))
    rm_server.script(JOBS, Reply(body=rest_fixture("jhs-jobs.json")))
    rm_server.script(f"{JOBS}/{SLEEP_JOB}/tasks", Reply(body=rest_fixture("jhs-tasks.json")))
    rm_server.script(f"{JOBS}/{WORD_COUNT_JOB}/tasks", Reply(body='{"tasks": null}'))
    rm_server.script(
        f"{JOBS}/{SLEEP_JOB}/tasks/task_1326381300833_2_2_m_0/attempts",
        Reply(body=rest_fixture("jhs-task-attempts.json")),
    )
    rm_server.script(
        f"{JOBS}/{SLEEP_JOB}/tasks/task_1326381300833_2_2_r_0/attempts",
        Reply(body='{"taskAttempts": {"taskAttempt": []}}'),
    )
    transport = make_transport(rm_server.url)
    return RMClient(transport, history=JobHistoryClient(transport))


def test_fair_scheduler_verbatim_response(rm_server, make_transport, caplog):
    """The doc's Fair Scheduler response (with its trailing-comma typo repaired and logged) parses."""
    rm_server.script(SCHEDULER, Reply(body=rest_fixture("rm-scheduler-fair.json")))
    state = RMClient(make_transport(rm_server.url)).scheduler()
    assert list(state.queues) == [
        "root",
        "root.default",
        "root.sample_queue",
        "root.sample_queue.sample_sub_queue",
    ]
    sample = state.queue("root.sample_queue")
    assert (sample.max_apps, sample.policy, sample.min_resources) == (
        50,
        "fair",
        Resources(10000, 0),
    )
    leaf = state.queue("root.sample_queue.sample_sub_queue")
    assert leaf.fair_resources == Resources(10000, 0) and leaf.num_pending_apps == 0
    assert state.cluster_resources == Resources(8192, 8)
    assert "removed a trailing comma" in caplog.text


def test_finished_apps_verbatim_and_query(cluster, rm_server):
    """finished_apps asks for finished states in the window (ms) and parses the doc's apps."""
    apps = cluster.finished_apps(1326815500.0, 1326815800.5)
    assert apps["app_id"].tolist() == [
        "application_1326815542473_0001",
        "application_1326815542473_0002",
    ]
    assert apps["queue"].tolist() == ["root.default", "root.default"]
    query = rm_server.seen[0].query
    assert query == {
        "states": ["FINISHED,FAILED,KILLED"],
        "finishedTimeBegin": ["1326815500000"],
        "finishedTimeEnd": ["1326815800500"],
    }


@pytest.mark.parametrize(
    ("queues", "count"),
    [(None, 2), (["default"], 2), (["root"], 2), (["root.default"], 2), (["etl"], 0)],
)
def test_finished_apps_queue_filter_is_client_side(cluster, rm_server, queues, count):
    """The queue filter is applied locally (a queue selects itself and below); never sent."""
    assert len(cluster.finished_apps(0, 1, queues=queues)) == count
    assert "queue" not in rm_server.seen[0].query


def test_no_finished_apps(rm_server, make_transport):
    """{"apps": null} (an RM with nothing in the window) is an empty table."""
    rm_server.script(APPS, Reply(body='{"apps": null}'))
    assert RMClient(make_transport(rm_server.url)).finished_apps(0, 1).empty


def test_wrong_typed_apps_is_an_rm_error(rm_server, make_transport):
    """ "apps": "x" is one RMError naming the URL."""
    rm_server.script(APPS, Reply(body='{"apps": "x"}'))
    with pytest.raises(
        RMError, match=r"http://127\.0\.0\.1:\d+/ws/v1/cluster/apps\?states=.*: apps"
    ):
        RMClient(make_transport(rm_server.url)).finished_apps(0, 1)


def test_history_verbatim_jobs_tasks_attempts(cluster):
    """The JobHistory doc responses parse (jobs with its missing-comma typo repaired)."""
    jobs = cluster.history.jobs(0, 2e9)
    assert jobs["job_id"].tolist() == [WORD_COUNT_JOB, SLEEP_JOB]
    tasks = cluster.history.tasks(SLEEP_JOB)
    assert tasks["stage"].tolist() == ["map", "reduce"]
    attempts = cluster.history.attempts(SLEEP_JOB, "task_1326381300833_2_2_m_0")
    assert attempts["attempt_id"].tolist() == ["attempt_1326381300833_2_2_m_0_0"]


def test_window_builds_a_trace(cluster, rm_server):
    """window() joins RM apps with JobHistory jobs, tasks and attempts into one Trace; the
    two apps the JobHistory Server lists no tasks for are their metered containers."""
    trace = cluster.window(1326381000.0, 1326816000.0)
    assert trace.format == "rm" and trace.source is None
    jobs = set(trace.workload.jobs["job_id"])
    assert {WORD_COUNT_JOB, SLEEP_JOB} <= jobs and len(jobs) == 4
    assert trace.workload.n_tasks == 2 + 10 and trace.observed.n_attempts == 1
    query = next(s.query for s in rm_server.seen if s.path == JOBS)
    assert query == {"finishedTimeBegin": ["1326381000000"], "finishedTimeEnd": ["1326816000000"]}
    map_task = trace.workload.tasks.set_index("task_id").loc["task_1326381300833_2_2_m_0"]
    assert map_task["duration_s"] == pytest.approx(2.638)


def test_window_without_attempts_skips_attempt_requests(cluster, rm_server):
    """attempts=False reads no per-task attempts (one request per job instead of per task)."""
    trace = cluster.window(0, 2e9, attempts=False)
    assert trace.observed.n_attempts == 0
    assert not any(path.endswith("/attempts") for path in rm_server.paths())


def test_window_without_attempts_measures_a_retried_task_by_its_successful_attempt(
    cluster, rm_server
):
    """A task preempted once spans both attempts and the wait between them in its
    elapsedTime (here 100 s); attempts=False still reads that task's attempts, so its
    duration is the successful attempt's 10 s, and only that task's attempts are read."""
    task = {
        "id": "task_1326381300833_2_2_m_0",
        "type": "MAP",
        "state": "SUCCEEDED",
        "startTime": 1326381400000,
        "finishTime": 1326381500000,
        "elapsedTime": 100000,
        "progress": 100,
        "successfulAttempt": "attempt_1326381300833_2_2_m_0_1",
    }
    first = {
        "id": "task_1326381300833_2_2_m_1",
        "successfulAttempt": "attempt_1326381300833_2_2_m_1_0",
    }
    first = {**task, **first, "startTime": 1326381400000, "finishTime": 1326381405000}
    first["elapsedTime"] = 5000
    rm_server.script(
        f"{JOBS}/{SLEEP_JOB}/tasks", Reply(body=json.dumps({"tasks": {"task": [task, first]}}))
    )

    def attempt(number: int, state: str, start_ms: int, finish_ms: int) -> dict:
        return {
            "id": f"attempt_1326381300833_2_2_m_0_{number}",
            "type": "MAP",
            "state": state,
            "startTime": start_ms,
            "finishTime": finish_ms,
            "elapsedTime": finish_ms - start_ms,
            "progress": 100,
            "diagnostics": "Container preempted by scheduler" if state == "KILLED" else "",
        }

    rm_server.script(
        f"{JOBS}/{SLEEP_JOB}/tasks/task_1326381300833_2_2_m_0/attempts",
        Reply(
            body=json.dumps(
                {
                    "taskAttempts": {
                        "taskAttempt": [
                            attempt(0, "KILLED", 1326381400000, 1326381430000),
                            attempt(1, "SUCCEEDED", 1326381490000, 1326381500000),
                        ]
                    }
                }
            )
        ),
    )
    trace = cluster.window(0, 2e9, attempts=False)
    durations = trace.workload.tasks.set_index("task_id")["duration_s"]
    assert durations["task_1326381300833_2_2_m_0"] == pytest.approx(10.0)
    assert durations["task_1326381300833_2_2_m_1"] == pytest.approx(5.0)
    read = [path for path in rm_server.paths() if path.endswith("/attempts")]
    assert read == [f"{JOBS}/{SLEEP_JOB}/tasks/task_1326381300833_2_2_m_0/attempts"]


def test_window_queue_filter(cluster):
    """A queue filter that matches nothing gives an empty workload."""
    assert cluster.window(0, 2e9, queues=["root.etl"]).workload.n_jobs == 0


def test_window_needs_history(rm_server, make_transport):
    """window() without a JobHistory client says what is missing."""
    with pytest.raises(RMError, match="needs the JobHistory Server"):
        RMClient(make_transport(rm_server.url)).window(0, 1)


def test_window_fails_whole_when_history_fails(cluster, rm_server):
    """A JobHistory Server failing mid-window is an RMError, not a partial trace."""
    rm_server.script(f"{JOBS}/{SLEEP_JOB}/tasks", Reply(500, "boom"))
    with pytest.raises(RMError, match=rf"{SLEEP_JOB}/tasks: HTTP 500"):
        cluster.window(0, 2e9)


ENDPOINT_OF = {
    "rm-apps.json": lambda c: c.finished_apps(0, 1),
    "rm-metrics.json": lambda c: c.cluster_metrics(),
    "rm-scheduler-fair.json": lambda c: c.scheduler(),
    "rm-scheduler-capacity.json": lambda c: c.scheduler(),
    "jhs-jobs.json": lambda c: c.history.jobs(0, 1),
    "jhs-tasks.json": lambda c: c.history.tasks(SLEEP_JOB),
    "jhs-task-attempts.json": lambda c: c.history.attempts(SLEEP_JOB, "task_x"),
}


def test_every_verbatim_response_has_a_client_call():
    """Each file in shared/data/hadoop/rest is covered by a client call here."""
    assert sorted(p.name for p in REST.glob("*.json")) == sorted(ENDPOINT_OF)


@pytest.mark.parametrize("name", sorted(ENDPOINT_OF))
def test_every_verbatim_response_is_parsed(name, rm_server, make_transport):
    """Served on every path, each verbatim response is parsed by its client call
    (the Capacity Scheduler one into the clear refusal)."""
    body = rest_fixture(name)
    for path in (APPS, METRICS, SCHEDULER, JOBS, f"{JOBS}/{SLEEP_JOB}/tasks"):
        rm_server.script(path, Reply(body=body))
    rm_server.script(f"{JOBS}/{SLEEP_JOB}/tasks/task_x/attempts", Reply(body=body))
    transport = make_transport(rm_server.url)
    client = RMClient(transport, history=JobHistoryClient(transport))
    if name == "rm-scheduler-capacity.json":
        with pytest.raises(RMError, match="needs the Fair Scheduler"):
            ENDPOINT_OF[name](client)
        return
    result = ENDPOINT_OF[name](client)
    assert (len(result) > 0) if hasattr(result, "__len__") else result is not None
