"""Self-contained HTML release report (issue 6).

One file, readable offline: figures are matplotlib PNGs (Agg backend) embedded as base64
``data:`` URIs, tables are plain HTML, the only style is an inline ``<style>`` block.

The report shows aggregate figures only. It never prints a quasi-identifier value of a class
smaller than k: the only category labels it prints come from breakdowns in which every shown
category holds at least k records (smaller ones are pooled as "other (n < k)"), and areas are
named only when they hold at least k released records.
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import html
import io
import math
import os
import pickle
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dbt_deid.errors import DataError
from dbt_deid.report.risk_utility import risk_utility_section
from dbt_deid.risk.assessment import RiskAssessment
from dbt_deid.risk.diagnostics import OTHER, binned_histogram

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: A folder of drawn figures by content, read before drawing one (opt-in; unset: every figure
#: is drawn). For builds that draw the same figures again: the test suite builds the same
#: release dozens of times, and drawing its nine figures (and importing matplotlib) is most of
#: the report's time (docs/performance.md, "The report step, session 4").
FIGURE_CACHE_ENV = "DBT_DEID_FIGURE_CACHE"

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;
max-width:72em;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{font-size:1.25em;border-bottom:1px solid #ccc;padding-bottom:.2em;
margin-top:1.8em}table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;
padding:.25em .6em;text-align:right}th{background:#f3f3f3}td.l,th.l{text-align:left}
.ok{color:#14682a;font-weight:bold}.bad{color:#a11;font-weight:bold}.note{color:#555;
font-size:.92em}img{max-width:100%;height:auto}td{overflow-wrap:anywhere}
.wrap{max-width:100%;overflow-x:auto}.todo{background:#fff4e5;border-left:4px solid #c60;
padding:.4em .8em}.todo li{margin:.2em 0}
"""

#: Readable headers for the report's tables (the frames keep their column names).
_LABELS = {
    "column_name": "column", "suppressed_cells": "suppressed cells",
    "share_cells_suppressed": "share of cells suppressed",
    "records_with_suppression": "records with a suppressed value",
    "share_records_with_suppression": "share of records with a suppressed value",
    "suppression_entropy": "suppression entropy (bits)", "smallest_class": "smallest class",
    "suppressed_share": "suppressed", "missing_share": "missing in source",
}


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _fmt(value: Any) -> str:
    if value is None:
        return "&ndash;"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return "&ndash;"
        if v == int(v) and abs(v) >= 1:
            return f"{int(v):,}"
        return f"{v:.4g}"
    return _esc(value)


