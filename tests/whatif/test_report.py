"""Provisioning reports: report.json against its schema, a self-contained HTML page, the text table."""

import base64
import json
import re

import jsonschema
import numpy as np
import pandas as pd
import pytest
from samples import map_workload

from whatif import Cluster, EffectiveAllocation, EffectiveQueue, Workload
from whatif.metrics import Metric
from whatif.predictor import NoiseModel, SchedulerSettings
from whatif.provisioning import analyze_provisioning
from whatif.report import REPORT_SCHEMA, REPORT_VERSION, render_text, report_dict, write_report
from whatif.scaleup_check import scale_up_check

CLUSTER = Cluster.parse("nodes=4,memory-mb=2048,vcores=2")
ALLOCATION = EffectiveAllocation(
    root=EffectiveQueue(
        "root", children=(EffectiveQueue("root.a", weight=2.0), EffectiveQueue("root.b"))
    )
)
THRESHOLDS = [("root.a", Metric("QS_AJR"), 40.0), ("root.b", Metric.of("QS_PCT", p=0.9), 60.0, "<")]


def _workload() -> Workload:
    """Two queues, six jobs each, of four to eight 10-20 s one-GB tasks."""
    rng = np.random.default_rng(0)
    jobs = pd.DataFrame(
        {
            "job_id": [f"{q}{i}" for q in "ab" for i in range(6)],
            "queue": [f"root.{q}" for q in "ab" for _ in range(6)],
            "submit_s": [5.0 * i for _ in "ab" for i in range(6)],
        }
    )
    sizes = rng.integers(4, 9, len(jobs))
    return map_workload(jobs, sizes, rng.uniform(10, 20, sizes.sum()))


def _on_the_cluster(run, *args, **options):
    """`run` (`analyze_provisioning` or `scale_up_check`) of `_workload` under `ALLOCATION`
    on `CLUSTER` with `args` and `options`, two replicates on the reference engine."""
    return run(_workload(), ALLOCATION, CLUSTER, *args, replicates=2, engine="reference", **options)


@pytest.fixture(scope="module")
def analysis():
    return _on_the_cluster(
        analyze_provisioning,
        THRESHOLDS,
        scales=(0.5, 1.0, 2.0),
        noise=NoiseModel(jitter_cv=0.2),
        settings=SchedulerSettings(preemption=True),
    )


@pytest.fixture(scope="module")
def check():
    return _on_the_cluster(scale_up_check, [("root.a", Metric("QS_AJR"))], factors=(1, 2))


@pytest.fixture(scope="module")
def report_dir(analysis, check, tmp_path_factory):
    directory = tmp_path_factory.mktemp("report")
    write_report(analysis, directory, check=check, inputs={"trace": "t", "executor": "serial"})
    return directory


def test_report_json_validates_against_its_schema(report_dir):
    """report.json is valid under REPORT_SCHEMA, versioned, and carries every scenario and scale."""
    document = json.loads((report_dir / "report.json").read_text())
    jsonschema.validate(document, REPORT_SCHEMA)
    assert document["version"] == REPORT_VERSION and document["format"] == "tempo-whatif-report"
    scenario = document["scenarios"][0]
    assert {s["scale"] for s in scenario["scales"]} >= {0.5, 1.0, 2.0}
    assert document["thresholds"][1]["op"] == "<"
    assert document["accuracy"]["max_rel_error"].keys() == {"1", "2"}


def test_schema_rejects_a_wrong_version(analysis):
    """The schema pins the version, so an old or future layout fails validation."""
    document = report_dict(analysis)
    document["version"] = REPORT_VERSION + 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, REPORT_SCHEMA)


