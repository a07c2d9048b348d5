"""The QS template grammar: good files parse to the expected values, bad ones fail at the right place."""

import pytest

from tempo import TemplateSyntaxError
from tempo.templates import Constraint, QSTemplate, SourceLocation, parse_templates
from whatif.metrics import Metric

ETL = """\
# ETL must keep deadlines and the cluster busy
QUEUE root.etl
OPTIMIZE QS_THR;
CONSTRAINT QS_DL(slack=25%) < 10% AND QS_UTIL < -25%;
PRIORITY 2;
"""


def _error(text: str) -> TemplateSyntaxError:
    with pytest.raises(TemplateSyntaxError) as info:
        parse_templates(text, "etl.qs")
    return info.value


def test_paper_example_parses_to_values():
    """The paper's ETL template becomes one QSTemplate with fractions and locations."""
    [template] = parse_templates(ETL, "etl.qs")
    assert template == QSTemplate(
        queue="root.etl",
        optimize=Metric("QS_THR"),
        constraints=(
            Constraint(Metric.of("QS_DL", slack=0.25), "<", 0.1, SourceLocation("etl.qs", 4, 12)),
            Constraint(Metric("QS_UTIL"), "<", -0.25, SourceLocation("etl.qs", 4, 39)),
        ),
        priority=2.0,
        location=SourceLocation("etl.qs", 2, 1),
    )


def test_several_queues_comments_and_case():
    """Keywords, metric names and units are case-insensitive; # and -- start comments."""
    text = """
    queue root.bi;   -- best effort
    optimize qs_ajr;
    Queue engineer   # a bare leaf name means root.engineer
    Constraint qs_pct(P=99%) <= 2 H;
    """
    bi, eng = parse_templates(text)
    assert (bi.queue, bi.optimize, bi.constraints, bi.priority) == (
        "root.bi",
        Metric("QS_AJR"),
        (),
        1.0,
    )
    assert eng.queue == "root.engineer" and eng.optimize is None
    assert eng.constraints[0].metric == Metric.of("QS_PCT", p=0.99)
    assert (eng.constraints[0].op, eng.constraints[0].threshold) == ("<=", 7200.0)


@pytest.mark.parametrize(
    ("written", "seconds"),
    [("90", 90.0), ("90s", 90.0), ("1.5 min", 90.0), ("2h", 7200.0), ("0.5 hours", 1800.0)],
)
def test_time_thresholds_convert_to_seconds(written, seconds):
    """Thresholds of time metrics take s, min or h (seconds when bare)."""
    [template] = parse_templates(f"QUEUE a CONSTRAINT QS_AJR < {written};")
    assert template.constraints[0].threshold == pytest.approx(seconds)


def test_count_and_ratio_thresholds_are_plain_numbers():
    """QS_THR and QS_SLOWDOWN thresholds have no unit."""
    [template] = parse_templates("QUEUE a CONSTRAINT QS_THR < -20 AND QS_SLOWDOWN <= 1.5;")
    assert [c.threshold for c in template.constraints] == [-20.0, 1.5]


