"""Resource strings: Hadoop's three forms, its error messages, and spelling-preserving writes."""

import math

import pytest
from samples import table

from whatif.allocation import ResourceLimit, Resources
from whatif.allocation.resource_string import (
    NEW,
    NEW_PERCENT,
    OLD,
    PERCENT,
    ResourceStringError,
    parse_resource,
    render_resource,
)


@pytest.mark.parametrize(
    ("text", "form", "memory", "vcores"),
    [
        ("1024 mb, 1 vcores", OLD, 1024, 1),
        ("512mb,1vcores", OLD, 512, 1),
        ("10 VCores, 2048.7 MB", OLD, 2048, 10),
        ("memory-mb=4096, vcores=1", NEW, 4096, 1),
        ("vcores=2", NEW, None, 2),
        ("50.0%", PERCENT, 50.0, 50.0),
        ("40% memory, 10% cpu", PERCENT, 40.0, 10.0),
        ("memory-mb=50.0%, vcores=25%", NEW_PERCENT, 50.0, 25.0),
    ],
)
def test_forms_parse_as_hadoop_reads_them(text, form, memory, vcores):
    """Each spelling gives the form and amounts Hadoop reads (decimals truncated)."""
    value = parse_resource(text)
    assert (value.form, value.memory, value.vcores) == (form, memory, vcores)


@pytest.mark.parametrize(
    ("text", "message"),
    table(
        """
        1024 mb                   | Missing resource: vcores
                                  | the resource string is empty
        memory-mb=1k, vcores=1    | must all be integers
        abc%                      | Invalid percentage
        40% memory, 2 cpu         | Missing resource: cpu
        99999999999 mb, 1 vcores  | too large
        """,
        str,
        str,
        sep="|",
    ),
)
def test_bad_strings_fail_with_hadoops_reason(text, message):
    """Strings Hadoop rejects raise with Hadoop's reason."""
    with pytest.raises(ResourceStringError, match=message):
        parse_resource(text)


def test_render_substitutes_into_the_template():
    """Writing keeps the template's spacing, order and case."""
    assert render_resource(Resources(2048, 3), "10 VCores,1024MB") == "3 VCores,2048MB"
    assert render_resource(Resources(2048, 3), "vcores=1,memory-mb=5") == "vcores=3,memory-mb=2048"
    assert render_resource(Resources(2048.9, 3), None) == "2048 mb, 3 vcores"
    assert render_resource(ResourceLimit(percent=(30.0, 30.0)), "50.0%") == "30.0%"
    assert render_resource(Resources(1, 1), "50%") == "1 mb, 1 vcores"


def test_max_missing_types_are_unlimited():
    """A maximum leaving a type out is unlimited in that type."""
    limit = parse_resource("memory-mb=4096").as_limit(missing=math.inf)
    assert limit.absolute == Resources(4096, math.inf)
