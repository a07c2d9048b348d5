"""`RMClock`: the RM's time from its Date header or the emulator's status, and drift warnings."""

from __future__ import annotations

import logging
from email.utils import formatdate

import pytest
from emulated import CLUSTER, WEIGHTED, FakeClock, tiny_trace, write
from fake_rm import Reply

from tempo.errors import RMError
from tempo.rm import RMClock
from tempo.rm.clock import INFO_PATH, describe_drift, parse_date_header
from tempo.rm.emulator import EPOCH_BASE_S, EmulatedRM

NOW = 1_750_000_000.0


def _dated(server, rm_s: float) -> None:
    server.script(INFO_PATH, Reply(200, b"{}", {"Date": formatdate(rm_s, usegmt=True)}))


def test_a_real_rm_clock_is_its_date_header(rm_server, make_transport):
    """The time is the Date header of /ws/v1/cluster/info, not this machine's clock."""
    _dated(rm_server, NOW - 7200)
    clock = RMClock(make_transport(rm_server.url), local=lambda: NOW)
    assert clock() == NOW - 7200
    assert clock.last.drift_s == -7200 and not clock.last.emulated and clock.speed == 1.0


def test_drift_over_a_minute_is_warned_once_until_it_moves(rm_server, make_transport, caplog):
    """5 min ahead warns; the same drift again does not; 3 more minutes warns again; 20 s is quiet."""
    local = [NOW]
    clock = RMClock(make_transport(rm_server.url), local=lambda: local[0])
    caplog.set_level(logging.WARNING, logger="tempo.rm.clock")
    _dated(rm_server, NOW + 300)
    clock()
    assert "5 min 0 s ahead of this machine's" in caplog.text and "NTP" in caplog.text
    caplog.clear()
    clock()
    assert not caplog.records
    _dated(rm_server, NOW + 480)
    clock()
    assert "8 min 0 s ahead of" in caplog.text
    caplog.clear()
    _dated(rm_server, NOW - 20)
    clock()
    assert not caplog.records


@pytest.mark.parametrize(
    "headers, match",
    [
        ({"Date": ""}, "has no Date header"),
        ({"Date": "yesterday"}, "Date header: expected an HTTP date, got 'yesterday'"),
    ],
)
def test_a_missing_or_bad_date_is_an_rm_error(rm_server, make_transport, headers, match):
    """Without a usable Date the RM's clock is unknown: an RMError naming the URL."""
    rm_server.script(INFO_PATH, Reply(200, b"{}", headers))
    with pytest.raises(RMError, match=match) as error:
        RMClock(make_transport(rm_server.url))()
    assert "/ws/v1/cluster/info" in str(error.value)


def test_an_unreachable_rm_has_no_clock(dead_url, make_transport):
    """A dead address is an RMError, which the loop journals as an unobserved window."""
    with pytest.raises(RMError, match="connection failed"):
        RMClock(make_transport(dead_url))()


def test_the_emulated_rm_clock_is_its_replay_time_and_speed(tmp_path, make_transport, caplog):
    """Against tempo's emulated RM the time and speed come from its status endpoint; its
    years of offset are expected, logged at INFO, never warned about."""
    config = write(tmp_path / "fair-scheduler.xml", WEIGHTED)
    fake = FakeClock()
    rm = EmulatedRM(tiny_trace(), config, CLUSTER, engine="reference", clock=fake, speed=50.0)
    url = rm.start()
    slept: list[float] = []
    try:
        fake.advance(3.0)
        clock = RMClock(make_transport(url), local=lambda: NOW, wall_sleep=slept.append)
        caplog.set_level(logging.INFO, logger="tempo.rm.clock")
        now = clock()
        clock.sleep(100.0)
    finally:
        rm.stop()
    assert now == pytest.approx(EPOCH_BASE_S + 150.0, abs=1e-3)
    assert clock.last.emulated and clock.speed == 50.0 and slept == [2.0]
    assert "emulated RM" in caplog.text and not [r for r in caplog.records if r.levelno > 20]


def test_drift_reads_for_people():
    """Drift is said in the largest sensible unit with its direction."""
    assert describe_drift(-45) == "45 s behind"
    assert describe_drift(3 * 86400) == "3.0 days ahead of"
    assert parse_date_header("Sun, 06 Nov 1994 08:49:37 GMT", source="x") == 784111777.0
