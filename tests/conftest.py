"""Fixtures every test folder shares."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``-n``), compile the predictor's numba kernel once, in the
    controller, before the workers start: otherwise each worker compiles its own copy at
    its first numba test, and so does each CLI subprocess that predicts before one of them
    has written the cache - minutes of CPU each - and the demo and ``auto`` engines pick
    the slower reference engine while the cache is cold. A serial run (a few tests) does
    not compile what it may not need."""
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return
    from whatif.predictor.compiled import kernel_cache_is_warm

    if kernel_cache_is_warm():
        return
    from whatif import Cluster
    from whatif.allocation import AllocationDocument, effective_allocation
    from whatif.predictor import predict
    from whatif.readers import read_trace

    cluster = Cluster.parse("nodes=5,memory-mb=8192,vcores=8")
    document = AllocationDocument.from_file(REPO / "configs" / "contended-expert.xml")
    allocation = effective_allocation(document)
    predict(read_trace(REPO / "traces" / "contended").workload, allocation, cluster, engine="numba")


@pytest.fixture(autouse=True)
def _root_logger_as_found():
    """Each test finds the root logger's level and handlers as pytest set them: the CLI run
    in-process (`-q`, `-v`) sets the root level, which would otherwise leak into whichever
    test runs next in the same worker and hide the warnings `caplog` looks for."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    yield
    root.setLevel(level)
    root.handlers[:] = handlers


@pytest.fixture
def render_in_chromium(tmp_path) -> Callable[..., dict[str, float]]:
    """``render(html, width=1200, height=...)``: load a report page in headless Chromium
    (`benchmarks/screenshot_report.py`), assert that every figure loaded, is laid out
    inside the viewport and is not blank, that no console or page error occurred, and
    that the screenshot shows plot ink; returns the image statistics. Skips the test
    without a Chromium binary."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import screenshot_report
    finally:
        sys.path.pop(0)
    if screenshot_report.chromium_binary() is None:
        pytest.skip("no chromium binary on PATH (apt-get install -y chromium)")

    def render(html: Path, *, width: int = 1200, height: int = 3000) -> dict[str, float]:
        png = tmp_path / f"{html.stem}-{width}x{height}.png"
        try:
            screenshot_report.screenshot(html, png, width=width, height=height)
        except subprocess.CalledProcessError as error:  # pragma: no cover - chromium's stderr
            pytest.fail(f"chromium failed: {error.stderr.decode(errors='replace')[-2000:]}")
        probe = screenshot_report.inspect_figures(html, width=width, height=height)
        assert not screenshot_report.figure_problems(probe), probe
        stats = screenshot_report.image_stats(png)
        assert (stats["width"], stats["height"]) == (width, height)
        assert screenshot_report.looks_rendered(stats), stats
        return stats

    return render
