"""Fixtures of the RM client tests: scripted servers, a dead address, fake time."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from emulated import CLUSTER, SPEED, FakeClock, FakeTime, tiny_trace
from fake_rm import FAST, FakeServer

from tempo.rm import HTTPTransport, JobHistoryClient, RMClient, TransportOptions
from tempo.rm.emulator import EmulatedRM


@pytest.fixture
def rm_server() -> Iterator[FakeServer]:
    server = FakeServer().start()
    yield server
    server.stop()


@pytest.fixture
def standby_server() -> Iterator[FakeServer]:
    server = FakeServer().start()
    yield server
    server.stop()


@pytest.fixture
def dead_url() -> str:
    """An address on 127.0.0.1 where nothing listens (connection refused at once)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def make_transport(fake_time: FakeTime):
    """Build an `HTTPTransport` with fast timeouts, seeded jitter and no real sleeping."""
    made: list[HTTPTransport] = []

    def make(urls, options: TransportOptions = FAST, **kwargs) -> HTTPTransport:
        kwargs.setdefault("rng", np.random.default_rng(7))
        transport = HTTPTransport(
            urls, options, sleep=fake_time.sleep, clock=fake_time.clock, **kwargs
        )
        made.append(transport)
        return transport

    yield make
    for transport in made:
        transport.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def rm(config: Path, clock: FakeClock) -> Iterator[EmulatedRM]:
    """The emulated RM on the module's `config` fixture (an allocation file or a
    capacity-scheduler.xml), with the reference engine on a fake clock."""
    with EmulatedRM(
        tiny_trace(), config, CLUSTER, speed=SPEED, clock=clock, engine="reference"
    ) as emulator:
        yield emulator


@pytest.fixture
def client(rm: EmulatedRM) -> Iterator[RMClient]:
    history = JobHistoryClient(HTTPTransport(rm.url))
    client = RMClient(HTTPTransport(rm.url), history=history)
    yield client
    client.transport.close()
    history.transport.close()
