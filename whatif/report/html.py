"""The self-contained ``report.html``: tables and figures embedded as base64 PNG, nothing external."""

from __future__ import annotations

import base64
import html
import math

from whatif.provisioning import ProvisioningAnalysis
from whatif.report import plots
from whatif.report.text import render_text
from whatif.scaleup_check import ScaleUpCheck

_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; display: block; max-width: 100%; overflow-x: auto; }
td:nth-child(2) { white-space: nowrap; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f0f0f0; }
td.bad { background: #fdd; } td.good { background: #dfd; }
img { max-width: 100%; border: 1px solid #eee; }
pre { background: #f7f7f7; padding: 1em; overflow-x: auto; }
"""


def _img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _fmt(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.4g}"


def _summary_table(analysis: ProvisioningAnalysis) -> str:
    rows = []
    for s in analysis.scenarios:
        b = s.bisection
        cluster = s.smallest.cluster.spec() if s.smallest is not None else "none"
        scale = "none" if b.scale is None else f"{b.scale:.4g}"
        rows.append(
            f"<tr><td>{html.escape(s.scenario.label)}</td><td>{s.source}</td><td>{s.n_jobs}</td>"
            f"<td>{scale}</td><td>{html.escape(cluster)}</td><td>{b.status}</td>"
            f"<td>{'yes' if b.monotone else 'NO: ' + ', '.join(f'{f:g}' for f in b.flips)}</td></tr>"
        )
    return (
        "<table><tr><th>scenario</th><th>workload</th><th>jobs</th><th>smallest scale</th>"
        "<th>cluster</th><th>status</th><th>monotone</th></tr>" + "".join(rows) + "</table>"
    )


def _scenario_table(analysis: ProvisioningAnalysis, index: int) -> str:
    s = analysis.scenarios[index]
    met_of = {j: i for i, (*_, j) in enumerate(analysis.thresholds)}
    head = "".join(f"<th>{html.escape(label)}</th>" for label in analysis.labels)
    rows = []
    for r in s.scales:
        cells = []
        for j in range(len(analysis.labels)):
            met = r.met[met_of[j]] if j in met_of else None
            css = {True: "good", False: "bad", None: "bad" if j in met_of else ""}[met]
            spread = f" ± {r.spread[j]:.3g}" if r.spread[j] > 0 else ""
            cells.append(f'<td class="{css}">{_fmt(float(r.mean[j]))}{spread}</td>')
        probe = "" if r.on_grid else " (probe)"
        rows.append(
            f"<tr><td>{r.scale:g}{probe}</td><td>{html.escape(r.cluster.spec())}</td>{''.join(cells)}</tr>"
        )
    return f"<table><tr><th>scale</th><th>cluster</th>{head}</tr>{''.join(rows)}</table>"


def _check_table(check: ScaleUpCheck) -> str:
    rows = "".join(
        f"<tr><td>{row.factor:g}x</td><td>{html.escape(row.recording_cluster)}</td><td>{html.escape(row.qs)}</td><td>{_fmt(row.predicted)}</td>"
        f"<td>{_fmt(row.direct)}</td><td>{'n/a' if math.isnan(row.rel_error) else f'{100 * row.rel_error:.1f}%'}</td></tr>"
        for row in check.table.itertuples()
    )
    return (
        f"<p>SLOs of <code>{html.escape(check.cluster.spec())}</code> predicted from traces recorded on 1/factor of it; "
        f"direct runs: mean of {check.replicates} noisy replicates.</p>"
        "<table><tr><th>factor</th><th>recorded on</th><th>QS</th><th>predicted</th><th>direct</th><th>error</th></tr>"
        f"{rows}</table>"
    )


def render_html(
    analysis: ProvisioningAnalysis,
    *,
    retuned: ProvisioningAnalysis | None = None,
    check: ScaleUpCheck | None = None,
    title: str = "tempo what-if report",
) -> str:
    """The whole report as one HTML page with no external resource."""
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>Cluster at scale 1: <code>{html.escape(analysis.cluster.spec())}</code>; "
        f"{analysis.replicates} replicate(s) per point, seed {analysis.seed}; bisection tolerance "
        f"{100 * analysis.rel_tol:g}% of the scale.</p>",
        "<h2>Smallest cluster meeting every SLO</h2>",
        _summary_table(analysis),
        "<h2>QS versus cluster size</h2>",
        _img(plots.qs_versus_scale(analysis), "QS versus cluster scale"),
    ]
    for i, s in enumerate(analysis.scenarios):
        parts += [f"<h3>{html.escape(s.scenario.label)}</h3>", _scenario_table(analysis, i)]
    if any(s.details for s in analysis.scenarios):
        parts += [
            "<h2>Utilization timeline per queue</h2>",
            _img(plots.usage_timeline(analysis), "utilization timeline"),
            "<h2>Response-time CDFs per queue</h2>",
            _img(plots.response_cdfs(analysis), "response-time CDFs"),
            "<h2>Preemption waste</h2>",
            _img(plots.preemption_waste(analysis), "preemption waste"),
        ]
    if retuned is not None:
        parts += [
            "<h2>Re-tuned configuration</h2>",
            "<p>The configuration re-tuned by <code>tempo optimize</code> for each cluster size.</p>",
            _summary_table(retuned),
            _img(plots.qs_versus_scale(retuned), "QS versus cluster scale, re-tuned"),
        ]
        for i, s in enumerate(retuned.scenarios):
            parts += [
                f"<h3>{html.escape(s.scenario.label)}, re-tuned</h3>",
                _scenario_table(retuned, i),
            ]
    if check is not None:
        parts += ["<h2>Scale-up check</h2>", _check_table(check)]
    parts += [
        "<h2>Text report</h2>",
        f"<pre>{html.escape(render_text(analysis, retuned=retuned, check=check))}</pre>",
        "</body></html>",
    ]
    return "\n".join(parts)
