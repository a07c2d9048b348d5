"""Render a report.html in headless Chromium and check that its plots are visible.

    python benchmarks/screenshot_report.py REPORT_DIR [--png out.png] [--width 1400 --height 5000]

Takes a full-height screenshot with a fresh profile and no network (Debian's
``chromium``; ``apt-get install -y chromium``), then prints the PNG's size, the
pixel standard deviation and the fraction of non-white pixels. Exits 1 when the
page looks blank (almost all white or uniform), 2 when no chromium binary exists.
"""

from __future__ import annotations

import argparse
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


def screenshot(html: Path, png: Path, *, width: int = 1400, height: int = 5000) -> None:
    """Render `html` headless into `png` (a fresh user-data dir, no network, no GPU)."""
    binary = chromium_binary()
    if binary is None:
        raise FileNotFoundError("no chromium binary on PATH (apt-get install -y chromium)")
    with tempfile.TemporaryDirectory(prefix="tempo-chromium-") as profile:
        subprocess.run(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
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
