"""The emulated ResourceManager: real REST shapes, accelerated time, allocation-file reloads."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np
import pytest
import requests
from click.testing import CliRunner
from emulated import CLUSTER, EQUAL, INVALID, SPEED, WEIGHTED, FakeClock, at, tiny_trace, write

from tempo.cli import cli
from tempo.errors import RMError
from tempo.rm import HTTPTransport, JobHistoryClient, RMClient
from tempo.rm import emulated_rest as rest
from tempo.rm.emulator import NODES_PATH, EmulatedRM, request_refresh
from tempo.rm.workload_shift import WorkloadShift
from whatif.errors import AllocationError, ValidationError
from whatif.predictor import NoiseModel, SchedulerSettings
from whatif.readers.lenient_json import loads_lenient

REST = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "rest"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return write(tmp_path / "fair-scheduler.xml", WEIGHTED)


def verbatim(name: str) -> object:
    return loads_lenient((REST / name).read_text(), source=name)


def test_trace_time_advances_with_speed(rm: EmulatedRM, clock: FakeClock) -> None:
    """Trace time is start + speed x wall seconds, and reported epoch times follow it."""
    assert rm.trace_time_s() == 0.0
    clock.advance(2.5)
    assert rm.trace_time_s() == pytest.approx(25.0)
    assert rm.now_s() == pytest.approx(1_700_000_025.0)


def test_apps_appear_as_they_are_submitted(
    rm: EmulatedRM, client: RMClient, clock: FakeClock
) -> None:
    """Only jobs submitted by the emulated now are apps; finished ones are FINISHED/SUCCEEDED."""
    body = client.transport.get_json("/ws/v1/cluster/apps")
    assert [a["id"] for a in body["apps"]["app"]] == ["application_1700000000000_0001"]
    assert body["apps"]["app"][0]["state"] == "RUNNING"
    at(clock, 200.0)
    body = client.transport.get_json("/ws/v1/cluster/apps", {"states": "FINISHED"})
    assert len(body["apps"]["app"]) == 4
    assert {a["finalStatus"] for a in body["apps"]["app"]} == {"SUCCEEDED"}
    assert client.transport.get_json("/ws/v1/cluster/apps", {"states": "RUNNING"}) == {"apps": None}


def test_finished_time_filters(rm: EmulatedRM, client: RMClient, clock: FakeClock) -> None:
    """finishedTimeBegin/End select apps by finish time (epoch ms), as on the RM."""
    at(clock, 200.0)
    apps = client.finished_apps(rm.now_s() - 200.0, rm.epoch_offset_s + 40.0)
    finishes = apps["finish_s"].to_numpy() - rm.epoch_offset_s
    assert len(apps) >= 1 and (finishes <= 40.0).all()
    assert len(client.finished_apps(rm.now_s() - 200.0, rm.now_s())) == 4


def test_client_reads_the_cluster_from_the_rm_node_list(rm: EmulatedRM, client: RMClient) -> None:
    """``GET /ws/v1/cluster/nodes`` lists the emulated cluster RUNNING at its whole size (a
    cluster given as one pool is one node); the client reads it back as a cluster of the
    same size, which is what `tempo tune` predicts on without --cluster."""
    body = client.transport.get_json("/ws/v1/cluster/nodes")
    assert [n["state"] for n in body["nodes"]["node"]] == ["RUNNING"]
    cluster = client.cluster()
    assert [(n.name, n.memory_mb, n.vcores) for n in cluster.nodes] == [
        ("emulated-node", rm.cluster.memory_mb, rm.cluster.vcores)
    ]


def test_nodes_set_during_a_run_are_what_the_node_list_reports(config: Path) -> None:
    """`EmulatedRM.set_nodes` changes the RM's node list while it serves: a node taken away
    is listed LOST (the client leaves it out), a node added is RUNNING, and None reports
    the emulated cluster again. The replay keeps its cluster (only the list changes)."""
    spec = "nodes=3,memory-mb=1024,vcores=1"
    with EmulatedRM(tiny_trace(), config, spec, engine="reference") as rm:
        client = RMClient(HTTPTransport(rm.url))
        assert len(client.cluster().nodes) == 3
        rm.set_nodes("nodes=2,memory-mb=1024,vcores=1")
        body = client.transport.get_json("/ws/v1/cluster/nodes")
        states = {n["nodeHostName"]: n["state"] for n in body["nodes"]["node"]}
        assert states == {"node00000": "RUNNING", "node00001": "RUNNING", "node00002": "LOST"}
        assert client.cluster().spec() == "nodes=2,memory-mb=1024,vcores=1"
        rm.set_nodes("nodes=3,memory-mb=1024,vcores=1+hosts=/rack2/big,memory-mb=4096,vcores=4")
        grown = client.cluster()
        assert [(n.name, n.memory_mb) for n in grown.nodes][-1] == ("big", 4096.0)
        assert grown.memory_mb == 3 * 1024 + 4096
        rm.set_nodes(None)
        assert client.cluster().memory_mb == 3 * 1024
        assert rm.simulation.cluster == rm.cluster  # the replay never changed cluster


def test_client_reads_metrics_and_scheduler(
    rm: EmulatedRM, client: RMClient, clock: FakeClock
) -> None:
    """Cluster metrics and the Fair Scheduler tree parse, with steady memory shares from the weights."""
    at(clock, 6.0)
    metrics = client.cluster_metrics()
    assert (metrics.total_mb, metrics.total_vcores) == (4096, 4)
    assert metrics.apps_running == 2 and metrics.allocated_mb > 0
    tree = client.scheduler()
    assert tree.queue("root.prod").steady_fair_resources.memory_mb == 3072
    assert tree.queue("root.engineer").steady_fair_resources.memory_mb == 1024
    # As on Hadoop, the fair policy shares memory only: vCores shares are 0.
    assert tree.queue("root.prod").steady_fair_resources.vcores == 0
    assert tree.queue("root.prod").used_resources.memory_mb > 0
    assert tree.cluster_resources.memory_mb == 4096


def test_window_is_a_trace_with_tasks_and_attempts(
    rm: EmulatedRM, client: RMClient, clock: FakeClock
) -> None:
    """RMClient.window reads finished apps, jobs, tasks and attempts into a Trace of the replay."""
    at(clock, 200.0)
    trace = client.window(rm.now_s() - 1000.0, rm.now_s())
    assert trace.workload.n_jobs == 4 and trace.workload.n_tasks == 6
    attempts = trace.observed.attempts
    attempts = attempts[~attempts["is_am"]]
    assert len(attempts) == 6
    spans = np.sort((attempts["finish_s"] - attempts["start_s"]).to_numpy())
    np.testing.assert_allclose(spans, [5.0, 10.0, 20.0, 30.0, 40.0, 40.0])
    assert set(trace.workload.jobs["queue"]) == {"root.prod", "root.engineer"}


def test_app_attempts(rm: EmulatedRM, client: RMClient, clock: FakeClock) -> None:
    """Each app has one application attempt; an unknown app is 404."""
    at(clock, 200.0)
    body = client.transport.get_json(
        "/ws/v1/cluster/apps/application_1700000000000_0002/appattempts"
    )
    (attempt,) = body["appAttempts"]["appAttempt"]
    assert attempt["appAttemptId"] == "appattempt_1700000000000_0002_000001"
    assert attempt["startTime"] == 1_700_000_005_000
    with pytest.raises(RMError, match="404"):
        client.transport.get_json("/ws/v1/cluster/apps/application_1_9999/appattempts")


def test_responses_have_the_fields_of_the_hadoop_examples(
    rm: EmulatedRM, client: RMClient, clock: FakeClock
) -> None:
    """Every field of Hadoop's documented responses is in the emulator's (apps, metrics, scheduler, JHS)."""
    at(clock, 200.0)
    get = client.transport.get_json
    app = get("/ws/v1/cluster/apps")["apps"]["app"][0]
    documented = set().union(*verbatim("rm-apps.json")["apps"]["app"])
    # The first doc example misspells amNodeLabelExpression; the second has it right.
    assert documented - set(app) == {"amnodeLabelExpression"}
    assert set(verbatim("rm-metrics.json")["clusterMetrics"]) <= set(
        get("/ws/v1/cluster/metrics")["clusterMetrics"]
    )
    fair = verbatim("rm-scheduler-fair.json")["scheduler"]["schedulerInfo"]
    ours = get("/ws/v1/cluster/scheduler")["scheduler"]["schedulerInfo"]
    assert ours["type"] == fair["type"] == "fairScheduler"
    assert set(fair["rootQueue"]) <= set(ours["rootQueue"])
    leaf = fair["rootQueue"]["childQueues"]["queue"][0]
    assert set(leaf) <= set(ours["rootQueue"]["childQueues"]["queue"][0])
    job = get("/ws/v1/history/mapreduce/jobs")["jobs"]["job"][0]
    assert set(verbatim("jhs-jobs.json")["jobs"]["job"][0]) <= set(job)
    task = get(f"/ws/v1/history/mapreduce/jobs/{job['id']}/tasks")["tasks"]["task"][0]
    assert set(verbatim("jhs-tasks.json")["tasks"]["task"][0]) <= set(task)
    attempt = get(f"/ws/v1/history/mapreduce/jobs/{job['id']}/tasks/{task['id']}/attempts")
    expected = verbatim("jhs-task-attempts.json")["taskAttempts"]["taskAttempt"][0]
    assert set(expected) <= set(attempt["taskAttempts"]["taskAttempt"][0])


def test_history_serves_only_finished_jobs(
    rm: EmulatedRM, client: RMClient, clock: FakeClock
) -> None:
    """The JobHistory Server knows a job once it has finished."""
    at(clock, 10.0)
    assert client.transport.get_json("/ws/v1/history/mapreduce/jobs") == {"jobs": None}
    at(clock, 46.0)
    jobs = client.history.jobs(rm.now_s() - 100.0, rm.now_s())
    assert sorted(jobs["job_id"]) == [
        "job_1700000000000_0002",
        "job_1700000000000_0003",
        "job_1700000000000_0004",
    ]


def test_changed_file_is_picked_up_after_the_quiet_period(
    rm: EmulatedRM, config: Path, clock: FakeClock
) -> None:
    """A new file is seen at the 10 s poll and loaded once unchanged for 5 s more (trace time)."""
    write(config, EQUAL)
    at(clock, 12.0)
    rm.sync()
    assert [e.trigger for e in rm.reloads] == ["start"]
    at(clock, 16.0)
    rm.sync()
    event = rm.reloads[-1]
    assert (event.trigger, event.ok, event.trace_s) == ("poll", True, 15.0)
    tree = rm.snapshot()
    assert tree.steady["root.prod"].memory_mb == 2048
    assert tree.allocation.queue("root.engineer").max_running_apps == 7


def test_background_thread_reloads_without_requests(
    rm: EmulatedRM, config: Path, clock: FakeClock
) -> None:
    """The clock thread advances the replay and reloads the file with no request arriving."""
    write(config, EQUAL)
    at(clock, 30.0)
    deadline = time.monotonic() + 2.0
    while len(rm.reloads) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert rm.reloads[-1].ok and rm.reloads[-1].trace_s == 15.0
    assert rm.simulation.time_s == pytest.approx(30.0)


def test_bad_file_keeps_the_old_configuration(
    rm: EmulatedRM, config: Path, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """A file Hadoop would refuse is logged and ignored; the previous configuration stays."""
    before = rm.allocation_sha256
    write(config, INVALID)
    with caplog.at_level(logging.WARNING, logger="tempo.rm.emulator"):
        at(clock, 40.0)
        rm.sync()
    assert rm.allocation_sha256 == before
    assert not rm.reloads[-1].ok and "pro.d" in rm.reloads[-1].reason
    assert "keeping the previous configuration" in caplog.text
    assert rm.snapshot().steady["root.prod"].memory_mb == 3072


def test_nodes_endpoint_and_command_change_the_node_list(config: Path) -> None:
    """``tempo emulate-rm nodes --rm URL --cluster SPEC`` (PUT /ws/v1/emulator/nodes) sets
    the node list a separate emulator process reports; without --cluster it reports its
    cluster again. A bad SPEC is a usage error before anything is sent, and the endpoint
    itself answers 400 naming it and changes nothing; an RM not there is exit 3."""
    with EmulatedRM(
        tiny_trace(), config, "nodes=3,memory-mb=1024,vcores=1", engine="reference"
    ) as rm:
        client = RMClient(HTTPTransport(rm.url))
        two = [
            "emulate-rm",
            "nodes",
            "--rm",
            rm.url,
            "--cluster",
            "nodes=2,memory-mb=1024,vcores=1",
        ]
        result = CliRunner().invoke(cli, two)
        assert result.exit_code == 0 and "nodes: nodes=2" in result.output, result.output
        assert client.cluster().spec() == "nodes=2,memory-mb=1024,vcores=1"
        bad = CliRunner().invoke(
            cli, ["emulate-rm", "nodes", "--rm", rm.url, "--cluster", "nodes=x"]
        )
        assert bad.exit_code == 2 and "--cluster" in bad.output
        answer = requests.put(rm.url + NODES_PATH, data=b"nodes=x", timeout=10)
        assert answer.status_code == 400 and "nodes=x" in answer.text
        assert len(client.cluster().nodes) == 2
        reset = CliRunner().invoke(cli, ["emulate-rm", "nodes", "--rm", rm.url])
        assert reset.exit_code == 0 and "the emulated cluster" in reset.output
        assert len(client.cluster().nodes) == 3
    gone = CliRunner().invoke(cli, ["emulate-rm", "nodes", "--rm", rm.url])
    assert gone.exit_code == 3


def test_refresh_reloads_at_once(rm: EmulatedRM, config: Path, clock: FakeClock) -> None:
    """POST /ws/v1/emulator/refresh loads the file now; a second one finds it unchanged."""
    write(config, EQUAL)
    at(clock, 1.0)
    event = request_refresh(rm.url)
    assert event.ok and event.changed and event.trace_s == pytest.approx(1.0)
    assert rm.snapshot().steady["root.prod"].memory_mb == 2048
    assert not request_refresh(rm.url).changed


def test_refresh_of_a_bad_file_fails(rm: EmulatedRM, config: Path) -> None:
    """A refused file makes the refresh fail with the reason, like rmadmin -refreshQueues."""
    before = rm.allocation_sha256
    write(config, INVALID)
    with pytest.raises(RMError, match="refused the allocation file"):
        request_refresh(rm.url)
    assert rm.allocation_sha256 == before
    config.unlink()  # a watched file deleted: the refusal names it
    with pytest.raises(RMError, match=f"allocation file: {config}: cannot read: No such file"):
        request_refresh(rm.url)


def test_a_port_in_use_is_named(rm: EmulatedRM, config: Path) -> None:
    """A second emulator on a port in use says which and why (not '[Errno 98] ...')."""
    port = int(rm.url.rsplit(":", 1)[1])
    other = EmulatedRM(tiny_trace(), config, CLUSTER, port=port, engine="reference")
    with pytest.raises(ValidationError, match=f"port {port}: cannot listen on 127.0.0.1:{port}"):
        other.start()


def test_a_bad_file_at_start_is_an_error(tmp_path: Path) -> None:
    """Like a real RM, the emulator does not start on an allocation file Hadoop refuses."""
    with pytest.raises(AllocationError, match="pro.d"):
        EmulatedRM(tiny_trace(), write(tmp_path / "bad.xml", INVALID), CLUSTER, engine="reference")


def test_settings_must_match_the_hadoop_version(config: Path) -> None:
    """The simulation's Hadoop version and the emulated one must agree."""
    with pytest.raises(ValidationError, match="hadoop_version"):
        EmulatedRM(tiny_trace(), config, CLUSTER, hadoop_version=2, engine="reference")