def test_all_parameter_kinds():
    """Percent, duration, word and time-of-day parameters convert to the metric's values."""
    text = """QUEUE root.mv
    OPTIMIZE QS_FAIR(share=30%, stage=reduce, window=45min);
    CONSTRAINT QS_DL(deadline=09:00, slack=50%) < 5% AND QS_ATTAIN(deadline=NEXT) < -90%;
    """
    [template] = parse_templates(text)
    assert template.optimize == Metric.of("QS_FAIR", share=0.3, stage="reduce", window=2700.0)
    assert template.constraints[0].metric == Metric.of("QS_DL", deadline="09:00", slack=0.5)
    assert template.constraints[1].metric == Metric.of("QS_ATTAIN", deadline="next")
    assert template.constraints[1].threshold == pytest.approx(-0.9)


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("+1h", "+1h"),
        ("+60min", "+1h"),
        ("+ 30m", "+30min"),
        ("+90", "+90s"),
        ("+1.5 hours", "+90min"),
        ("+1d", "+1d"),
        ("+2H", "+2h"),
    ],
)
def test_deadline_after_submission(written, canonical):
    """The paper's "a deadline of 1 hour": deadline=+1h is each job's submission plus 1 h, in
    any duration form, written back in one canonical form."""
    text = f"""QUEUE b
    CONSTRAINT QS_DL(slack=0%, deadline={written}) <= 5% AND QS_ATTAIN(deadline={written}) <= -95%;
    """
    [template] = parse_templates(text)
    assert template.constraints[0].metric == Metric.of("QS_DL", deadline=canonical)
    assert template.constraints[0].metric.label == f"QS_DL(deadline={canonical})"
    assert template.constraints[1].metric == Metric.of("QS_ATTAIN", deadline=canonical)


