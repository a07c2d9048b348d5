"""Fixtures of the RM client tests: scripted servers, a dead address, fake time."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import numpy as np
import pytest
from emulated import FakeTime
from fake_rm import FAST, FakeServer

from tempo.rm import HTTPTransport, TransportOptions


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
