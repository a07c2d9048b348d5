"""Bounded lenient JSON: only missing/trailing commas are repaired, and each repair is logged."""

import logging
from pathlib import Path

import pytest

from whatif import TraceFormatError
from whatif.readers.lenient_json import loads_lenient

REST = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "hadoop" / "rest"


def test_missing_comma_in_jhs_doc_is_repaired_and_logged(caplog):
    """The JobHistory doc's missing comma (line 20 col 13) is inserted, with a warning naming it."""
    with caplog.at_level(logging.WARNING):
        payload = loads_lenient((REST / "jhs-jobs.json").read_text(), source="jhs-jobs.json")
    assert [j["submitTime"] for j in payload["jobs"]["job"]] == [1326381344449, 1326381446500]
    assert "jhs-jobs.json:20:13: repaired JSON (inserted a missing comma)" in caplog.text


def test_trailing_comma_in_fair_scheduler_doc_is_removed(caplog):
    """The RM doc's trailing comma (line 93 col 17) is removed."""
    with caplog.at_level(logging.WARNING):
        payload = loads_lenient((REST / "rm-scheduler-fair.json").read_text(), source="fair")
    assert payload["scheduler"]["schedulerInfo"]["type"] == "fairScheduler"
    assert "fair:93:17: repaired JSON (removed a trailing comma" in caplog.text


def test_trailing_comma_in_array():
    """A comma before ']' is removed."""
    assert loads_lenient('{"a": [1, 2,]}', source="s") == {"a": [1, 2]}


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            '{"a": 1',
            "s:1:8: invalid JSON: expected ',' or a closing '}' or ']', "
            "but the document ends there (truncated?)",
        ),
        ('{"a": tru}', "s:1:7: invalid JSON: expected a JSON value"),
        ('{"a" 1}', "s:1:6: invalid JSON: expected ':' after a member name"),
        (
            '{"a": "b',
            "s:1:7: invalid JSON: a string starting here has no closing '\"': "
            "the document ends first (truncated?)",
        ),
        (
            '{"a": 1} x',
            "s:1:10: invalid JSON: expected nothing after the JSON value (one document)",
        ),
        (
            '{"a": ' + "9" * 5000 + "}",
            "s:1:7: invalid JSON: a number of 5000 digits; expected at most",
        ),
        (
            '{"s": "[[", "a": ' + "[" * 100_000,
            "s:1:100017: invalid JSON: arrays or objects nested 100001 deep here, too deep",
        ),
    ],
)
def test_other_errors_are_not_repaired(text, match):
    """Truncation and other syntax errors raise with source:line:col and what was expected,
    a number too long for Python's int and too deep nesting too (no traceback)."""
    with pytest.raises(TraceFormatError) as caught:
        loads_lenient(text, source="s")
    assert str(caught.value).startswith(match), str(caught.value)


def test_places_are_those_of_the_text_as_given_not_as_repaired(caplog):
    """Each repair and the error after them name the line and column of the text as
    given: an inserted comma does not push later columns of its line one to the right,
    nor a removed one pull them one to the left."""
    text = '{"a": 1 "b": [1,] "c": 2 "d": x}'
    with caplog.at_level(logging.WARNING), pytest.raises(TraceFormatError) as caught:
        loads_lenient(text, source="s")
    assert [r.getMessage() for r in caplog.records] == [
        "s:1:9: repaired JSON (inserted a missing comma)",
        "s:1:17: repaired JSON (removed a trailing comma before ']')",
        "s:1:19: repaired JSON (inserted a missing comma)",
    ]
    where = text.index('"d"') + 1  # a fourth missing comma: one more than allowed
    assert str(caught.value).startswith(f"s:1:{where}: invalid JSON after 3 repair(s)")


def test_repairs_are_bounded():
    """More missing commas than max_repairs is an error saying how many were repaired."""
    text = '{"a": 1\n"b": 2\n"c": 3\n"d": 4}'
    assert loads_lenient(text, source="s", max_repairs=3) == {"a": 1, "b": 2, "c": 3, "d": 4}
    with pytest.raises(TraceFormatError, match=r"s:4:1: invalid JSON after 2 repair\(s\)"):
        loads_lenient(text, source="s", max_repairs=2)
