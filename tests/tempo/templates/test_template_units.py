"""Duration strings used by templates and the CLI."""

import pytest

from tempo import TempoError
from tempo.templates import parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("45min", 2700.0),
        ("2h", 7200.0),
        ("90 s", 90.0),
        ("600", 600.0),
        ("1.5hours", 5400.0),
        (".5 MIN", 30.0),
        ("30m", 1800.0),
        ("1d", 86400.0),
        ("2 days", 172800.0),
    ],
)
def test_durations_convert_to_seconds(text, seconds):
    """s, m/min, h and d (and their long forms) convert; a bare number is seconds."""
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "45 weeks", "-5min", "min", "1e3", "+1h"])
def test_bad_durations_are_rejected(text):
    """Anything else names what was expected."""
    with pytest.raises(
        TempoError, match="expected a number with an optional unit s, m/min, h or d"
    ):
        parse_duration(text)
