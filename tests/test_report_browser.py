"""The headless-browser check every report page goes through catches what it is for: a
figure that does not load, one wider than the viewport, a blank one, a console error."""

from __future__ import annotations

import base64
import io
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import screenshot_report  # noqa: E402

sys.path.pop(0)


def _png(width: int, height: int, *, ink: bool) -> str:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (width, height), "white")
    if ink:
        ImageDraw.Draw(image).rectangle((10, 10, width - 10, height - 10), fill="navy")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def test_figure_problems_names_each_fault():
    """Errors, unloaded, unlaid-out, overflowing and blank figures are each reported."""
    probe = {
        "viewport": [1200, 800],
        "errors": ["Uncaught TypeError: x is undefined"],
        "figures": [
            {"id": "ok", "complete": True, "natural": [10, 10], "box": [0, 0, 10, 10], "ink": 0.5},
            {"id": "broken", "complete": True, "natural": [0, 0], "box": [0, 0, 0, 0], "ink": 0},
            {"id": "hidden", "complete": True, "natural": [9, 9], "box": [0, 0, 0, 0], "ink": 1},
            {"id": "wide", "complete": True, "natural": [9, 9], "box": [0, 0, 1500, 9], "ink": 1},
            {"id": "blank", "complete": True, "natural": [9, 9], "box": [0, 0, 9, 9], "ink": 0.0},
        ],
    }
    problems = screenshot_report.figure_problems(probe)
    assert problems[0] == "error: Uncaught TypeError: x is undefined"
    assert [p.split(":")[0] for p in problems[1:]] == ["broken", "hidden", "wide", "blank"]


@pytest.mark.slow
def test_the_browser_probe_sees_a_broken_page(tmp_path):
    """In Chromium: a good figure passes; a corrupt one, a blank one, one forced wider than
    the viewport and a console error are all caught."""
    if screenshot_report.chromium_binary() is None:
        pytest.skip("no chromium binary on PATH (apt-get install -y chromium)")
    good, blank = _png(300, 200, ink=True), _png(300, 200, ink=False)
    page = tmp_path / "report.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
        f'<img id="good" src="data:image/png;base64,{good}">'
        f'<img id="blank" src="data:image/png;base64,{blank}">'
        f'<img id="wide" style="width:3000px" src="data:image/png;base64,{good}">'
        '<img id="corrupt" src="data:image/png;base64,AAAA">'
        '<script>console.error("boom")</script></body></html>'
    )
    probe = screenshot_report.inspect_figures(page, width=1200, height=800)
    problems = screenshot_report.figure_problems(probe)
    assert "error: boom" in problems
    named = {p.split(":")[0] for p in problems}
    assert {"blank", "wide", "corrupt"} <= named and "good" not in named
