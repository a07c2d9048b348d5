"""A tiny two-queue trace, allocation files and a settable clock for tests of the emulated RM."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tempo.loop.demo import PausedClock
from whatif import Workload
from whatif.trace import Trace

CLUSTER = "memory-mb=4096,vcores=4"
#: The emulator tests' speed: trace seconds per wall-clock second.
SPEED = 10.0

#: prod weight 3, engineer 1: steady shares 3072 / 1024 MB on CLUSTER.
WEIGHTED = (
    b'<?xml version="1.0"?>\n<allocations>\n'
    b'  <queue name="prod"><weight>3</weight></queue>\n'
    b'  <queue name="engineer"><weight>1</weight></queue>\n'
    b"</allocations>\n"
)

#: Equal weights: steady shares 2048 / 2048 MB.
EQUAL = (
    b'<?xml version="1.0"?>\n<allocations>\n'
    b'  <queue name="prod"><weight>1</weight></queue>\n'
    b'  <queue name="engineer"><weight>1</weight><maxRunningApps>7</maxRunningApps></queue>\n'
    b"</allocations>\n"
)

#: Well-formed, but Hadoop refuses a dotted queue name.
INVALID = b'<allocations><queue name="pro.d"><weight>1</weight></queue></allocations>\n'


def tiny_trace() -> Trace:
    """Four jobs over 50 trace seconds: j1 (map 30 s + reduce 20 s) and j3 in prod, j2 and j4 in engineer."""
    jobs = pd.DataFrame(
        {
            "job_id": ["j1", "j2", "j3", "j4"],
            "queue": ["root.prod", "root.engineer", "root.prod", "root.engineer"],
            "submit_s": [0.0, 5.0, 20.0, 22.0],
            "user": ["ann", "bob", "ann", "bob"],
        }
    )
    tasks = pd.DataFrame(
        {
            "job_id": ["j1", "j1", "j2", "j2", "j3", "j4"],
            "task_id": ["t1", "t2", "t3", "t4", "t5", "t6"],
            "stage": ["map", "reduce", "map", "map", "map", "map"],
            "duration_s": [30.0, 20.0, 40.0, 40.0, 10.0, 5.0],
            "memory_mb": [1024.0] * 6,
            "vcores": [1.0] * 6,
        }
    )
    return Trace(Workload(jobs, tasks))


class FakeTime:
    """An injected sleep that records its delays and advances an injected clock."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


class FakeClock(PausedClock):
    """The demo's paused wall clock, started at 1000 s and moved only when told to."""

    def __init__(self) -> None:
        self.now_s = 1000.0

    def advance(self, seconds: float) -> None:
        self.sleep(seconds)


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def capacity_xml(settings: dict[str, str]) -> bytes:
    """A capacity-scheduler.xml of ``root.prod`` and ``root.engineer`` with `settings`
    (``"prod.capacity": "75"``: ``yarn.scheduler.capacity.root.prod.capacity``), one
    property a line."""
    lines = ['<?xml version="1.0"?>', "<configuration>"]
    for name, value in {"queues": "prod,engineer", **settings}.items():
        lines.append(
            f"  <property><name>yarn.scheduler.capacity.root.{name}</name>"
            f"<value>{value}</value></property>"
        )
    return "\n".join([*lines, "</configuration>", ""]).encode()


def at(clock: FakeClock, trace_s: float) -> None:
    """Move the fake wall clock so that an emulator at `SPEED` started at 1000 s is at
    trace time `trace_s`."""
    clock.now_s = 1000.0 + trace_s / SPEED
