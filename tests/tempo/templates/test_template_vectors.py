"""Templates as ordered objective and constraint vectors, read from an evaluate() table."""

import math

import numpy as np
import pandas as pd
import pytest

from tempo.templates import constraints, objectives, parse_templates, qs_vector, required_metrics
from whatif.errors import ValidationError
from whatif.metrics import Metric

TEXT = """
QUEUE root.etl OPTIMIZE QS_THR; CONSTRAINT QS_DL(slack=25%) < 10% AND QS_UTIL < -25%; PRIORITY 2;
QUEUE root.prod CONSTRAINT QS_DL(slack=25%) <= 0%;
QUEUE root.bi OPTIMIZE QS_AJR;
"""


def test_objectives_and_constraints_keep_template_order():
    """Objectives carry priorities, constraints thresholds, both in the order written."""
    templates = parse_templates(TEXT)
    dl = Metric.of("QS_DL", slack=0.25)
    assert objectives(templates) == [
        ("root.etl", Metric("QS_THR"), 2.0),
        ("root.bi", Metric("QS_AJR"), 1.0),
    ]
    assert constraints(templates) == [
        ("root.etl", dl, 0.1),
        ("root.etl", Metric("QS_UTIL"), -0.25),
        ("root.prod", dl, 0.0),
    ]
    assert required_metrics(templates) == [
        Metric("QS_THR"),
        dl,
        Metric("QS_UTIL"),
        Metric("QS_AJR"),
    ]


def test_qs_vector_reads_the_table_in_entry_order():
    """qs_vector picks (queue, metric label) cells in order, NaN passing through."""
    templates = parse_templates(TEXT)
    table = pd.DataFrame(
        {
            "QS_THR": [-5.0, 0.0, -1.0],
            "QS_DL(slack=0.25)": [0.2, 0.0, math.nan],
            "QS_UTIL": [-0.3, -0.1, 0.0],
            "QS_AJR": [10.0, 20.0, 30.0],
        },
        index=pd.Index(["root.etl", "root.prod", "root.bi"], name="queue"),
    )
    np.testing.assert_array_equal(qs_vector(table, objectives(templates)), [-5.0, 30.0])
    np.testing.assert_array_equal(qs_vector(table, constraints(templates)), [0.2, -0.3, 0.0])


def test_qs_vector_names_a_missing_row_or_column():
    """A table without the template's queue or metric is a clear error."""
    templates = parse_templates(TEXT)
    table = pd.DataFrame({"QS_THR": [1.0]}, index=["root.etl"])
    with pytest.raises(ValidationError, match="no column QS_DL\\(slack=0.25\\)"):
        qs_vector(table, constraints(templates))
    with pytest.raises(ValidationError, match="no row for queue root.bi"):
        qs_vector(table.assign(QS_AJR=1.0), objectives(templates))
