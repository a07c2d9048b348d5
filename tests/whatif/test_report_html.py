"""report.html from its Jinja2 template, checked as a browser would load it.

Without a browser in CI, the page is parsed strictly (lxml's HTML parser with
recovery off), and each thing a reader would look at is checked: every figure is
a decodable PNG of real size with a caption, every table has the rows and columns
of the data it shows (the same data as report.json), ids are unique, no template
syntax is left, and text from the data is escaped.
"""

from __future__ import annotations

import base64
import json
import struct

import jinja2
import lxml.etree
import lxml.html
import pytest
from test_report import analysis, check, report_dir  # noqa: F401 (fixtures)

from whatif.durations import DAY_S
from whatif.forecast import QueueForecast, SeriesForecast, WorkloadForecast, plan_for
from whatif.report import render_html, write_report
from whatif.report.html import TEMPLATE, environment
from whatif.report.text import forecast_rows


def _strict(page: str) -> lxml.etree._Element:
    """Parse `page` refusing any markup error (lxml.html would silently repair it)."""
    parser = lxml.etree.HTMLParser(recover=False, no_network=True)
    return lxml.etree.fromstring(page.encode("utf-8"), parser)


def _png_size(data: str) -> tuple[int, int]:
    raw = base64.b64decode(data, validate=True)
    assert raw[:8] == b"\x89PNG\r\n\x1a\n" and raw[12:16] == b"IHDR"
    return struct.unpack(">II", raw[16:24])


@pytest.fixture(scope="module")
def page(report_dir):  # noqa: F811 (the fixture)
    return (report_dir / "report.html").read_text(encoding="utf-8")


def test_the_page_is_well_formed_html_with_nothing_left_unrendered(page):
    root = _strict(page)
    assert page.startswith("<!DOCTYPE html>") and root.tag == "html"
    assert root.find("head/meta").get("charset") == "utf-8"
    for token in ("{{", "}}", "{%", "%}", "{#", "#}"):
        assert token not in page, token
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids)), ids


def test_every_figure_is_a_real_png_with_alt_text_and_caption(page):
    document = lxml.html.fromstring(page)
    figures = document.findall(".//figure")
    assert len(figures) == 4  # QS vs size, timeline, CDFs, waste
    for figure in figures:
        (image,) = figure.findall("img")
        prefix, data = image.get("src").split(",", 1)
        assert prefix == "data:image/png;base64"
        width, height = _png_size(data)
        assert width >= 300 and height >= 200, (image.get("alt"), width, height)
        assert image.get("alt") and figure.findtext("figcaption") == image.get("alt")


def test_every_table_shows_the_data_of_report_json(page, report_dir):  # noqa: F811
    """The summary has a row per scenario; each scenario's table a row per scale with a
    column per QS, in report.json's order; the scale-up check a row per check row."""
    document = lxml.html.fromstring(page)
    data = json.loads((report_dir / "report.json").read_text())
    labels = [q["label"] for q in data["qs"]]
    summary = document.get_element_by_id("summary")
    assert len(summary.findall("tr")) == 1 + len(data["scenarios"])
    for k, scenario in enumerate(data["scenarios"], start=1):
        table = document.get_element_by_id(f"scenario-{k}")
        header = [th.text_content() for th in table.find("tr").findall("th")]
        assert header == ["scale", "cluster", *labels]
        rows = table.findall("tr")[1:]
        assert len(rows) == len(scenario["scales"])
        assert all(len(r.findall("td")) == 2 + len(labels) for r in rows)
        shown = [r.findall("td")[0].text_content().split()[0] for r in rows]
        assert shown == [f"{s['scale']:g}" for s in scenario["scales"]]
    check_table = document.get_element_by_id("scale-up-check")
    assert len(check_table.findall("tr")) == 1 + len(data["accuracy"]["rows"])
    for table in document.findall(".//table"):
        assert table.findall("tr")[0].findall("th"), "every table has a header row"


def test_text_from_the_data_is_escaped(analysis):  # noqa: F811
    """A title (or label) with markup shows as text; it never becomes an element."""
    root = _strict(render_html(analysis, title="a <b>bold</b> & <script>x</script> title"))
    assert root.findtext("head/title") == "a <b>bold</b> & <script>x</script> title"
    assert not root.findall(".//b") and not root.findall(".//script")


def test_a_missing_value_fails_the_render_instead_of_printing_nothing():
    """StrictUndefined: a context without a variable raises, so none is left unrendered."""
    with pytest.raises(jinja2.UndefinedError):
        environment().get_template(TEMPLATE).render(title="t")


def _forecast() -> WorkloadForecast:
    series = SeriesForecast(50.0, 70.5, 63.4, 77.7, "STL(weekly)+linear trend")
    sizes = SeriesForecast(300.0, 420.0, 250.0, 650.0, "STL(weekly)+ETS(A,N,N)")
    return WorkloadForecast(
        horizon_s=90 * DAY_S,
        level=0.9,
        history_s=56 * DAY_S,
        plan=plan_for(56 * DAY_S),
        reference=(49 * DAY_S, 56 * DAY_S),
        queues=(
            QueueForecast("root.a", series, sizes, ("root.a: <b>3</b> days had no job",)),
            QueueForecast("root.b", series, sizes),
        ),
    )


def test_the_forecast_table_shows_what_report_json_and_the_terminal_show(analysis, tmp_path):  # noqa: F811
    """With a forecast, the page has its table: the terminal's header, two rows per queue of
    report.json's forecast (now, median, interval, factor, model), and the notes, escaped."""
    forecast = _forecast()
    files = write_report(analysis, tmp_path, forecast=forecast)
    page = files.html.read_text(encoding="utf-8")
    root = _strict(page)
    table = root.xpath("//table[@id='forecast']")[0]
    header, *rows = table.findall("tr")
    assert [th.text for th in header.findall("th")] == forecast_rows(forecast)[0]
    data = json.loads(files.json.read_text())["forecast"]
    assert len(rows) == 2 * len(data["queues"])
    for row, (queue, key) in zip(
        rows, [(q, k) for q in data["queues"] for k in ("jobs_per_day", "job_size_s")], strict=True
    ):
        cells = [td.text for td in row.findall("td")]
        series = queue[key]
        assert cells[0] == queue["queue"] and cells[-1] == series["model"]
        assert cells[2].split()[0] == f"{series['current']:.4g}"
        assert cells[3].split()[0] == f"{series['median']:.4g}"
        assert cells[4] == f"{series['lower']:.4g} .. {series['upper']:.4g}"
        assert cells[5].startswith(f"{series['median'] / series['current']:.2f} (upper ")
    assert "Forecast at 90d" in page and "root.a: <b>3</b> days had no job" in root.xpath(
        "string(//p[@class='note'])"
    )
    assert not root.findall(".//b")
    assert "Forecast at 90d" in root.xpath("string(//pre)"), "the text report starts with it"


def test_without_a_forecast_there_is_no_forecast_section(page):
    assert 'id="forecast"' not in page and "Forecast at" not in page