def _pct(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "&ndash;"
    return f"{100.0 * float(value):.2f}%"


def _table(frame: pd.DataFrame, pct: Sequence[str] = (), left: Sequence[str] = ()) -> str:
    head = "".join(
        f'<th class="{"l" if c in left else ""}">{_esc(_LABELS.get(str(c), c))}</th>'
        for c in frame.columns
    )
    rows = []
    for rec in frame.itertuples(index=False):
        cells = []
        for c, v in zip(frame.columns, rec, strict=True):
            text = _pct(v) if c in pct else _fmt(v)
            cells.append(f'<td class="{"l" if c in left else ""}">{text}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<div class="wrap"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _kv(rows: Iterable[tuple[str, str]]) -> str:
    body = "".join(f'<tr><th class="l">{_esc(k)}</th><td>{v}</td></tr>' for k, v in rows)
    return f'<div class="wrap"><table><tbody>{body}</tbody></table></div>'


@cache
def _drawing_version() -> bytes:
    """What a drawn figure depends on besides its data: this module's code and matplotlib's
    version."""
    return Path(__file__).read_bytes() + version("matplotlib").encode()


def _figure(kind: str, data: tuple[Any, ...], draw: Callable[[], str]) -> str:
    """``draw()`` (an ``<img>`` tag), or the tag drawn before from equal ``data`` when
    :data:`FIGURE_CACHE_ENV` names a folder. The key is a SHA-256 of the pickled data with
    ``kind`` and :func:`_drawing_version`: equal pickles are equal data, so a hit is the figure
    this data draws. Figures hold aggregate figures only (risk distributions, class-size bins,
    shares per column), as the report does."""
    folder = os.environ.get(FIGURE_CACHE_ENV)
    if not folder:
        return draw()
    digest = hashlib.sha256(_drawing_version())
    digest.update(pickle.dumps((kind, data), protocol=4))
    path = Path(folder) / f"{kind}-{digest.hexdigest()}.html"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        pass
    tag = draw()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    partial.write_text(tag, encoding="utf-8")
    os.replace(partial, path)  # atomic: concurrent builds read a whole figure or none
    return tag


def _subplots(width: float, height: float) -> tuple[Figure, Any]:
    """A figure with one axes on the Agg canvas, without pyplot: no figure manager to
    register and close, and pyplot's import (its backend set-up and colormap registry) is not
    paid by the dbt process that writes the report (docs/performance.md, "The report step,
    session 4"). The pixels are those of ``pyplot.subplots`` on the Agg backend. matplotlib is
    imported here, when a figure is drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig, fig.subplots()


def _png(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="figure" src="data:image/png;base64,{data}">'


def _cdf_figure(a: RiskAssessment) -> str:
    x = np.concatenate([[0.0], a.cdf["risk"].to_numpy()])
    y = np.concatenate([[0.0], a.cdf["cumulative_share"].to_numpy()])
    exact = None
    if a.exact_cdf is not None:
        exact = (np.concatenate([[0.0], a.exact_cdf["risk"].to_numpy()]),
                 np.concatenate([[0.0], a.exact_cdf["cumulative_share"].to_numpy()]))
    return _figure("cdf", (x, y, exact, a.tau), lambda: _draw_cdf(x, y, exact, a.tau))


def _draw_cdf(x: np.ndarray, y: np.ndarray, exact: tuple[np.ndarray, np.ndarray] | None,
              tau: float) -> str:
    fig, ax = _subplots(7, 3.6)
    ax.step(x, y, where="post", label="class = same published values")
    if exact is not None:
        ax.step(*exact, where="post", linestyle="--", label="exact (consistent records)")
    ax.axvline(tau, color="#a11", linestyle=":", label=f"tau = {tau:.3g}")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("record re-identification risk 1/f")
    ax.set_ylabel("share of records at or below")
    ax.set_title("Cumulative distribution of record risk (El Emam et al. 2009 (CJHP) Figure 4)")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    return _png(fig)


def _histogram_figure(binned: pd.DataFrame, k: int) -> str:
    data = (binned["bin"].tolist(), binned["records"].to_numpy(), k)
    return _figure("histogram", data, lambda: _draw_histogram(binned, k))


def _draw_histogram(binned: pd.DataFrame, k: int) -> str:
    fig, ax = _subplots(7, 3.2)
    colors = ["#c44" if i < k - 1 else "#48a" for i in range(len(binned))]
    ax.bar(range(len(binned)), binned["records"], color=colors)
    ax.set_xticks(range(len(binned)), binned["bin"], rotation=45, ha="right", fontsize=8)
    ax.set_xlabel("equivalence class size (red: below k)")
    ax.set_ylabel("records")
    ax.set_title("Records by class size")
    return _png(fig)


def _suppression_figure(sup: pd.DataFrame) -> str:
    data = (sup["column"].tolist(), sup["suppressed_share"].to_numpy(),
            sup["missing_share"].to_numpy())
    return _figure("suppression", data, lambda: _draw_suppression(sup))


def _draw_suppression(sup: pd.DataFrame) -> str:
    fig, ax = _subplots(7, 0.5 + 0.35 * len(sup))
    y = np.arange(len(sup))
    ax.barh(y, 100 * sup["suppressed_share"], color="#48a", label="suppressed")
    ax.barh(y, 100 * sup["missing_share"], left=100 * sup["suppressed_share"], color="#bbb",
            label="missing in source")
    ax.set_yticks(y, sup["column"], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("% of records")
    ax.legend(fontsize=8)
    ax.set_title("Suppression and missingness by column")
    return _png(fig)


def _safe_breakdown(frame: pd.DataFrame, by: str, k: int) -> pd.DataFrame:
    """Defensive re-check: every named category must hold >= k records."""
    bad = (frame[by] != OTHER) & (frame["records"] < k)
    if bad.any():  # pragma: no cover - suppression_by already pools them
        raise DataError("breakdown has a category smaller than k; refusing to print it")
    return frame


def render_report(assessment: RiskAssessment, *, title: str | None = None) -> str:
    """The report as an HTML string (see the module docstring for what it may contain)."""
    title = title or f"Re-identification risk report: {assessment.name}"
    return _document(title, "\n".join(_sections(assessment, title)))


def _document(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{_esc(title)}</title><style>{_STYLE}</style></head>"
        f"<body>\n{body}\n</body></html>\n"
    )


def _sections(assessment: RiskAssessment, title: str) -> list[str]:
    """The report's HTML parts for one assessment, from its ``<h1>`` title on."""
    a = assessment
    p = a.prosecutor
    k = a.k
    parts: list[str] = []
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts.append(f"<h1>{_esc(title)}</h1>")
    parts.append(f'<p class="note">Generated {now} by dbt_deid. Aggregate figures only: no'
                 f" quasi-identifier value of a class smaller than k = {k} is shown.</p>")

    verdict = p.ok
    cls = "ok" if verdict else "bad"
    word = "meets" if verdict else "does NOT meet"
    parts.append(f'<p class="{cls}">This combination {word} the threshold: maximum prosecutor'
                 f" risk {p.stats.max_risk:.4g} vs tau = {a.tau:.4g} (k = {k}).</p>")

    parts.append("<h2>Release and threshold</h2>")
    rows = [
        ("Records", _fmt(p.n_records)),
        ("Equivalence classes", _fmt(p.n_classes)),
        ("Quasi-identifiers", _esc(", ".join(a.qi))),
        ("tau (max acceptable risk)", _fmt(a.tau)),
        ("k = ceil(1/tau)", _fmt(k)),
    ]
    if a.preset is not None:
        rows += [("Release context", _esc(a.preset.title)),
                 ("Uniqueness threshold", _pct(a.preset.uniqueness))]
    parts.append(_kv(rows))
    if a.preset is not None:
        parts.append(f"<p><b>Why this threshold.</b> {_esc(a.preset.justification)}</p>")

    parts.append("<h2>Prosecutor risk (El Emam et al. 2011 attack 3, El Emam et al. 2009"
                 " (CJHP))</h2>")
    s = p.stats
    rows = [
        ("Maximum risk 1/min f", _fmt(s.max_risk)),
        ("Smallest class", _fmt(s.smallest_class)),
        ("Mean record risk", _fmt(s.mean_risk)),
        ("Records with risk above tau", f"{_fmt(s.records_above_tau)}"
                                        f" ({_pct(s.share_above_tau)})"),
        ("Sample uniques", f"{_fmt(a.sample_uniques)} ({_pct(a.sample_uniques / p.n_records)})"),
    ]
    if p.exact is not None:
        e = p.exact
        rows += [
            ("Exact: smallest consistent set", _fmt(e.smallest_class)),
            ("Exact: maximum risk", _fmt(e.max_risk)),
            ("Exact: records above tau", f"{_fmt(e.records_above_tau)}"
                                         f" ({_pct(e.share_above_tau)})"),
        ]
    parts.append(_kv(rows))
    parts.append('<p class="note">Suppressed values form their own category; the exact rows'
                 " count the published records consistent with each record's true values, a"
                 " suppressed cell matching anything.</p>")

    if a.population is not None:
        pr = a.population
        parts.append("<h2>Journalist and marketer risk (El Emam et al. 2011 equations 2-3)</h2>")
        rows = [
            ("Population from", _esc(pr.source)),
            ("Population size N", _fmt(pr.population_size)),
            ("Sampling fraction n/N", _fmt(pr.sampling_fraction)),
            ("Journalist maximum risk 1/min F", _fmt(pr.journalist.max_risk)),
            ("Journalist: records above tau", f"{_fmt(pr.journalist.records_above_tau)}"
                                              f" ({_pct(pr.journalist.share_above_tau)})"),
            ("Marketer: expected correct matches sum f/F", _fmt(pr.marketer_expected_matches)),
            ("Marketer risk (share of records)", _fmt(pr.marketer_risk)),
        ]
        if pr.marketer_bound is not None:
            rows.append(("Bound |Q| alpha (equation 3)", _fmt(pr.marketer_bound)))
        parts.append(_kv(rows))

    if a.uniqueness is not None:
        u = a.uniqueness
        parts.append("<h2>Uniqueness (El Emam et al. 2010; Zayatz 1991, Pitman / Hoshino"
                     " 2001)</h2>")
        rows = [
            ("Sample uniqueness", _pct(u.sample_uniqueness)),
            ("Population uniqueness, Zayatz", _pct(u.zayatz_uniqueness)),
            ("Population uniqueness, Pitman", _pct(u.pitman_uniqueness)),
            ("Selected (Dankar et al. 2012 rule)", f"{_esc(u.method)}:"
                                                   f" {_pct(u.population_uniqueness)}"),
        ]
        if a.preset is not None:
            ok = u.population_uniqueness <= a.preset.uniqueness
            rows.append(("Within the context's uniqueness threshold", _fmt(ok)))
        parts.append(_kv(rows))

    parts.append("<h2>Distribution of record risk (El Emam et al. 2009 (CJHP) 'Perform"
                 " Diagnostics')</h2>")
    parts.append(_cdf_figure(a))
    marks = pd.DataFrame(
        [{"risk at or below": float(m), "share of records": v}
         for m, v in a.cdf_marks().items()]
    )
    parts.append(_table(marks, pct=["share of records"]))

    parts.append("<h2>Equivalence class sizes</h2>")
    binned = binned_histogram(a.histogram, k)
    parts.append(_histogram_figure(binned, k))
    parts.append(_table(binned, left=["bin"]))

    parts.append("<h2>Suppression and information loss</h2>")
    il = a.information_loss
    parts.append(_kv([
        ("QI cells suppressed", f"{_fmt(il['cells_suppressed'])} of {_fmt(il['cells'])}"
                                f" ({_pct(il['cells_suppressed_share'])})"),
        ("Records with any suppressed QI", f"{_fmt(il['records_with_suppression'])}"
                                           f" ({_pct(il['records_with_suppression_share'])})"),
    ]))
    by_count = pd.DataFrame(
        [{"suppressed QIs per record": m, "records": v}
         for m, v in il["records_by_suppressed_qis"].items()]
    )
    parts.append(_table(by_count))
    parts.append(_suppression_figure(a.suppression))
    parts.append(_table(a.suppression, pct=["suppressed_share", "missing_share"],
                        left=["column"]))

    if a.breakdown is not None and a.breakdown_by is not None:
        by = a.breakdown_by
        bd = _safe_breakdown(a.breakdown, by, k)
        parts.append(f"<h2>Suppression by {_esc(by)}</h2>")
        parts.append(f'<p class="note">Categories with fewer than k = {k} records are pooled'
                     f" as &ldquo;{_esc(OTHER)}&rdquo;.</p>")
        share_cols = [c for c in bd.columns if c not in (by, "records")]
        parts.append(_table(bd, pct=share_cols, left=[by]))

    if a.areas is not None:
        ar = a.areas
        parts.append("<h2>Small geographic areas (El Emam et al. 2010 equations 1-4)</h2>")
        parts.append(_kv([
            ("MaxCombs", _fmt(ar.maxcombs)),
            ("Areas", _fmt(len(ar.table))),
            ("Flagged at 5% uniqueness", _fmt(ar.flagged_05)),
            ("Flagged at 20% uniqueness", _fmt(ar.flagged_20)),
        ]))
        for w in ar.warnings:
            parts.append(f'<p class="bad">Warning: {_esc(w)}</p>')
        if "records" in ar.table.columns:
            shown = ar.table[ar.table["records"] >= k]
            hidden = len(ar.table) - len(shown)
            cols = ["area", "population", "records", "p_05", "p_20", "flag_05", "flag_20"]
            parts.append(_table(shown[cols], left=["area"]))
            if hidden:
                parts.append(f'<p class="note">{hidden} area(s) with fewer than k = {k}'
                             " released records are not named.</p>")

    return parts


def write_report(
    assessment: RiskAssessment, path: str | Path, *, title: str | None = None
) -> Path:
    """Write :func:`render_report` to ``path`` (UTF-8) and return the path."""
    out = Path(path)
    out.write_text(render_report(assessment, title=title), encoding="utf-8")
    return out


@dataclass(frozen=True)
class ReleaseStatus:
    """What the release report must state first (issues 12 and 35): whether the release passes
    every gate (and so is what the publish model publishes), the achieved figure next to each
    limit, each gate's verdict (combined_releases from the release history), what the published
    table holds (each quasi-identifier's level with its meaning, read from its hierarchy; the
    columns dropped or passed through, El Emam et al. 2011 Table 1's variable types) and, on a
    refusal, what to change (the advice rows of deid_suppression_map)."""

    gates: pd.DataFrame  # gate, passed, message
    released: pd.DataFrame  # quasi-identifier, source column, level[, meaning]
    dropped: dict[str, list[str]]  # role -> columns (record_id, direct_identifiers, excluded)
    pass_through: list[str]
    publish_model: str = "deid_published"
    #: What the report was computed from, as the release manifest records it (issue 17):
    #: settings hash, package version, input relation, rows and fingerprint.
    manifest: dict[str, str] | None = None
    #: limit, setting, achieved, within (bool): the achieved figure next to each limit.
    limits: pd.DataFrame | None = None
    #: The advice lines (deid_suppression_map's advice rows) shown under "What to change" on
    #: a refusal.
    advice: tuple[str, ...] = ()
    #: Label -> text: records, version, time, package version (the status block's facts).
    facts: dict[str, str] | None = None
    #: Gates checked by the publish step, not in the gate table (combined_releases): gate,
    #: passed (None: decided when publishing), message. Shown with the others.
    publish_gates: pd.DataFrame | None = None

    @property
    def passed(self) -> bool:
        return len(self.gates) > 0 and bool(self.gates["passed"].astype(bool).all())


def _verdict_cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "at publish"
    return '<span class="ok">yes</span>' if bool(value) else '<span class="bad">NO</span>'


def _gate_rows(status: ReleaseStatus) -> str:
    frames = [status.gates[["gate", "passed", "message"]]]
    if status.publish_gates is not None and len(status.publish_gates):
        frames.append(status.publish_gates[["gate", "passed", "message"]])
    rows = []
    for frame in frames:
        for rec in frame.itertuples(index=False):
            rows.append(f'<tr><td class="l">{_esc(rec.gate)}</td>'
                        f"<td>{_verdict_cell(rec.passed)}</td>"
                        f'<td class="l">{_esc(rec.message)}</td></tr>')
    return ('<div class="wrap"><table><thead><tr><th class="l">gate</th><th>passes</th>'
            f'<th class="l">result</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _limit_rows(limits: pd.DataFrame) -> str:
    rows = []
    for rec in limits.itertuples(index=False):
        rows.append(f'<tr><th class="l">{_esc(rec.limit)}</th><td>{_esc(rec.setting)}</td>'
                    f"<td>{_esc(rec.achieved)}</td><td>{_verdict_cell(rec.within)}</td></tr>")
    return ('<div class="wrap"><table><thead><tr><th class="l">limit</th><th>setting</th>'
            '<th>achieved</th><th>within</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _status_sections(status: ReleaseStatus) -> list[str]:
    failed = status.gates[~status.gates["passed"].astype(bool)]
    if status.passed:
        head = (f'<p class="ok">Every gate passes ({len(status.gates)}): this is the release'
                f" {_esc(status.publish_model)} publishes. The publish model runs the gates"
                " again on the table it writes and refuses to publish otherwise.</p>")
    else:
        names = ", ".join(failed["gate"].astype(str)) if len(failed) else "no gate ran"
        head = (f'<p class="bad">REFUSED: nothing was published. Failed gate(s): {_esc(names)}.'
                f" {_esc(status.publish_model)} keeps the last release that passed (see"
                " deid_release_history).</p>")
    parts = ["<h2>Release status</h2>", head]
    if status.facts:
        parts.append(_kv([(k, _esc(v)) for k, v in status.facts.items()]))
    if status.limits is not None and len(status.limits):
        parts.append(_limit_rows(status.limits))
    if not status.passed and status.advice:
        parts.append("<h2>What to change</h2>")
        items = "".join(f"<li>{_esc(line)}</li>" for line in status.advice)
        parts.append(f'<div class="todo"><ul>{items}</ul><p class="note">Apply a change in the'
                     " release settings and rebuild; <code>python -m dbt_deid advise --vars"
                     " ...</code> previews it without publishing.</p></div>")
    parts.append("<h2>Gates</h2>")
    parts.append(_gate_rows(status))
    parts.append("<h2>What the published table holds</h2>" if status.passed else
                 "<h2>What this release would hold (not published)</h2>")
    parts.append(_table(status.released, left=list(status.released.columns)))
    rows = [("Passed through unchanged", _esc(", ".join(status.pass_through) or "none"))]
    rows += [(f"Dropped ({_esc(role)})", _esc(", ".join(cols) or "none"))
             for role, cols in status.dropped.items()]
    parts.append(_kv(rows))
    if status.manifest:
        parts.append("<h2>Computed from</h2>")
        parts.append("<p>The release manifest that deid_release_history records for this"
                     " release carries the same settings hash and input fingerprint"
                     " (`python -m dbt_deid history`).</p>")
        parts.append(_kv([(_esc(k), _esc(str(v))) for k, v in status.manifest.items()]))
    return parts


def render_release_report(
    assessments: Sequence[RiskAssessment],
    *,
    title: str,
    breakdowns: dict[str, pd.DataFrame] | None = None,
    k: int | None = None,
    status: ReleaseStatus | None = None,
    comparison: pd.DataFrame | None = None,
    search_nodes: pd.DataFrame | None = None,
    searched: bool = True,
    comparison_requested: bool = True,
) -> str:
    """One self-contained document for a release with several protected combinations: the
    release status (gates, published or refused, what is published) when given, an overview
    table, then the sections of :func:`render_report` for each combination's assessment, then
    the suppression breakdowns (``{by column: suppression_by frame}``, whose categories below k
    are already pooled; re-checked here), then, when given, the comparison of the combinations
    and complete algorithms (``deid_algorithm_comparison``: counts and shares per column, no
    value; El Emam et al. 2011, discharge PUMF, "Evaluation"). ``search_nodes``
    (the ``search_nodes`` part of ``deid_report_inputs``: the nodes the generalization search
    evaluated) adds the risk-utility
    section after the overview (:mod:`dbt_deid.report.risk_utility`): the picture when
    ``searched`` (the release's levels came from the OLA search), else the sentence saying the
    levels were set in the settings. ``comparison_requested`` False (the release does not
    declare ``report.algorithm_comparison: true``, so deid_algorithm_comparison was not built)
    ends the report with a sentence saying the comparison was not requested."""
    if not assessments:
        raise DataError("no assessment to report")
    k = k if k is not None else assessments[0].k
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [f"<h1>{_esc(title)}</h1>",
             f'<p class="note">Generated {now} by dbt_deid. Aggregate figures only: no'
             f" quasi-identifier value of a class smaller than k = {k} is shown. One section per"
             " protected combination of quasi-identifiers.</p>"]
    if status is not None:
        parts.extend(_status_sections(status))
    overview = pd.DataFrame([{
        "combination": "+".join(a.qi),
        "records": a.prosecutor.n_records,
        "classes": a.prosecutor.n_classes,
        "smallest class": a.prosecutor.stats.smallest_class,
        "max risk": a.prosecutor.stats.max_risk,
        "records above tau": a.prosecutor.stats.records_above_tau,
        "meets tau": bool(a.prosecutor.ok),
    } for a in assessments])
    parts.append("<h2>Overview</h2>")
    parts.append(_table(overview, left=["combination"]))
    parts.extend(risk_utility_section(search_nodes, searched=searched))
    for a in assessments:
        parts.extend(_sections(a, f"Combination {'+'.join(a.qi)}"))
    for by, frame in (breakdowns or {}).items():
        bd = _safe_breakdown(frame, by, k)
        parts.append(f"<h1>Suppression by {_esc(by)}</h1>")
        parts.append(f'<p class="note">Categories with fewer than k = {k} records are pooled'
                     f" as &ldquo;{_esc(OTHER)}&rdquo;; a pool smaller than k shows its record"
                     " count only.</p>")
        share_cols = [c for c in bd.columns if c not in (by, "records")]
        parts.append(_table(bd, pct=share_cols, left=[by]))
    if comparison is not None and len(comparison):
        parts.extend(_comparison_sections(comparison))
    elif not comparison_requested:
        parts.extend(["<h1>Suppression algorithms compared</h1>",
                      f'<p class="note">{COMPARISON_NOT_REQUESTED}</p>'])
    return _document(title, "\n".join(parts))


#: The report's last section when the release does not declare report.algorithm_comparison.
COMPARISON_NOT_REQUESTED = (
    "Not requested: this release does not declare <code>report.algorithm_comparison:"
    " true</code>, so the combinations and complete algorithms (El Emam et al. 2011,"
    " &ldquo;Evaluation&rdquo;) were not run on it (deid_algorithm_comparison was not built;"
    " docs/diagnostics.md). The gates above decide the release either way.")


def _comparison_sections(comparison: pd.DataFrame) -> list[str]:
    """The two suppression algorithms side by side (El Emam et al. 2011, discharge PUMF,
    "Evaluation": the combinations algorithm against suppressing on the complete set of
    quasi-identifiers), per released column and over all of them; the selected one marked."""
    frame = comparison.copy()
    frame["selected"] = frame["selected"].map(lambda v: "yes" if bool(v) else "")
    keep = ["algorithm", "selected", "column_name", "suppressed_cells", "share_cells_suppressed",
            "records_with_suppression", "share_records_with_suppression",
            "suppression_entropy", "smallest_class"]
    frame = frame[[c for c in keep if c in frame.columns]]
    if frame["algorithm"].nunique() == 1 and (frame["selected"] == "yes").all():
        # a refresh of a release line: no algorithm ran from scratch (docs/living-release.md)
        note = ("This version refreshes a release line: the selected algorithm applied to the new"
                " records with every earlier cell held fixed, not a run of either algorithm from"
                " scratch, so only its own figures are shown (a fresh release of all records"
                " would suppress differently; docs/living-release.md). Counts and shares only.")
    else:
        note = ("The release run with the combinations algorithm and with the complete algorithm"
                " (every quasi-identifier at once), as in El Emam et al. 2011's evaluation, and"
                " with mask_cover when the release chose it (docs/suppression-exact.md);"
                " &ldquo;selected&rdquo; is the algorithm this release used. Counts and shares"
                " only.")
    return [
        "<h1>Suppression algorithms compared</h1>",
        f'<p class="note">{note}</p>',
        _table(frame, pct=["share_cells_suppressed", "share_records_with_suppression"],
               left=["algorithm", "selected", "column_name"]),
    ]


def write_release_report(
    assessments: Sequence[RiskAssessment],
    path: str | Path,
    *,
    title: str,
    breakdowns: dict[str, pd.DataFrame] | None = None,
    status: ReleaseStatus | None = None,
    comparison: pd.DataFrame | None = None,
    search_nodes: pd.DataFrame | None = None,
    searched: bool = True,
    comparison_requested: bool = True,
) -> Path:
    """Write :func:`render_release_report` to ``path`` (UTF-8, parent folders created)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_release_report(assessments, title=title, breakdowns=breakdowns,
                                         status=status, comparison=comparison,
                                         search_nodes=search_nodes, searched=searched,
                                         comparison_requested=comparison_requested),
                   encoding="utf-8")
    return out
