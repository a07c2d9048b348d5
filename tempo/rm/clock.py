"""The ResourceManager's clock: tempo's windows are the cluster's time, not this machine's.

The loop asks the RM for the applications that finished in a window given in the
RM's own epoch milliseconds, so "now" must be the RM's. A tuner whose clock is
behind asks for a window that has not ended yet; one replaying a recorded or
emulated cluster, whose clock is elsewhere in time, sees no job at all.

`RMClock` reads the RM's time on every call:

- from a real RM, the ``Date`` header of ``GET /ws/v1/cluster/info`` (Hadoop's
  ``NoCacheFilter`` sets it on every web response; one-second resolution);
- from tempo's emulated RM (its ``Server`` header names it), the status endpoint
  `tempo.rm.emulator.STATUS_PATH`: the emulated time in epoch milliseconds and the
  replay speed, which `RMClock.sleep` uses to wait in the RM's seconds.

When a real RM's clock and this machine's differ by more than ``max_drift_s`` (a
minute by default) it logs a warning, again whenever the difference moves by more
than that; the emulated RM's time is a replay, so its offset is logged once at
INFO. Every failure is a `tempo.RMError`.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any

from tempo.errors import RMError
from tempo.rm.redact import redact
from tempo.rm.transport import HTTPTransport

logger = logging.getLogger(__name__)

#: Asked for its ``Date`` header (any RM web response has one).
INFO_PATH = "/ws/v1/cluster/info"

#: The emulated RM's status endpoint (`tempo.rm.emulator.STATUS_PATH`).
EMULATOR_STATUS_PATH = "/ws/v1/emulator/status"

#: How the emulated RM names itself in its ``Server`` header.
EMULATOR_SERVER = "tempo-emulated-rm"

#: Clock difference (seconds) beyond which a warning is logged.
MAX_DRIFT_S = 60.0


@dataclass(frozen=True)
class ClockReading:
    """One reading of the RM's clock.

    ``rm_s`` is the RM's time (epoch seconds), ``local_s`` this machine's at the
    same moment, ``speed`` RM seconds per wall second (1 for a real RM), and
    ``emulated`` whether the RM is tempo's emulated one.
    """

    rm_s: float
    local_s: float
    speed: float = 1.0
    emulated: bool = False

    @property
    def drift_s(self) -> float:
        """How far the RM's clock is ahead of this machine's (negative: behind)."""
        return self.rm_s - self.local_s


def describe_drift(seconds: float) -> str:
    """``3 min 12 s ahead of`` / ``45 s behind`` this machine's clock, for people."""
    size = abs(seconds)
    if size >= 86400:
        amount = f"{size / 86400:.1f} days"
    elif size >= 3600:
        amount = f"{size / 3600:.1f} h"
    elif size >= 60:
        amount = f"{int(size // 60)} min {int(size % 60)} s"
    else:
        amount = f"{size:.0f} s"
    return f"{amount} {'ahead of' if seconds > 0 else 'behind'}"


def parse_date_header(value: str | None, *, source: str) -> float:
    """Epoch seconds of an HTTP ``Date`` header (RFC 7231); `RMError` naming `source` otherwise."""
    if not value:
        raise RMError(f"{source}: the response has no Date header, so the RM's clock is unknown")
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        raise RMError(f"{source}: Date header: expected an HTTP date, got {value!r}") from None
    if when.tzinfo is None:  # "-0000" and asctime forms carry no zone: they are GMT
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


class RMClock:
    """The RM's time now (epoch seconds) as a callable, for `tempo.loop.Tuner`'s ``clock``.

    Parameters
    ----------
    transport : HTTPTransport
        The connection to the RM (HA failover and retries included).
    max_drift_s : float
        Warn when a real RM's clock differs from this machine's by more than this.
    local : callable
        This machine's epoch clock (``time.time``); tests inject one.
    wall_sleep : callable
        Sleeps wall seconds (``time.sleep``).
    """

    def __init__(
        self,
        transport: HTTPTransport,
        *,
        max_drift_s: float = MAX_DRIFT_S,
        local: Callable[[], float] = time.time,
        wall_sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not (math.isfinite(max_drift_s) and max_drift_s > 0):
            raise RMError(f"RMClock max_drift_s: expected seconds > 0, got {max_drift_s!r}")
        self.transport = transport
        self.max_drift_s = float(max_drift_s)
        self.local = local
        self.wall_sleep = wall_sleep
        self.last: ClockReading | None = None
        self._warned_drift_s: float | None = None

    def read(self) -> ClockReading:
        """Read the RM's clock now; warn about drift (see the module docstring)."""
        reply = self.transport.get(INFO_PATH)
        local = self.local()
        source = redact(reply.url)
        if str(reply.headers.get("Server", "")).startswith(EMULATOR_SERVER):
            reading = self._emulated(local)
        else:
            reading = ClockReading(
                parse_date_header(reply.headers.get("Date"), source=source), local
            )
        self._check_drift(reading, source)
        self.last = reading
        return reading

    def _emulated(self, local: float) -> ClockReading:
        reply = self.transport.get(EMULATOR_STATUS_PATH)
        source = redact(reply.url)
        status: Any = reply.body.get("emulator") if isinstance(reply.body, dict) else None
        try:
            epoch_ms = float(status["epochMs"])
            speed = float(status["speed"])
        except (TypeError, KeyError, ValueError):
            raise RMError(
                f"{source}: expected {{'emulator': {{'epochMs': ..., 'speed': ...}}}}, "
                f"got {reply.body!r:.200}"
            ) from None
        if not (math.isfinite(epoch_ms) and math.isfinite(speed) and speed > 0):
            raise RMError(f"{source}: epochMs and speed: expected finite numbers, speed > 0")
        return ClockReading(epoch_ms / 1000.0, local, speed=speed, emulated=True)

    def _check_drift(self, reading: ClockReading, source: str) -> None:
        drift = reading.drift_s
        if reading.emulated:
            if self.last is None:
                logger.info(
                    "%s is tempo's emulated RM: its clock is its replay time (%s this "
                    "machine's, %gx); windows follow it",
                    source,
                    describe_drift(drift),
                    reading.speed,
                )
            return
        if abs(drift) <= self.max_drift_s:
            self._warned_drift_s = None
            return
        if (
            self._warned_drift_s is not None
            and abs(drift - self._warned_drift_s) <= self.max_drift_s
        ):
            return
        self._warned_drift_s = drift
        logger.warning(
            "the ResourceManager's clock is %s this machine's (more than %g s): windows "
            "follow the RM's clock; check NTP on both",
            describe_drift(drift),
            self.max_drift_s,
        )

    def __call__(self) -> float:
        return self.read().rm_s

    @property
    def speed(self) -> float:
        """RM seconds per wall second at the last reading (1 before any)."""
        return 1.0 if self.last is None else self.last.speed

    def sleep(self, seconds: float) -> None:
        """Wait `seconds` of the RM's time (wall seconds divided by its speed)."""
        self.wall_sleep(max(0.0, float(seconds)) / self.speed)