def test_workload_shift_lengthens_a_queue_from_a_time(config: Path, clock: FakeClock) -> None:
    """A shift scales task durations of one queue's jobs submitted from its start time on."""
    shift = WorkloadShift.parse("from=20,queue=prod,duration=3")
    emulator = EmulatedRM(
        tiny_trace(), config, CLUSTER, clock=clock, engine="reference", shifts=[shift]
    )
    durations = emulator.workload.tasks.set_index("task_id")["duration_s"]
    assert durations["t5"] == 30.0 and durations["t1"] == 30.0 and durations["t6"] == 5.0
    with emulator:
        clock.advance(100.0)
        apps = emulator.snapshot()
        elapsed = {a["name"]: a["elapsedTime"] for a in rest.app_records(apps)}
    # j3 now holds its container until 50 s, so engineer's j4 waits (13 s unshifted).
    assert elapsed["j3"] == 30_000 and elapsed["j4"] == 28_000


def test_workload_shift_speeds_arrivals() -> None:
    """An arrival factor compresses submissions after the shift's start."""
    workload = WorkloadShift(from_s=10.0, arrival_factor=2.0).apply(tiny_trace().workload)
    assert workload.jobs.set_index("job_id")["submit_s"].to_dict() == {
        "j1": 0.0,
        "j2": 5.0,
        "j3": 15.0,
        "j4": 16.0,
    }


