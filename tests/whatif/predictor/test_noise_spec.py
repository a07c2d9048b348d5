"""`NoiseModel.parse`: the --noise syntax, and the one typical model everything shares."""

import pytest

from whatif.errors import ValidationError
from whatif.predictor import TYPICAL_NOISE, NoiseModel


def test_typical_and_none():
    assert NoiseModel.parse("typical") is TYPICAL_NOISE
    assert NoiseModel.parse(" None ") == NoiseModel()


def test_key_value_pairs_give_each_field():
    noise = NoiseModel.parse("failures=0.05, stragglers=0.1,straggler-factor=4,jitter=0.3,max-attempts=2")
    assert noise == NoiseModel(
        failure_probability=0.05, straggler_probability=0.1, straggler_factor=4.0,
        jitter_cv=0.3, max_attempts=2,
    )  # fmt: skip
    assert NoiseModel.parse("failures=0.02,stragglers=0.03,jitter=0.2") == TYPICAL_NOISE


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("lots", "expected 'typical', 'none' or KEY=VALUE"),
        ("speed=2", "keys failures, stragglers"),
        ("jitter=high", "noise jitter: expected a number, got 'high'"),
        ("failures=1.5", "failure_probability"),
    ],
)
def test_bad_specs_name_what_was_expected(spec, message):
    with pytest.raises(ValidationError, match=message):
        NoiseModel.parse(spec)
