"""qs_report: observed (and predicted) QS per queue and each template constraint's status."""

import math
import re

import pytest
from samples import REPO

from tempo.errors import TempoError
from tempo.qs import format_value, qs_report
from tempo.templates import load_templates, parse_templates
from whatif import Cluster, Schedule, UnfinishedJobsError, ValidationError
from whatif.allocation import AllocationDocument, effective_allocation
from whatif.metrics import Window
from whatif.predictor import SchedulerSettings, predict
from whatif.readers import read_trace


def _report(make_trace, templates_text, cluster, **kwargs):
    """qs_report of the `make_trace` schedule with its workload, templates and cluster over [0, 100)."""
    workload, schedule = make_trace()
    return qs_report(
        schedule,
        parse_templates(templates_text),
        window=Window(0, 100),
        cluster=cluster,
        workload=workload,
        **kwargs,
    )


def test_report_marks_constraints_met_and_violated(make_trace, qs_templates_text, small_cluster):
    """p1 (40 <= 32 + 0.25*40) is on time, p2 (90 > 20 + 20) late: prod's DL 50% violates 0%."""
    report = _report(make_trace, qs_templates_text, small_cluster)
    rows = report.constraints.set_index(["queue", "metric"])
    assert rows.loc[("root.prod", "QS_DL(slack=0.25)"), "observed"] == pytest.approx(0.5)
    assert rows.loc[("root.prod", "QS_DL(slack=0.25)"), "observed_met"] is False
    # engineer: AJR 50 s < 60 s met; UTIL -(0.2 * 50)/100 = -0.1, not < -0.1.
    assert rows.loc[("root.engineer", "QS_AJR"), "observed_met"] is True
    assert rows.loc[("root.engineer", "QS_UTIL"), "observed"] == pytest.approx(-0.1)
    assert rows.loc[("root.engineer", "QS_UTIL"), "observed_met"] is False
    assert rows["predicted_met"].isna().all()


def test_report_lists_every_metric_for_every_queue_including_template_queues(
    make_trace, qs_templates_text, small_cluster
):
    """Values cover root, each queue and a template's empty queue, with the default metrics."""
    report = _report(make_trace, qs_templates_text, small_cluster)
    values = report.values.set_index(["queue", "metric"])
    assert set(report.values["queue"]) == {"root", "root.engineer", "root.idle", "root.prod"}
    for label in (
        "QS_AJR",
        "QS_PCT",
        "QS_SLOWDOWN",
        "QS_THR",
        "QS_UTIL",
        "QS_WASTE",
        "QS_DL",
        "QS_ATTAIN",
    ):
        assert ("root", label) in values.index
    assert values.loc[("root.idle", "QS_THR"), "observed"] == 0
    assert values.loc[("root", "QS_AJR"), "unit"] == "s"


def test_report_without_cluster_or_deadlines_leaves_those_metrics_out(make_trace):
    """Resource and deadline metrics appear only when the cluster and deadlines are known."""
    _, schedule = make_trace()
    report = qs_report(schedule, window=Window(0, 100))
    assert set(report.values["metric"]) == {"QS_AJR", "QS_PCT", "QS_SLOWDOWN", "QS_THR"}
    assert report.constraints.empty


def test_template_metric_needing_the_cluster_fails_without_one(make_trace, qs_templates_text):
    """A template on QS_UTIL needs --cluster."""
    workload, schedule = make_trace()
    with pytest.raises(ValidationError, match="need the cluster"):
        qs_report(
            schedule, parse_templates(qs_templates_text), window=Window(0, 100), workload=workload
        )


def test_predicted_column_sits_beside_observed(make_trace, qs_templates_text, small_cluster):
    """With a predicted schedule each value and constraint gets a predicted side."""
    _, faster = make_trace(engineer_finish=30.0)
    report = _report(make_trace, qs_templates_text, small_cluster, predicted=faster)
    values = report.values.set_index(["queue", "metric"])
    assert values.loc[("root.engineer", "QS_AJR"), ["observed", "predicted"]].tolist() == [
        50.0,
        30.0,
    ]
    rows = report.constraints.set_index(["queue", "metric"])
    assert rows.loc[("root.engineer", "QS_UTIL"), "predicted"] == pytest.approx(-0.06)
    assert rows.loc[("root.engineer", "QS_AJR"), "predicted_met"] is True


def _metric_blocks(text: str) -> list[list[str]]:
    """The metric table's blocks of lines (queue names, sides, one line per metric)."""
    table = text.split("\nconstraints")[0].split("\n\n")[1:]
    return [block.splitlines() for block in table]


