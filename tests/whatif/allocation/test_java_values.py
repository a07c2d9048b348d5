"""Java's number parsing, as Hadoop applies it to allocation-file text."""

import math

import pytest

from whatif.allocation.java_values import parse_boolean, parse_double, parse_float, parse_int


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.5f", 0.5),
        ("1e3", 1000.0),
        ("+2d", 2.0),
        ("Infinity", math.inf),
        ("0x1p3", 8.0),
        (".5", 0.5),
    ],
)
def test_double_accepts_javas_grammar(text, value):
    """Double.parseDouble spellings Python's float() may not take."""
    assert parse_double(text) == value


@pytest.mark.parametrize("text", ["abc", "1,5", "", "0.5 f", "1e"])
def test_double_rejects_what_java_rejects(text):
    """Non-numbers raise like NumberFormatException."""
    with pytest.raises(ValueError, match="For input string"):
        parse_double(text)


def test_int_is_32_bit_and_digits_only():
    """Integer.parseInt takes a sign and digits within 32 bits."""
    assert parse_int("+7") == 7
    for text in ("2147483648", "1.0", "1e3", " 3"):
        with pytest.raises(ValueError):
            parse_int(text)


def test_float_rounds_to_32_bits_and_boolean_is_lenient():
    """Float.parseFloat rounds; Boolean.parseBoolean is true only for 'true'."""
    assert parse_float("0.1") != 0.1 and abs(parse_float("0.1") - 0.1) < 1e-8
    assert parse_boolean("TRUE") and not parse_boolean("yes")