def test_workload_shift_parse_names_the_problem() -> None:
    """A malformed --shift says what is expected."""
    with pytest.raises(ValidationError, match="from=T"):
        WorkloadShift.parse("queue=prod")
    with pytest.raises(ValidationError, match="duration_factor"):
        WorkloadShift.parse("from=1,duration=0")
    nowhere = WorkloadShift.parse("from=1,queue=root.nosuch,duration=2")
    with pytest.raises(ValidationError, match="queue=root.nosuch: no job of the trace is in"):
        nowhere.apply(tiny_trace().workload)  # (it changed nothing, silently)


def test_cli_refresh(rm: EmulatedRM, config: Path) -> None:
    """`tempo emulate-rm refresh --rm URL` exits 0 on a reload and 1 (the answer "no", as
    docs/cli.md says; 3 is for an RM that cannot be reached) on a refused file, naming the
    problem."""
    write(config, EQUAL)
    result = CliRunner().invoke(cli, ["emulate-rm", "refresh", "--rm", rm.url])
    assert result.exit_code == 0 and "reloaded" in result.output
    write(config, INVALID)
    result = CliRunner().invoke(cli, ["emulate-rm", "refresh", "--rm", rm.url])
    assert result.exit_code == 1 and "pro.d" in result.output


def test_cli_refresh_says_why_it_cannot_reach_the_rm(rm: EmulatedRM) -> None:
    """Exit 3 with the reason on one line: no RM listening (not requests' 'Max retries
    exceeded ... NewConnectionError(...)'), or an answer that is not the emulated RM's (a
    --rm with a path: HTTP 404, not a Python dict)."""
    result = CliRunner().invoke(cli, ["emulate-rm", "refresh", "--rm", "http://127.0.0.1:1"])
    assert result.exit_code == 3, result.output
    assert "refresh failed: " in result.output and "Max retries" not in result.output
    result = CliRunner().invoke(cli, ["emulate-rm", "refresh", "--rm", rm.url + "/ws/v1"])
    assert result.exit_code == 3 and "HTTP 404, not the emulated RM's answer" in result.output
    assert "{'" not in result.output


