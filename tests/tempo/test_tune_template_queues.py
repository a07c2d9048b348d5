"""`tempo tune`'s templates may name a queue the Fair Scheduler creates on the fly: one the
emulated RM's trace has jobs in, or one the live RM holds (asked only when needed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import pandas as pd
import pytest

from tempo.errors import RMError, TemplateSyntaxError
from tempo.loop.pald_step import PALDStepper
from tempo.loop.wiring import template_queues
from tempo.templates import parse_templates
from whatif import Cluster
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.capacity import ConfigurationDocument
from whatif.predictor.capacity import capacity_allocation
from whatif.workload import Workload

FAIR = AllocationDocument.from_bytes(
    b'<allocations><queue name="etl"/><queue name="users" type="parent"/></allocations>'
)


@dataclass
class FakeClient:
    """An RM client whose scheduler holds `held` queues (or fails with `error`)."""

    held: tuple[str, ...] = ()
    error: bool = False
    calls: list[str] = field(default_factory=list)

    def scheduler(self) -> SimpleNamespace:
        self.calls.append("scheduler")
        if self.error:
            raise RMError("http://rm:8088: connection refused")
        return SimpleNamespace(queues=dict.fromkeys(("root", *self.held)))


def _names(text: str, client: FakeClient, job_queues: tuple[str, ...] = (), doc=FAIR) -> list[str]:
    connection = SimpleNamespace(client=client, job_queues=job_queues)
    allocation = effective_allocation(doc) if doc is FAIR else _capacity_allocation(doc)
    return template_queues(parse_templates(text, "t.qs"), doc, allocation, connection)


def _capacity_allocation(doc):
    return capacity_allocation(doc, Cluster.parse("memory-mb=8192,vcores=8"))


def test_the_files_queues_need_no_call_to_the_rm():
    client = FakeClient(held=("root.users.bob",))
    names = _names("QUEUE root.etl OPTIMIZE QS_AJR;\n", client)
    assert "root.users.bob" not in names and client.calls == []


def test_the_emulated_rms_trace_queues_and_the_live_rms_own():
    ana = "QUEUE root.users.ana OPTIMIZE QS_AJR;\n"
    client = FakeClient(held=("root.users.bob",))
    assert "root.users.ana" in _names(ana, client, job_queues=("root.users.ana",))
    assert client.calls == []  # the demo's trace says which queues its jobs run in
    assert "root.users.bob" in _names(ana, client)
    assert client.calls == ["scheduler"]


def test_an_unreachable_rm_adds_nothing(caplog):
    names = _names("QUEUE root.users.ana OPTIMIZE QS_AJR;\n", FakeClient(error=True))
    assert names == ["root", "root.etl", "root.users"]
    assert "the RM's queues could not be read" in caplog.text


def test_the_capacity_scheduler_creates_none():
    p = "yarn.scheduler.capacity."
    doc = ConfigurationDocument.from_bytes(
        (
            f"<configuration><property><name>{p}root.queues</name><value>users</value>"
            f"</property><property><name>{p}root.users.capacity</name><value>100</value>"
            "</property></configuration>"
        ).encode()
    )
    client = FakeClient(held=("root.users.bob",))
    names = _names("QUEUE root.users.bob OPTIMIZE QS_AJR;\n", client, doc=doc)
    assert "root.users.bob" not in names and client.calls == []


def test_a_window_without_the_users_jobs_still_steps():
    """ana's queue was named at the start (the RM held it); a later window in which ana
    submits nothing does not create it, and the step leaves her QS out instead of failing."""
    templates = parse_templates(
        "QUEUE root.users.ana OPTIMIZE QS_AJR;\nQUEUE root.etl OPTIMIZE QS_AJR;\n", "t.qs"
    )
    n = 6
    jobs = pd.DataFrame({"job_id": [f"j{i}" for i in range(n)], "queue": ["root.etl"] * n,
                         "submit_s": [10.0 * i for i in range(n)]})  # fmt: skip
    tasks = pd.DataFrame({"job_id": [f"j{i}" for i in range(n)], "task_id": [f"t{i}" for i in range(n)],
                          "stage": ["map"] * n, "duration_s": [30.0] * n, "memory_mb": [1024.0] * n,
                          "vcores": [1.0] * n})  # fmt: skip
    window = Workload(jobs, tasks)
    cluster = Cluster.parse("memory-mb=4096,vcores=4")
    lone = PALDStepper(templates, cluster, iterations=1, batch_size=2, engine="reference")
    with pytest.raises(TemplateSyntaxError, match="root.users.ana"):
        lone.step(FAIR, window)
    known = PALDStepper(
        templates, cluster, iterations=1, batch_size=2, engine="reference",
        known_queues=("root.users.ana",),
    )  # fmt: skip
    step = known.step(FAIR, window)
    assert step.predicted_current["root.etl:QS_AJR"] > 0
