"""`NoiseModel.parse`: the --noise syntax, and the one typical model everything shares."""

import pytest

from whatif.errors import ValidationError
from whatif.predictor import TYPICAL_NOISE, NoiseModel


def test_typical_and_none():
    assert NoiseModel.parse("typical") is TYPICAL_NOISE
    assert NoiseModel.parse(" None ") == NoiseModel()


def test_key_value_pairs_give_each_field():
    noise = NoiseModel.parse(
        "failures=0.05, stragglers=0.1,straggler-factor=4,jitter=0.3,max-attempts=2"
    )
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
        ("failures=1.5", "noise failures: expected a value in [0.0, 0.99], got 1.5"),
        ("stragglers=-1", "noise stragglers: expected a value in [0.0, 1.0], got -1.0"),
        ("straggler-factor=0.5", "noise straggler-factor: expected a value in [1.0, 1000000.0]"),
        ("jitter=11", "noise jitter: expected a value in [0.0, 10.0], got 11.0"),
        ("max-attempts=1.5", "noise max-attempts: expected an integer >= 1, got '1.5'"),
        ("max-attempts=0", "noise max-attempts: expected an integer >= 1, got 0"),
        ("failures=nan", "noise failures: expected a number, got 'nan'"),
        ("jitter=0.1,jitter=0.2", "noise jitter: given twice"),
    ],
)
def test_bad_specs_name_the_key_typed_and_what_was_expected(spec, message):
    """An error names the key the user wrote (failures), not NoiseModel's field
    (failure_probability), and what it expects: max-attempts an integer."""
    with pytest.raises(ValidationError) as caught:
        NoiseModel.parse(spec)
    assert message in str(caught.value) and "NoiseModel" not in str(caught.value)
