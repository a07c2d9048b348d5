"""Loading template files and directories, and checking their queues."""

import pandas as pd
import pytest

from tempo import TemplateSyntaxError, TempoError
from tempo.templates import (
    check_predicted_queues,
    check_queues,
    check_trace_queues,
    load_templates,
    parse_templates,
)
from whatif import Cluster
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.capacity import ConfigurationDocument
from whatif.predictor.capacity import capacity_allocation
from whatif.workload import Workload


def test_directory_loads_every_qs_file_in_name_order(tmp_path):
    """A directory's *.qs files are read in name order; other files are ignored."""
    (tmp_path / "b.qs").write_text("QUEUE root.b OPTIMIZE QS_AJR;\n")
    (tmp_path / "a.qs").write_text(
        "QUEUE root.a1 OPTIMIZE QS_THR;\nQUEUE root.a2 OPTIMIZE QS_THR;\n"
    )
    (tmp_path / "notes.txt").write_text("not a template")
    templates = load_templates(tmp_path)
    assert [t.queue for t in templates] == ["root.a1", "root.a2", "root.b"]
    assert templates[2].location.path == str(tmp_path / "b.qs")


def test_single_file_loads(tmp_path):
    """A path to one file loads that file."""
    path = tmp_path / "one.qs"
    path.write_text("QUEUE x OPTIMIZE QS_AJR;")
    assert [t.queue for t in load_templates(path)] == ["root.x"]


def test_error_in_a_directory_names_the_file(tmp_path):
    """A syntax error in one file of a directory names that file."""
    (tmp_path / "a.qs").write_text("QUEUE root.a OPTIMIZE QS_AJR;\n")
    (tmp_path / "b.qs").write_text("QUEUE root.b\nOPTIMIZE QS_AJR\n")
    with pytest.raises(TemplateSyntaxError, match=r"b\.qs:3:1: expected ';' after OPTIMIZE QS_AJR"):
        load_templates(tmp_path)


def test_queue_with_two_templates_is_rejected(tmp_path):
    """A queue may have one template across all files; the error gives both places."""
    (tmp_path / "a.qs").write_text("QUEUE root.a OPTIMIZE QS_AJR;\n")
    (tmp_path / "b.qs").write_text("# again\nQUEUE a OPTIMIZE QS_THR;\n")
    with pytest.raises(
        TemplateSyntaxError, match=r"b\.qs:2:1: queue root.a already has a template at .*a\.qs:1:1"
    ):
        load_templates(tmp_path)


def test_missing_path_and_empty_directory_are_errors(tmp_path):
    """A missing path or a directory without templates is a clear error."""
    with pytest.raises(TempoError, match="no such template file or directory"):
        load_templates(tmp_path / "nope")
    with pytest.raises(TempoError, match=r"no template files \(\*\.qs\)"):
        load_templates(tmp_path)


def test_template_files_without_a_template_are_an_error_naming_them(tmp_path):
    """A .qs file (or a directory of them) of comments only holds nothing to check or
    tune: an error naming it, for `qs` as for `optimize`."""
    empty = tmp_path / "empty.qs"
    empty.write_text("# nothing yet\n")
    for path in (empty, tmp_path):
        with pytest.raises(TempoError, match=f"{path}: no template: expected a 'QUEUE"):
            load_templates(path)


def test_check_queues_accepts_known_leaves_and_parents():
    """Templates on queues of the configuration, parents included, pass."""
    templates = parse_templates("QUEUE root.prod OPTIMIZE QS_AJR;\nQUEUE prod.etl OPTIMIZE QS_THR;")
    check_queues(templates, ["root", "root.prod", "root.prod.etl"])


def test_check_queues_reports_unknown_queue_at_its_template():
    """An unknown queue fails at its QUEUE line and lists the configuration's queues."""
    templates = parse_templates(
        "QUEUE root.a OPTIMIZE QS_AJR;\n\nQUEUE root.zz OPTIMIZE QS_AJR;", "t.qs"
    )
    with pytest.raises(
        TemplateSyntaxError,
        match=r"t\.qs:3:1: queue root.zz is not in the configuration, which defines root.a$",
    ):
        check_queues(templates, ["root", "a"])


def test_check_queues_names_the_file_and_every_missing_queue_with_its_line():
    templates = parse_templates(
        "QUEUE root.x OPTIMIZE QS_AJR;\nQUEUE root.a OPTIMIZE QS_AJR;\nQUEUE root.y OPTIMIZE QS_AJR;",
        "t.qs",
    )
    with pytest.raises(
        TemplateSyntaxError,
        match=r"t\.qs:1:1: queue root.x is not in fair.xml, which defines root.a, root.a.b; "
        r"also missing: root.y \(line 3\)",
    ):
        check_queues(templates, ["root.a.b"], where="fair.xml")


def test_check_trace_queues_accepts_parents_of_the_queues_jobs_ran_in(make_trace):
    """A template on a parent queue is evaluated over its leaves' jobs; one on a queue no
    job ran in names the trace and its queues."""
    workload, _ = make_trace()
    check_trace_queues(parse_templates("QUEUE root OPTIMIZE QS_AJR;"), workload, "tr")
    with pytest.raises(TemplateSyntaxError, match=r"queue root.none is not in the trace tr, "):
        check_trace_queues(parse_templates("QUEUE root.none OPTIMIZE QS_AJR;"), workload, "tr")


def test_a_template_may_name_a_queue_the_fair_scheduler_creates_for_the_trace():
    """root.users.ana is not in the allocation file, but the trace has jobs in it and the
    Fair Scheduler creates it under root.users; the Capacity Scheduler creates none (the
    template names a queue it does not have)."""
    templates = parse_templates("QUEUE root.users.ana\nOPTIMIZE QS_AJR;\n", "t.qs")
    jobs = pd.DataFrame({"job_id": ["j"], "queue": ["root.users.ana"], "submit_s": [0.0]})
    tasks = pd.DataFrame(
        {"job_id": ["j"], "task_id": ["t"], "stage": ["map"], "duration_s": [1.0],
         "memory_mb": [1024.0], "vcores": [1.0]}
    )  # fmt: skip
    workload = Workload(jobs, tasks)
    fair = effective_allocation(
        AllocationDocument.from_bytes(
            b'<allocations><queue name="users" type="parent"/></allocations>'
        )
    )
    check_predicted_queues(templates, fair, workload)
    with pytest.raises(TemplateSyntaxError, match=r"queue root.users.ana is not in"):
        check_queues(templates, [q.name for q in fair.queues()])
    p = "yarn.scheduler.capacity."
    capacity = ConfigurationDocument.from_bytes(
        (
            f"<configuration><property><name>{p}root.queues</name><value>users</value></property>"
            f"<property><name>{p}root.users.capacity</name><value>100</value></property>"
            "</configuration>"
        ).encode()
    )
    with pytest.raises(TemplateSyntaxError, match=r"queue root.users.ana is not in"):
        check_predicted_queues(
            templates,
            capacity_allocation(capacity, Cluster.parse("memory-mb=8192,vcores=8")),
            workload,
        )