def test_cli_needs_trace_config_and_cluster() -> None:
    """`tempo emulate-rm` without its inputs is a usage error."""
    result = CliRunner().invoke(cli, ["emulate-rm", "--speed", "10"])
    assert result.exit_code == 2 and "--trace" in result.output


def test_queue_and_limit_filters(rm: EmulatedRM, client: RMClient, clock: FakeClock) -> None:
    """`queue` matches only unfinished apps of that queue (as on the RM); `limit` caps the list."""
    at(clock, 21.0)
    body = client.transport.get_json("/ws/v1/cluster/apps", {"queue": "prod"})
    assert [a["name"] for a in body["apps"]["app"]] == ["j1", "j3"]
    at(clock, 200.0)
    assert client.transport.get_json("/ws/v1/cluster/apps", {"queue": "prod"}) == {"apps": None}
    assert len(client.transport.get_json("/ws/v1/cluster/apps", {"limit": 2})["apps"]["app"]) == 2


def test_hadoop_2_responses(config: Path, clock: FakeClock) -> None:
    """A Hadoop 2 emulator loads the file in the Hadoop 2 dialect and reports no launchTime;
    its queues include root.default, which a Hadoop 2 RM creates at start (weights 3, 1
    and 1 on 4096 MB: steady shares 2457.6, 819.2 and 819.2 MB)."""
    with EmulatedRM(
        tiny_trace(),
        config,
        CLUSTER,
        hadoop_version=2,
        settings=SchedulerSettings(hadoop_version=2),
        clock=clock,
        engine="reference",
    ) as emulator:
        client = RMClient(HTTPTransport(emulator.url))
        (app,) = client.transport.get_json("/ws/v1/cluster/apps")["apps"]["app"]
        assert "launchTime" not in app and app["startedTime"] == 1_700_000_000_000
        queues = client.scheduler().queues
        steady = {n: queues[n].steady_fair_resources.memory_mb for n in queues if n != "root"}
        assert steady == pytest.approx(
            {"root.prod": 2457.6, "root.engineer": 819.2, "root.default": 819.2}, abs=1.0
        )
        client.transport.close()


