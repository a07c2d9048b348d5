"""The kernel's intrinsics against their plain-Python twins."""

import math

import numpy as np
import pytest
from numba import njit

from whatif.predictor.world import (
    float_from_ordered,
    float_from_ordered_py,
    ordered_bits,
    ordered_bits_py,
)

FLOATS = [
    -math.inf,
    -1e300,
    -2.5,
    -1.0,
    -5e-324,
    -0.0,
    0.0,
    5e-324,
    1e-300,
    1.0,
    1.5,
    2.0,
    1024.0,
    1e300,
    math.inf,
]


@njit
def _ordered_bits_compiled(x):
    return ordered_bits(x)


@njit
def _float_from_ordered_compiled(bits):
    return float_from_ordered(bits)


@pytest.mark.parametrize("x", FLOATS)
def test_compiled_ordered_bits_matches_its_twin(x):
    assert _ordered_bits_compiled(x) == ordered_bits_py(x)


@pytest.mark.parametrize("x", FLOATS)
def test_float_from_ordered_turns_the_bits_back(x):
    bits = ordered_bits_py(x)
    back = _float_from_ordered_compiled(bits)
    assert back == float_from_ordered_py(bits) == x
    assert math.copysign(1.0, back) == (-1.0 if x < 0 else 1.0)  # -0.0 comes back as 0.0


def test_ordered_bits_keeps_the_order_of_floats():
    rng = np.random.default_rng(7)
    xs = FLOATS + list(rng.normal(scale=1e3, size=300)) + list(rng.integers(-50, 50, size=100) / 4)
    for x in xs:
        for y in xs[::7]:
            bx, by = ordered_bits_py(float(x)), ordered_bits_py(float(y))
            assert (bx < by) == (x < y) and (bx == by) == (x == y), (x, y)


def test_signed_zeros_are_one_key():
    assert _ordered_bits_compiled(-0.0) == _ordered_bits_compiled(0.0) == 0


def test_inf_is_the_kernels_no_request_marker():
    from whatif.predictor.kernel import TN_NONE

    assert _ordered_bits_compiled(math.inf) == TN_NONE