def _columns(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """(queue, side) -> metric -> shown value, read off the blocks of the metric table."""
    columns = {}
    for names, sides, *rows in _metric_blocks(text):
        queues = names.split()
        labels = sides.split()[1:]
        per_queue = len(labels) // len(queues)
        keys = [
            (q, side) for i, q in enumerate(queues) for side in labels[i * per_queue :][:per_queue]
        ]
        for row in rows:
            metric, *cells = row.split()
            for key, cell in zip(keys, cells, strict=True):
                columns.setdefault(key, {})[metric] = cell
    return columns


def test_text_shows_each_queue_observed_and_predicted_side_by_side(
    make_trace, qs_templates_text, small_cluster
):
    """One table: per queue an observed and a predicted column next to each other, per metric a line."""
    _, faster = make_trace(engineer_finish=30.0)
    report = _report(make_trace, qs_templates_text, small_cluster, predicted=faster)
    text = report.to_text()
    blocks = _metric_blocks(text)
    # Four queues do not fit 100 columns side by side: two blocks of two.
    assert [block[0].split() for block in blocks] == [
        ["root", "root.engineer"],
        ["root.idle", "root.prod"],
    ]
    assert all(block[1].split() == ["metric", *["observed", "predicted"] * 2] for block in blocks)
    columns = _columns(text)
    # root: AJR (40 + 80 + 50) / 3 observed, (40 + 80 + 30) / 3 predicted; engineer 50 | 30.
    assert columns[("root", "observed")]["QS_AJR"] == "56.7s"
    assert columns[("root", "predicted")]["QS_AJR"] == "50.0s"
    assert columns[("root.engineer", "observed")]["QS_AJR"] == "50.0s"
    assert columns[("root.engineer", "predicted")]["QS_AJR"] == "30.0s"
    assert columns[("root.idle", "predicted")]["QS_AJR"] == "-"
    assert columns[("root.prod", "observed")]["QS_THR"] == "-2"
    assert len(columns[("root", "observed")]) == report.values["metric"].nunique()
    # Values line up under their side's header.
    first = blocks[0]
    ajr = next(line for line in first if line.startswith("QS_AJR"))
    ends = [m.end() for m in re.finditer(r"observed|predicted", first[1])]
    assert [m.end() for m in re.finditer(r"\S+", ajr)][1:] == ends


def test_text_wraps_queues_into_blocks_that_fit_the_width(
    make_trace, qs_templates_text, small_cluster
):
    """A narrow width puts the queues in several blocks, each line within it, each queue once."""
    report = _report(make_trace, qs_templates_text, small_cluster, predicted=make_trace()[1])
    blocks = _metric_blocks(report.to_text(width=50))
    assert [block[0].split() for block in blocks] == [
        ["root"],
        ["root.engineer"],
        ["root.idle"],
        ["root.prod"],
    ]
    assert all(len(line) <= 50 for block in blocks for line in block)
    # At 170 columns all four fit in one block.
    assert len(_metric_blocks(report.to_text(width=170))) == 1
    assert all(len(block) == len(blocks[0]) for block in blocks)


def test_to_dict_is_json_ready(make_trace, qs_templates_text, small_cluster):
    """NaN becomes None and the predicted side is dropped when there is no prediction."""
    report = _report(make_trace, qs_templates_text, small_cluster)
    data = report.to_dict()
    assert data["window"] == {"start_s": 0.0, "end_s": 100.0, "length_s": 100.0}
    idle_ajr = next(
        v for v in data["values"] if v["queue"] == "root.idle" and v["metric"] == "QS_AJR"
    )
    assert idle_ajr == {"queue": "root.idle", "metric": "QS_AJR", "unit": "s", "observed": None}
    assert "predicted_met" not in data["constraints"][0]


def _still_running(schedule):
    """`schedule` with e1 (root.engineer, submitted at 0) still running: no finish."""
    jobs = schedule.jobs.copy()
    jobs.loc[jobs["job_id"] == "e1", ["finish_s", "state"]] = [math.nan, "RUNNING"]
    attempts = schedule.attempts.copy()
    attempts.loc[attempts["job_id"] == "e1", ["finish_s", "state"]] = [math.nan, "RUNNING"]
    return Schedule(jobs=jobs, attempts=attempts)


def test_observed_jobs_still_running_are_counted_and_warned_of(make_trace, small_cluster, caplog):
    """An observed trace cut while e1 runs: e1 is left out of engineer's AJR (nothing left to
    measure), and the report and the log say one job was still running."""
    workload, schedule = make_trace()
    report = qs_report(
        _still_running(schedule), window=Window(0, 100), cluster=small_cluster, workload=workload
    )
    values = report.values.set_index(["queue", "metric"])["observed"]
    assert math.isnan(values[("root.engineer", "QS_AJR")])
    assert values[("root", "QS_AJR")] == pytest.approx((40 + 80) / 2)
    assert report.observed_unfinished == 1 and report.to_dict()["observed_unfinished"] == 1
    assert (
        report.to_text()
        .splitlines()[1]
        .startswith("WARNING: 1 job submitted in the window was still running when the trace ended")
    )
    assert "(root.engineer: 1; e.g. e1) was still running" in caplog.text


def test_predicted_jobs_that_never_finish_fail_the_report(make_trace, small_cluster):
    """A predicted schedule with a job that never finished is an error, not a smaller average."""
    workload, schedule = make_trace()
    with pytest.raises(UnfinishedJobsError, match=r"^predicted schedule: 1 job submitted in"):
        qs_report(
            schedule,
            window=Window(0, 100),
            cluster=small_cluster,
            workload=workload,
            predicted=_still_running(schedule),
        )


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (0.125, "fraction", "12.5%"),
        (61.26, "s", "61.3s"),
        (-4.0, "jobs", "-4"),
        (1.234, "ratio", "1.23"),
        (math.nan, "s", "-"),
    ],
)
def test_format_value_uses_the_metric_unit(value, unit, text):
    """Fractions print as %, times in s, counts as integers, NaN as '-'."""
    assert format_value(value, unit) == text