def test_status_reports_clock_and_reloads(
    rm: EmulatedRM, client: RMClient, clock: FakeClock
) -> None:
    """GET /ws/v1/emulator/status gives the emulated time and the file in force."""
    at(clock, 7.0)
    status = client.transport.get_json("/ws/v1/emulator/status")["emulator"]
    assert status["traceTimeS"] == pytest.approx(7.0)
    assert status["epochMs"] == 1_700_000_007_000
    assert status["allocationSha256"] == rm.allocation_sha256
    assert [r["trigger"] for r in status["reloads"]] == ["start"]


def test_cli_refuses_a_bad_allocation_file(tmp_path: Path) -> None:
    """`tempo emulate-rm` on a file Hadoop refuses exits 2 (input error) naming the problem,
    serving nothing."""
    trace = Path(__file__).resolve().parents[3] / "traces" / "hadoop" / "sls"
    bad = write(tmp_path / "bad.xml", INVALID)
    result = CliRunner().invoke(
        cli,
        [
            "emulate-rm",
            "--trace",
            str(trace),
            "--config",
            str(bad),
            "--cluster",
            CLUSTER,
            "--engine",
            "reference",
        ],
    )
    assert result.exit_code == 2 and "pro.d" in result.output


def test_window_without_attempts_measures_retried_tasks_by_their_last_attempt(
    config: Path, clock: FakeClock
) -> None:
    """On a replay whose tasks fail and are retried, a window read without attempts gives
    every task the duration a window read with them gives (the successful attempt's run
    time), not the task's span over its failed attempts and the waits between them."""
    noise = NoiseModel(failure_probability=0.5, max_attempts=4)
    with EmulatedRM(
        tiny_trace(), config, CLUSTER, speed=SPEED, clock=clock, engine="reference", noise=noise
    ) as rm:
        client = RMClient(HTTPTransport(rm.url), history=JobHistoryClient(HTTPTransport(rm.url)))
        at(clock, 1000.0)
        full = client.window(rm.now_s() - 2000.0, rm.now_s())
        lean = client.window(rm.now_s() - 2000.0, rm.now_s(), attempts=False)
        client.transport.close()
    attempts = full.observed.attempts
    assert attempts["state"].eq("FAILED").any()  # the case at hand: retried tasks
    expected = full.workload.tasks.set_index("task_id")["duration_s"]
    got = lean.workload.tasks.set_index("task_id")["duration_s"]
    np.testing.assert_allclose(got.reindex(expected.index), expected)
