"""MinGain: below it, no change is proposed (relative and absolute floors, per unit)."""

import math

import pytest

from tempo.errors import TempoError
from tempo.gain import MinGain, QSChange, meaningful_gains


def test_a_gain_must_clear_both_the_relative_and_the_absolute_floor():
    gain = MinGain()
    assert not gain.is_gain(200.0, 199.99, "s")  # 0.01 s: noise
    assert not gain.is_gain(200.0, 198.5, "s")  # 1.5 s < 1% of 200 s
    assert gain.is_gain(200.0, 197.0, "s")
    assert not gain.is_gain(0.5, 0.4, "s")  # 20% but under 1 s
    assert not gain.is_gain(0.10, 0.098, "fraction")  # 0.2 points
    assert gain.is_gain(0.10, 0.09, "fraction")
    assert not gain.is_gain(math.nan, 1.0, "s")


def test_objectives_and_violated_constraints_count_a_fixed_constraint_always():
    changes = [
        QSChange("a:QS_AJR", "s", math.inf, 100.0, 99.9),
        QSChange("b:QS_DL<=0", "fraction", 0.0, 0.001, 0.0),
        QSChange("c:QS_AJR<=60", "s", 60.0, 50.0, 10.0),  # kept already: no gain to claim
    ]
    assert [c.label for c in meaningful_gains(changes, MinGain())] == ["b:QS_DL<=0"]


def test_negative_floors_are_refused():
    with pytest.raises(TempoError, match="MinGain.seconds"):
        MinGain(seconds=-1)