def test_empty_file_has_no_templates():
    """A file of comments only holds no template."""
    assert parse_templates("# nothing yet\n-- still nothing\n") == []


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        (
            "QUEUE root.etl\nOPTIMIZE QS_THR;\nCONSTRAINT QS_DL(slack=25%) > 10%;",
            3,
            29,
            "expected '<' or '<=' after metric QS_DL(slack=0.25), got '>'",
        ),
        (
            "OPTIMIZE QS_THR;",
            1,
            1,
            "expected QUEUE (every clause follows a QUEUE line), got 'OPTIMIZE'",
        ),
        ("QUEUE", 1, 6, "expected a queue name after QUEUE, got end of file"),
        ("QUEUE root.;", 1, 12, "expected a queue name part after '.', got ';'"),
        ("QUEUE a\nOPTIMIZE QS_FAST;", 2, 10, "expected a QS metric (QS_AJR, QS_DL"),
        ("QUEUE a\nOPTIMIZE QS_AJR", 2, 16, "expected ';' after OPTIMIZE QS_AJR, got end of file"),
        (
            "QUEUE a\nOPTIMIZE QS_AJR;\nOPTIMIZE QS_THR;",
            3,
            1,
            "second OPTIMIZE for queue root.a (first at line 2)",
        ),
        (
            "QUEUE a\nPRIORITY 2;\nPRIORITY 3;\nOPTIMIZE QS_THR;",
            3,
            1,
            "second PRIORITY for queue root.a (first at line 2)",
        ),
        ("QUEUE a\nPRIORITY 0;", 2, 10, "expected a positive number after PRIORITY, got '0'"),
        ("QUEUE a\nPRIORITY high;", 2, 10, "expected a number after PRIORITY, got 'high'"),
        (
            "QUEUE a\nPRIORITY 2;",
            2,
            12,
            "expected OPTIMIZE or CONSTRAINT for queue root.a, got end of file",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_AJR;\nOPTIMISE QS_THR;",
            3,
            1,
            "expected OPTIMIZE, CONSTRAINT, PRIORITY or QUEUE, got 'OPTIMISE'",
        ),
        (
            "QUEUE a\nCONSTRAINT QS_DL < 0.1;",
            2,
            20,
            "expected a percentage such as 10% for the threshold of QS_DL, got '0.1'",
        ),
        (
            "QUEUE a\nCONSTRAINT QS_AJR < 10%;",
            2,
            21,
            "expected a duration in s, m/min, h or d for the threshold of QS_AJR, got '10%'",
        ),
        (
            "QUEUE a\nCONSTRAINT QS_THR < 10 min;",
            2,
            21,
            "expected a plain number for the threshold of QS_THR (in jobs), got '10min'",
        ),
        (
            "QUEUE a\nCONSTRAINT QS_AJR < fast;",
            2,
            21,
            "expected a number after QS_AJR <, got 'fast'",
        ),
        (
            "QUEUE a\nCONSTRAINT QS_AJR < 10 QS_THR < 1;",
            2,
            24,
            "expected ';' or AND after constraint QS_AJR < 10, got 'QS_THR'",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(slack=-5%);",
            2,
            22,
            "QS_DL(slack): expected a value in [0, inf], got -0.05",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(slack=0.25);",
            2,
            22,
            "expected a percentage such as 10% for QS_DL parameter slack, got '0.25'",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(gamma=25%);",
            2,
            16,
            "expected a parameter of QS_DL (slack, deadline, window), got 'gamma'",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(slack=5%, slack=6%);",
            2,
            26,
            "parameter 'slack' of QS_DL given twice",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(slack 5%);",
            2,
            22,
            "expected '=' after parameter slack, got '5'",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(slack=5% deadline=next);",
            2,
            25,
            "expected ',' or ')' between parameters of QS_DL, got 'deadline'",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(deadline=25:00);",
            2,
            25,
            "QS_DL(deadline): expected one of auto, column, next, a time of day HH:MM or a "
            "duration after submission such as +1h, got '25:00'",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(deadline=5%);",
            2,
            25,
            "expected one of auto, column, next, a time of day HH:MM or a duration after "
            "submission such as +1h for QS_DL parameter deadline, got '5'",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(deadline=1h);",
            2,
            25,
            "expected one of auto, column, next, a time of day HH:MM or a duration after "
            "submission such as +1h for QS_DL parameter deadline, got '1'",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(deadline=+h);",
            2,
            26,
            "expected a duration after '+' for QS_DL parameter deadline (such as +1h, +30m or "
            "+1d), got 'h'",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(deadline=+);",
            2,
            26,
            "expected a duration after '+' for QS_DL parameter deadline (such as +1h, +30m or "
            "+1d), got ')'",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_ATTAIN(deadline=+5%);",
            2,
            30,
            "expected a duration in s, m/min, h or d after '+' for QS_ATTAIN parameter deadline, "
            "got '5%'",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(deadline=+2 weeks);",
            2,
            28,
            "expected a duration unit s, m/min, h or d after '+2' for QS_DL parameter deadline, "
            "got 'weeks'",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_DL(deadline=+0h);",
            2,
            25,
            "QS_DL(deadline): expected a duration > 0 after '+', such as +1h, +30m, +90s or +1d",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_AJR(window=+1h);",
            2,
            24,
            "expected a number for QS_AJR parameter window, got '+'",
        ),
        ("QUEUE a\nOPTIMIZE QS_FAIR;", 2, 10, "QS_FAIR: parameter 'share' is required"),
        (
            "QUEUE a\nOPTIMIZE QS_PCT(p=120%);",
            2,
            19,
            "QS_PCT(p): expected a value in [0, 1], got 1.2",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_AJR(window=10%);",
            2,
            24,
            "expected a duration in s, m/min, h or d for QS_AJR parameter window, got '10%'",
        ),
        ("QUEUE a\nOPTIMIZE QS_AJR(;", 2, 17, "expected a parameter of QS_AJR (window), got ';'"),
        ("QUEUE a\n  OPTIMIZE QS_AJR; $", 2, 20, "unexpected character '$'"),
        (
            "QUEUE a\nOPTIMIZE QS_THR;\nCONSTRAINT QS_AJR < -10min;",
            3,
            21,
            "QS_AJR < -10min can never be met: QS_AJR is a time, 0 or more",
        ),
        (
            "QUEUE a\nOPTIMIZE QS_THR;\nCONSTRAINT QS_PCT(p=90%) < 0s;",
            3,
            28,
            "QS_PCT(p=0.9) < 0s can never be met: QS_PCT is a time, 0 or more",
        ),
    ],
)
def test_errors_name_file_line_column_and_what_was_expected(text, line, column, message):
    """Each malformed template fails at the exact token with what was expected there."""
    error = _error(text)
    assert (error.path, error.line, error.column) == ("etl.qs", line, column)
    assert str(error).startswith(f"etl.qs:{line}:{column}: {message}")
