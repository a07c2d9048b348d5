"""Durations as written in templates, deadlines and the CLI."""

import pytest

from whatif import ValidationError
from whatif.durations import LAST_INSTANT_S, format_duration, format_instant, parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90s", 90.0), ("30m", 1800.0), ("45 min", 2700.0), ("2h", 7200.0), ("1d", 86400.0),
     ("600", 600.0), ("1.5 Hours", 5400.0)],
)  # fmt: skip
def test_durations_convert_to_seconds(text, seconds):
    """s, m/min, h and d with their long forms; a bare number is seconds."""
    assert parse_duration(text) == pytest.approx(seconds)


def test_a_bad_duration_names_the_field():
    """The message names the field and what was expected."""
    with pytest.raises(ValidationError, match=r"^window: expected a number with an optional unit"):
        parse_duration("2 weeks", field="window")


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(3600.0, "1h"), (5400.0, "90min"), (86400.0, "1d"), (90.0, "90s"), (1.5, "1.5s"), (0.0, "0s")],
)
def test_format_uses_the_largest_exact_unit(seconds, text):
    """Written back in the largest unit that is exact, and read back to the same seconds."""
    assert format_duration(seconds) == text
    assert parse_duration(text) == seconds


def test_format_instant_reads_epoch_times_as_utc_and_offsets_as_seconds():
    """Epoch times (1973 on) print as a UTC time of day, offsets from a trace's zero as
    seconds, and no time as a dash."""
    assert format_instant(1326815794.0) == "2012-01-17 15:56:34"
    assert format_instant(1326815794.0, zone=True) == "2012-01-17 15:56:34 UTC"
    assert format_instant(25301.66) == "25,301.7 s"
    assert format_instant(25301.66, zone=True) == "25,301.7 s"
    assert format_instant(None) == format_instant(float("nan")) == "-"


def test_format_instant_shows_a_time_past_the_last_date_in_seconds():
    """Python's datetime ends at 9999-12-31 23:59:59 (`LAST_INSTANT_S`); a later time (a
    predicted end far past any date) was a ValueError 'year 10000 is out of range'."""
    assert format_instant(LAST_INSTANT_S) == "9999-12-31 23:59:59"
    assert format_instant(LAST_INSTANT_S + 1.0) == "2.53402e+11 s"
    assert format_instant(1e300, zone=True) == "1e+300 s"
