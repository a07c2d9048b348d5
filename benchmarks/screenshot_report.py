"""Render a report.html in headless Chromium and check that its plots are visible.

`screenshot` and `image_stats` judge the page as pixels; `inspect_figures` and
`figure_problems` judge each figure in the live page (loaded, laid out inside the
viewport, not blank) and collect console errors.

    python benchmarks/screenshot_report.py REPORT_DIR [--png out.png] [--width 1400 --height 5000]

Takes a full-height screenshot with a fresh profile and no network (Debian's
``chromium``; ``apt-get install -y chromium``), then prints the PNG's size, the
pixel standard deviation and the fraction of non-white pixels. Exits 1 when the
page looks blank (almost all white or uniform), 2 when no chromium binary exists.
"""

from __future__ import annotations

import argparse
import html as html_module
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

BINARIES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def chromium_binary() -> str | None:
    """The first Chromium-like browser on PATH, or None."""
    return next((path for name in BINARIES if (path := shutil.which(name))), None)


#: Headless Chromium with nothing of its own running: no sandbox (root in CI), GPU,
#: network, updates, sync or first-run page.
_HEADLESS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def screenshot(html: Path, png: Path, *, width: int = 1400, height: int = 5000) -> None:
    """Render `html` headless into `png` (a fresh user-data dir, no network, no GPU)."""
    binary = chromium_binary()
    if binary is None:
        raise FileNotFoundError("no chromium binary on PATH (apt-get install -y chromium)")
    with tempfile.TemporaryDirectory(prefix="tempo-chromium-") as profile:
        subprocess.run(
            [
                binary,
                *_HEADLESS,
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                f"--screenshot={png}",
                f"--window-size={width},{height}",
                html.resolve().as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )


#: Injected into a copy of the page (reports carry no script of their own): records console
#: errors and uncaught errors from the start, and after load every <img>'s state, box and
#: ink (share of non-white pixels), as JSON in a <pre> that ``--dump-dom`` prints.
_PROBE = """<script>
(function () {
  var errors = [];
  var error = console.error;
  console.error = function () { errors.push(Array.from(arguments).join(" ")); error.apply(console, arguments); };
  window.addEventListener("error", function (e) { errors.push(String(e.message || e.target && e.target.src || e)); }, true);
  window.addEventListener("load", function () {
    var figures = Array.from(document.images).map(function (img) {
      var box = img.getBoundingClientRect(), ink = 0;
      try {
        var c = document.createElement("canvas");
        c.width = img.naturalWidth; c.height = img.naturalHeight;
        var g = c.getContext("2d"); g.drawImage(img, 0, 0);
        var d = g.getImageData(0, 0, c.width, c.height).data, n = 0;
        for (var i = 0; i < d.length; i += 4) { if (Math.min(d[i], d[i + 1], d[i + 2]) < 240) n++; }
        ink = n / (d.length / 4);
      } catch (e) { errors.push("probe: " + e); }
      return {id: img.id, complete: img.complete, natural: [img.naturalWidth, img.naturalHeight],
              box: [box.left, box.top, box.width, box.height], ink: ink};
    });
    var out = document.createElement("pre");
    out.id = "tempo-probe";
    out.textContent = JSON.stringify({viewport: [window.innerWidth, window.innerHeight],
                                      scroll_width: document.documentElement.scrollWidth,
                                      figures: figures, errors: errors});
    document.body.appendChild(out);
  });
})();
</script>"""


def inspect_figures(html: Path, *, width: int = 1400, height: int = 5000) -> dict:
    """Load `html` headless with `_PROBE` injected and return what it saw: ``viewport``,
    ``scroll_width``, per figure ``complete``/``natural``/``box``/``ink``, and the
    console and page ``errors``."""
    binary = chromium_binary()
    if binary is None:
        raise FileNotFoundError("no chromium binary on PATH (apt-get install -y chromium)")
    page = html.read_text(encoding="utf-8")
    head = page.find("<head>")
    if head < 0:
        raise ValueError(f"{html}: no <head> to put the probe in")
    with tempfile.TemporaryDirectory(prefix="tempo-chromium-") as work:
        probed = Path(work) / html.name
        probed.write_text(page[: head + 6] + _PROBE + page[head + 6 :], encoding="utf-8")
        result = subprocess.run(
            [
                binary,
                *_HEADLESS,
                f"--user-data-dir={Path(work) / 'profile'}",
                f"--window-size={width},{height}",
                "--virtual-time-budget=5000",
                "--dump-dom",
                probed.resolve().as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    dom = result.stdout.decode("utf-8", errors="replace")
    start = dom.find('<pre id="tempo-probe">')
    if start < 0:
        raise ValueError(f"{html}: the probe did not run (no load event?)")
    text = dom[start + len('<pre id="tempo-probe">') : dom.index("</pre>", start)]
    return json.loads(html_module.unescape(text))


def figure_problems(probe: dict, *, min_ink: float = 0.01) -> list[str]:
    """What `inspect_figures` saw wrong: a console or page error, a figure not loaded,
    not laid out, outside the viewport's width, or blank; empty when all is well."""
    problems = [f"error: {e}" for e in probe["errors"]]
    viewport_width = probe["viewport"][0]
    if not probe["figures"]:
        problems.append("no figure on the page")
    for f in probe["figures"]:
        left, _top, width, height = f["box"]
        name = f["id"] or "an image"
        if not f["complete"] or min(f["natural"]) <= 0:
            problems.append(f"{name}: not loaded")
        elif width <= 0 or height <= 0:
            problems.append(f"{name}: not laid out (box {width:.0f}x{height:.0f})")
        elif left < 0 or left + width > viewport_width + 1:
            problems.append(
                f"{name}: outside the viewport ({left:.0f}..{left + width:.0f} of {viewport_width})"
            )
        elif f["ink"] < min_ink:
            problems.append(f"{name}: blank ({100 * f['ink']:.2f}% ink)")
    return problems


def image_stats(png: Path) -> dict[str, float]:
    """Width, height, pixel standard deviation and the non-white fraction of `png`."""
    pixels = np.asarray(Image.open(png).convert("RGB"), dtype=float)
    non_white = float((pixels.min(axis=2) < 240).mean())
    return {
        "width": pixels.shape[1],
        "height": pixels.shape[0],
        "std": float(pixels.std()),
        "non_white": non_white,
        "colored": float((pixels.max(axis=2) - pixels.min(axis=2) > 60).mean()),
    }


def looks_rendered(stats: dict[str, float]) -> bool:
    """Plots drawn: enough ink, variance, and colored (plot-line) pixels."""
    return stats["std"] > 10 and stats["non_white"] > 0.02 and stats["colored"] > 0.002


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report_dir", type=Path)
    parser.add_argument("--png", type=Path, default=None)
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=5000)
    args = parser.parse_args()
    if chromium_binary() is None:
        print("no chromium binary on PATH: apt-get install -y chromium", file=sys.stderr)
        return 2
    png = args.png or args.report_dir / "report.png"
    screenshot(args.report_dir / "report.html", png, width=args.width, height=args.height)
    stats = image_stats(png)
    print(f"screenshot: {png}")
    for key, value in stats.items():
        print(f"{key}: {value:.4g}")
    ok = looks_rendered(stats)
    print("plots visible" if ok else "page looks blank")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