def test_html_is_self_contained_with_four_png_plots(report_dir):
    """report.html loads nothing from outside and embeds its four figures as base64 PNG."""
    page = (report_dir / "report.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//|file:)""", page)
    assert "<script" not in page and "<link" not in page and "@import" not in page
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 4
    assert all(base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n" for data in images)


def test_write_report_leaves_no_temporary_files(report_dir):
    """Only report.json and report.html are left in the directory."""
    assert sorted(p.name for p in report_dir.iterdir()) == ["report.html", "report.json"]


@pytest.mark.parametrize("previous", [None, b'{"old": true}\n'])
def test_a_report_whose_page_cannot_be_renamed_puts_report_json_back(
    tmp_path, monkeypatch, previous
):
    """report.json is replaced just before report.html's rename: when that rename fails,
    the old report.json is put back (or the new one removed, and the directories made
    for it), so no new report.json is left beside an old or missing report.html."""
    import os

    import whatif.atomic
    from whatif.report import ReportWriteError, write_pages

    directory = tmp_path / "new" / "report"
    if previous is not None:
        directory.mkdir(parents=True)
        (directory / "report.json").write_bytes(previous)
    real = os.replace

    def replace(source, target):
        if str(target).endswith("report.html"):
            raise OSError(5, "Input/output error", str(target))
        return real(source, target)

    monkeypatch.setattr(whatif.atomic.os, "replace", replace)
    with pytest.raises(ReportWriteError) as caught:
        write_pages(directory, {"new": True}, "<html></html>")
    assert caught.value.path == directory / "report.html"
    assert caught.value.reason == "Input/output error"
    if previous is None:
        assert list(tmp_path.iterdir()) == []
    else:
        assert [p.name for p in directory.iterdir()] == ["report.json"]
        assert (directory / "report.json").read_bytes() == previous


def test_text_report_names_the_smallest_cluster(analysis):
    """The terminal table states the bisection's answer for each scenario."""
    text = render_text(analysis)
    assert "Smallest cluster scale meeting every SLO" in text
    assert "root.a:QS_AJR <= 40" in text and "root.b:QS_PCT(p=0.9) < 60" in text


def test_a_text_table_wider_than_the_width_is_split_into_blocks_that_repeat_the_scale(analysis):
    """With a width (the CLI gives the terminal's, 100 in a pipe), a scenario table wider
    than it is split into blocks of SLO columns, each under the scale and cluster columns,
    every line within the width; without one the table stays whole."""

    def table(lines):
        return [line for line in lines if re.match(r"(scale |-----|[0-9.]+\*? )", line)]

    whole = render_text(analysis).splitlines()
    assert max(len(line) for line in table(whole)) > 70
    lines = render_text(analysis, width=70).splitlines()
    assert max(len(line) for line in table(lines)) <= 70
    headers = [line for line in lines if re.match(r"scale +cluster ", line)]
    assert len(headers) == 2
    assert "root.a:QS_AJR <= 40" in headers[0] and "root.b:QS_PCT(p=0.9) < 60" in headers[1]
    rows = [line for line in whole if line.startswith("0.5 ")]
    assert len([line for line in lines if line.startswith("0.5 ")]) == 2 * len(rows)


@pytest.mark.slow
def test_report_renders_with_visible_plots_in_headless_chromium(report_dir, render_in_chromium):
    """Headless Chromium renders report.html into a screenshot with plot ink and color."""
    render_in_chromium(report_dir / "report.html", width=1200, height=3000)


def _one_node_analysis(status: str):
    """Two scales of one node each, both meeting the SLO (one QS NaN throughout)."""
    from whatif.provisioning import (
        BisectionResult,
        ProvisioningAnalysis,
        ScaleResult,
        ScenarioResult,
        WorkloadScenario,
    )

    cluster = Cluster.parse("memory-mb=1024,vcores=1")
    scales = tuple(
        ScaleResult(s, cluster, np.array([np.nan, 1.0]), np.array([np.nan, 0.0]), (None,), True)
        for s in (0.5, 1.0)
    )
    bisection = BisectionResult(0.5, None, status, ((0.5, True), (1.0, True)))
    return ProvisioningAnalysis(
        cluster,
        (0.5, 1.0),
        ("root.a:QS_AJR", "root.b:QS_AJR"),
        (("root.a", "QS_AJR", 1.0, "<=", 0),),
        (ScenarioResult(WorkloadScenario(), "trace", 1, scales, bisection),),
        1,
        0,
        0.02,
    )


def test_a_qs_with_nothing_measured_still_plots():
    """A QS that is NaN at every scale leaves its panel empty instead of failing the figure."""
    from whatif.report import plots

    assert plots.qs_versus_scale(_one_node_analysis("below_min"))[:4] == b"\x89PNG"


def test_the_smallest_cluster_is_not_called_an_upper_bound():
    """Met at one node, where halving can build nothing smaller: the answer is that
    cluster, not "at most" a scale (as when halving stops at the smallest scale allowed)."""
    text = render_text(_one_node_analysis("smallest_cluster"))
    assert "0.5 (memory-mb=1024,vcores=1): the smallest cluster meets them" in text
    assert "at most" not in text
    assert "at most 0.5" in render_text(_one_node_analysis("below_min"))


def test_plots_draw_cluster_sizes_and_mark_the_recommended_cluster(analysis):
    """QS panels put the cluster in nodes (its node size on the axis), not a scale index,
    and mark the cluster as given and the smallest meeting every SLO; the timeline shows
    that recommendation too."""
    from whatif.report import plots

    scenario = analysis.scenarios[0]
    assert scenario.smallest is not None
    recommended = plots.recommendation(scenario)
    assert (
        recommended == f"smallest meeting every SLO: {len(scenario.smallest.cluster.nodes)} nodes"
    )
    figure = plots.qs_versus_size_figure(analysis)
    for ax in figure.axes:
        assert ax.get_xlabel() == "cluster size (nodes of 2048 MB, 2 vcores)"
        assert [t.get_text() for t in ax.get_xticklabels()] == ["2", "4", "8"]
        assert ax.get_ylabel() == "seconds"
    labels = {line.get_label() for line in figure.axes[0].get_lines()}
    assert {recommended, "as given: 4 nodes"} <= labels
    timeline = plots.usage_timeline_figure(analysis)
    assert recommended in {line.get_label() for line in timeline.axes[0].get_lines()}
    assert timeline.axes[0].get_title().endswith("on 4 nodes")