def test_predicted_only_report_when_nothing_was_observed(
    make_trace, qs_templates_text, small_cluster
):
    """Without an observed schedule the report carries only predicted values."""
    workload, schedule = make_trace()
    templates = parse_templates(qs_templates_text)
    report = qs_report(
        None,
        templates,
        window=Window.covering(schedule),
        cluster=small_cluster,
        workload=workload,
        predicted=schedule,
    )
    assert report.values["observed"].isna().all() and report.values["predicted"].notna().any()
    assert report.constraints["observed_met"].isna().all()
    assert "observed" not in report.to_text().split("constraints")[0]
    assert all("observed" not in row for row in report.to_dict()["values"])
    with pytest.raises(TempoError, match="give an observed schedule"):
        qs_report(None, templates, window=Window.covering(schedule))


#: The bundled samples and the clusters they are meant for (benchmarks/make_traces.py SAMPLES).
SAMPLES = {
    "two-tenant": "nodes=24,memory-mb=8192,vcores=8",
    "six-tenant": "nodes=100,memory-mb=8192,vcores=8",
}


@pytest.mark.parametrize("name", SAMPLES)
def test_bundled_sample_reports_observed_and_predicted_for_every_template_queue(name):
    """On each bundled sample with its shipped templates and expert file, every template
    queue has observed and predicted values side by side and each constraint a status."""
    trace = read_trace(REPO / "traces" / name)
    templates = load_templates(REPO / "templates" / name)
    cluster = Cluster.parse(SAMPLES[name])
    allocation = effective_allocation(
        AllocationDocument.from_file(REPO / "configs" / f"{name}-expert.xml")
    )
    predicted = predict(
        trace.workload, allocation, cluster, settings=SchedulerSettings(preemption=True)
    )
    report = qs_report(
        trace.observed,
        templates,
        window=Window.covering(trace.observed),
        cluster=cluster,
        workload=trace.workload,
        predicted=predicted,
    )
    assert report.has_observation and report.has_prediction
    queues = {t.queue for t in templates}
    values = report.values[report.values["queue"].isin(queues)]
    assert set(values["queue"]) == queues
    shown = values[values["metric"].isin(["QS_AJR", "QS_PCT", "QS_THR", "QS_UTIL", "QS_WASTE"])]
    assert len(shown) == 5 * len(queues)
    assert shown[["observed", "predicted"]].notna().all().all()
    root = report.values.set_index(["queue", "metric"]).loc[("root", "QS_AJR")]
    assert not math.isclose(root["observed"], root["predicted"], rel_tol=1e-3)
    table = report.constraints
    assert len(table) == sum(len(t.constraints) for t in templates)
    for side in ("observed", "predicted"):
        measured = table[side].notna()
        # Only root.app's QS_DL has nothing to measure (the six-tenant trace gives its
        # jobs no deadlines and no recurring keys).
        assert measured.sum() >= len(table) - 1
        assert all(isinstance(m, bool) for m in table.loc[measured, f"{side}_met"])
        # ... and a constraint with nothing to measure is never met.
        assert (table.loc[~measured, f"{side}_met"] == False).all()  # noqa: E712
    text = report.to_text()
    blocks = _metric_blocks(text)
    shown_queues = [q for block in blocks for q in block[0].split()]
    assert shown_queues == list(dict.fromkeys(report.values["queue"]))
    assert all(
        block[1].split()[1:] == ["observed", "predicted"] * len(block[0].split())
        for block in blocks
    )
    assert all(len(line) <= 100 for block in blocks for line in block)
    lines = text.splitlines()
    marked = lines[lines.index("constraints") + 1 :]
    assert len(marked) == len(table)
    assert all("observed " in line and ", predicted " in line for line in marked)
