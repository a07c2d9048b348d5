"""The observation window [start, start + length) over which QS metrics are computed."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from whatif.errors import ValidationError
from whatif.schedule import Schedule


@dataclass(frozen=True)
class Window:
    """A half-open time interval ``[start_s, start_s + length_s)`` in trace seconds."""

    start_s: float
    length_s: float

    def __post_init__(self) -> None:
        if not math.isfinite(self.start_s):
            raise ValidationError(f"window start_s: expected a finite number, got {self.start_s!r}")
        if not (math.isfinite(self.length_s) and self.length_s > 0):
            raise ValidationError(
                f"window length_s: expected a finite number > 0, got {self.length_s!r}"
            )

    @property
    def end_s(self) -> float:
        return self.start_s + self.length_s

    @classmethod
    def ending_at(cls, end_s: float, length_s: float) -> Window:
        """The window of `length_s` seconds that ends (exclusively) at `end_s`: its length
        is raised by the ulps the rounded start loses, so that ``start_s + length_s`` is not
        short of `end_s` (an event just before `end_s` stays inside)."""
        start = end_s - length_s
        while start + length_s < end_s:
            length_s = float(np.nextafter(length_s, math.inf))
        return cls(start, length_s)

    @classmethod
    def covering(cls, schedule: Schedule) -> Window:
        """The smallest window holding every submission, start and finish of `schedule`."""
        times = np.concatenate(
            [
                schedule.jobs[["submit_s", "launch_s", "finish_s"]].to_numpy(dtype=float).ravel(),
                schedule.attempts[["start_s", "finish_s"]].to_numpy(dtype=float).ravel(),
            ]
        )
        return cls.covering_times(times)

    @classmethod
    def covering_times(cls, times: np.ndarray) -> Window:
        """The smallest window holding every finite time of `times` (`covering`, given only
        the schedule's times, as ``whatif.readers.native.read_native_times`` reads them)."""
        times = np.asarray(times, dtype=float)
        times = times[np.isfinite(times)]
        if times.size == 0:
            raise ValidationError("window: the schedule has no recorded times to cover")
        start, last = float(times.min()), float(times.max())
        # Half-open: the last event must fall strictly before start + length, after rounding.
        length = float(np.nextafter(last, math.inf)) - start
        while start + length <= last:
            length = float(np.nextafter(length, math.inf))
        return cls(start, length)

    def last(self, length_s: float) -> Window:
        """The window of `length_s` seconds that ends where this one ends."""
        return Window.ending_at(self.end_s, length_s)
