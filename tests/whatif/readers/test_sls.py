"""The SLS reader and read_sls_nodes: real upstream files, counts, copies, bad input."""

import json
import logging
from pathlib import Path

import pytest

from whatif import TraceFormatError
from whatif.readers import detect_format, read_sls_nodes, read_trace

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "sls"


def test_inputsls_jobs_tasks_and_times():
    """inputsls.json gives 2 jobs in two queues, 3 + 2 maps, with ms times as seconds."""
    trace = read_trace(DATA / "inputsls.json")
    assert detect_format(DATA / "inputsls.json") == "sls"
    jobs = trace.workload.jobs
    assert jobs["job_id"].tolist() == ["job_1", "job_2"]
    assert jobs["queue"].tolist() == ["root.sls_queue_1", "root.sls_queue_2"]
    assert jobs["submit_s"].tolist() == [0.0, 105.204]
    tasks = trace.workload.tasks
    assert tasks.groupby("job_id").size().to_dict() == {"job_1": 3, "job_2": 2}
    first = tasks.iloc[0]
    assert first["duration_s"] == pytest.approx(23.707 - 6.664)
    assert (first["memory_mb"], first["vcores"], first["priority"]) == (1024, 1, 20)
    assert trace.observed.n_attempts == 5
    assert trace.observed.jobs["finish_s"].tolist() == [95.375, 197.256]


def test_count_job_count_resources_and_duration_only(tmp_path):
    """count repeats tasks, job.count copies jobs, container sizes are read, durations alone work."""
    job = {
        "job.id": "j",
        "job.start.ms": 1000,
        "job.queue.name": "root.a",
        "job.count": 2,
        "job.tasks": [
            {
                "container.type": "map",
                "container.duration.ms": 4000,
                "count": 3,
                "container.memory-mb": 2048,
                "container.vcores": 2,
            },
            {"container.type": "reduce", "duration.ms": 8000},
        ],
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps(job))
    trace = read_trace(path, format="sls")
    assert trace.workload.jobs["job_id"].tolist() == ["j-0", "j-1"]
    tasks = trace.workload.tasks
    assert len(tasks) == 8
    maps = tasks[tasks["stage"] == "map"]
    assert (
        set(maps["duration_s"]) == {4.0}
        and set(maps["memory_mb"]) == {2048}
        and set(maps["vcores"]) == {2}
    )
    assert trace.observed is None


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            '{"job.id": "j", "job.start.ms": 0, "job.tasks": [',
            r"t\.json:1:\d+: invalid JSON in record 1",
        ),
        (
            '{"job.id": "j", "job.tasks": [{"container.duration.ms": 5}]}',
            r"t\.json:1: job 'j': missing field 'job.start.ms'",
        ),
        (
            '{"job.id": "j", "job.start.ms": "soon", "job.tasks": []}',
            r"job 'j': field 'job.start.ms': expected a number, got 'soon'",
        ),
        (
            '{"job.id": "j", "job.start.ms": 0, "job.tasks": []}',
            r"job 'j': expected a non-empty list 'job.tasks'",
        ),
        (
            '{"job.id": "j", "job.start.ms": 0, "job.tasks": [{"container.type": "map"}]}',
            r"job\.tasks\[0\]: needs container\.start\.ms",
        ),
        (
            '{"job.id": "j", "job.start.ms": 0, "job.tasks": [{"container.type": "gpu", "duration.ms": 1}]}',
            r"container\.type expected map or reduce, got 'gpu'",
        ),
        (
            '{"job.id": "a", "job.start.ms": 0, "job.tasks": [{"duration.ms": 1}]}\n[1, 2]',
            r"t\.json:2: record 1: expected a JSON object",
        ),
        (
            '{"job.id": "j", "job.start.ms": 0, "job.tasks": [{"container.duration.ms": -500}]}',
            r"job\.tasks\[0\]: container\.duration\.ms expects a number >= 0, got -500",
        ),
        (
            '{"job.id": "j", "job.start.ms": 0, "job.tasks": '
            '[{"container.start.ms": 9, "container.end.ms": 5}]}',
            r"job\.tasks\[0\]: container\.end\.ms is before container\.start\.ms",
        ),
    ],
)
def test_malformed_sls_names_file_line_and_record(tmp_path, text, match):
    """Truncated JSON, missing fields and wrong types name the file, line and job."""
    path = tmp_path / "t.json"
    path.write_text(text)
    with pytest.raises(TraceFormatError, match=match):
        read_trace(path, format="sls")


def test_sls_nodes_skips_the_nameless_entry(caplog):
    """nodes.json has 5 racks and 19 named nodes; the upstream {} entry is skipped with a warning."""
    with caplog.at_level(logging.WARNING):
        cluster = read_sls_nodes(DATA / "nodes.json", memory_mb=10240, vcores=10)
    assert len(cluster.nodes) == 19
    assert cluster.nodes[0].name == "/rack1/node1" and cluster.nodes[-1].name == "/rack5/node19"
    assert cluster.memory_mb == 19 * 10240 and cluster.vcores == 190
    assert "rack5" in caplog.text and "no 'node' name" in caplog.text


def test_sls_nodes_rejects_bad_racks(tmp_path):
    """A rack record without a nodes list is an error naming the file and line."""
    path = tmp_path / "nodes.json"
    path.write_text('{"rack": "r1", "nodes": [{"node": "a"}]}\n{"rack": "r2"}\n')
    with pytest.raises(
        TraceFormatError, match=r"nodes\.json:2: rack record 2: expected fields 'rack'"
    ):
        read_sls_nodes(path, memory_mb=1024, vcores=1)


def test_nodes_file_is_not_a_job_trace():
    """nodes.json is not mistaken for a job trace."""
    with pytest.raises(TraceFormatError, match="not a trace"):
        detect_format(DATA / "nodes.json")
