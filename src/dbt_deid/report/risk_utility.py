"""The risk-utility picture: the lattice nodes the generalization search evaluated,
information loss against records suppressed, with the released node marked (issue 36 item 4;
ARX's GUI plots the evaluated transformations the same way).

El Emam et al. 2012 (HHP claims) "Base Algorithm": a node passes when the records in classes
smaller than k are at most MaxSup, and the passing node with the least information loss is
released. The chart shows that trade-off for every node the search evaluated (the
``search_nodes`` part of ``deid_report_inputs``, which the release report reads; a projection of
``deid_ola_search``): x is the node's value of the release's metric (information loss), y the
share of records in classes smaller than k (suppressed), with the MaxSup line across; passing
nodes are filled circles, failing ones crosses, the released node a ringed diamond labelled with
its levels. It is plain inline SVG (no script, no external asset) 640 px wide. Only levels,
counts and scores appear: no value of a record. A release whose levels are set in the settings
ran no search: the section says so and draws nothing.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import pandas as pd

WIDTH, HEIGHT = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 72, 24, 20, 56
PLOTTED_ROLES = ("k_minimal", "optimal", "heuristic", "evaluated")


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _tick_label(v: float) -> str:
    """A tick's label: thousands separated (discernibility and entropy run into the millions),
    else up to four significant digits."""
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if hi <= lo:
        return [lo]
    step = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(step))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= step), default=step)
    first = math.ceil(lo / step) * step
    out, v = [], first
    while v <= hi + 1e-12 * max(1.0, abs(hi)):
        out.append(round(v, 12))
        v += step
    return out


def _metric(search: pd.DataFrame) -> str:
    return str(search["metric"].dropna().iloc[0])


def plotted_nodes(search: pd.DataFrame) -> pd.DataFrame:
    """The rows the chart plots: every evaluated node with a value of the release's metric
    (``value``: the ``information_loss`` column of the search nodes, else the metric's own
    column of a ``deid_ola_search`` frame), its suppressed share in percent (``suppressed_pct``),
    ``passes`` and ``chosen``; one row per node."""
    rows = search[search["role"].astype(str).isin(PLOTTED_ROLES)].copy()
    column = "information_loss" if "information_loss" in rows.columns else _metric(search)
    rows["value"] = pd.to_numeric(rows[column], errors="coerce")
    rows = rows[rows["value"].notna()]
    rows["suppressed_pct"] = 100.0 * rows["suppressed_share"].astype(float)
    return rows


def risk_utility_svg(search: pd.DataFrame, qi_names: Sequence[str]) -> str:
    """An inline SVG scatter of the evaluated nodes of ``search`` (the search nodes, or a
    ``deid_ola_search`` frame; ``qi_names`` its level columns), as ARX's GUI plots them:
    information loss on x, records suppressed (%) on y, the MaxSup line across, passing and
    failing nodes in two marks, the released node marked and labelled with its levels. Every
    node mark carries ``data-node`` (its levels)."""
    rows = plotted_nodes(search)
    metric = _metric(search)
    max_sup = float(search["max_suppression"].dropna().iloc[0]) * 100.0
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    yhi = max(1.0, float(rows["suppressed_pct"].max()) if len(rows) else 1.0,
              max_sup if max_sup < 100 else 0)
    xlo = min(0.0, float(rows["value"].min()) if len(rows) else 0.0)
    xhi = float(rows["value"].max()) if len(rows) else 1.0
    xhi = xhi if xhi > xlo else xlo + 1.0
    yhi, xhi = yhi * 1.04, xhi + 0.04 * (xhi - xlo)  # marks never sit on the frame

    def sx(v: float) -> float:
        return LEFT + pw * (v - xlo) / (xhi - xlo)

    def sy(v: float) -> float:
        return TOP + ph * (1.0 - v / yhi)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="risk-utility" width="{WIDTH}"'
           f' height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img"'
           ' aria-label="Nodes evaluated: information loss against records suppressed">',
           f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#fff" stroke="#999"/>']
    for t in _ticks(xlo, xhi):
        x = sx(t)
        out.append(f'<line x1="{x:.1f}" y1="{TOP + ph}" x2="{x:.1f}" y2="{TOP + ph + 4}"'
                   ' stroke="#999"/>')
        out.append(f'<text x="{x:.1f}" y="{TOP + ph + 16}" font-size="11"'
                   f' text-anchor="middle">{_tick_label(t)}</text>')
    for t in _ticks(0.0, yhi):
        y = sy(t)
        out.append(f'<line x1="{LEFT - 4}" y1="{y:.1f}" x2="{LEFT}" y2="{y:.1f}" stroke="#999"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" font-size="11"'
                   f' text-anchor="end">{t:g}</text>')
    if 0 < max_sup < yhi:
        y = sy(max_sup)
        out.append(f'<line class="maxsup" x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + pw}" y2="{y:.1f}"'
                   ' stroke="#c60" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{LEFT + pw - 4}" y="{y - 4:.1f}" font-size="11" fill="#c60"'
                   f' text-anchor="end">MaxSup {max_sup:g}%</text>')
    out.append(f'<text x="{LEFT}" y="{HEIGHT - 14}" font-size="12"'
               f' text-anchor="start">information loss ({_esc(metric)})</text>')
    out.append(f'<text x="16" y="{TOP + ph / 2:.1f}" font-size="12" text-anchor="middle"'
               f' transform="rotate(-90 16 {TOP + ph / 2:.1f})">records suppressed (%)</text>')
    chosen = None
    # the released node last, so it is drawn on top
    for _, r in rows.sort_values("chosen", kind="stable").iterrows():
        levels = ",".join(str(int(r[q])) for q in qi_names)
        x, y = sx(float(r["value"])), sy(float(r["suppressed_pct"]))
        tip = (f"<title>levels {_esc(levels)}: {_esc(metric)} {float(r['value']):.6g},"
               f" {float(r['suppressed_pct']):.2f}% suppressed"
               f"{'' if bool(r['passes']) else ' (fails MaxSup)'}</title>")
        if bool(r["chosen"]):
            chosen = (x, y, r)
            out.append(f'<path class="node released" data-node="{levels}"'
                       f' d="M{x:.1f},{y - 7:.1f} L{x + 7:.1f},{y:.1f} L{x:.1f},{y + 7:.1f}'
                       f' L{x - 7:.1f},{y:.1f} Z" fill="#d00" stroke="#000">{tip}</path>')
        elif bool(r["passes"]):
            out.append(f'<circle class="node pass" data-node="{levels}" cx="{x:.1f}"'
                       f' cy="{y:.1f}" r="3.5" fill="#2a6" fill-opacity="0.7">{tip}</circle>')
        else:
            out.append(f'<path class="node fail" data-node="{levels}"'
                       f' d="M{x - 3:.1f},{y - 3:.1f} L{x + 3:.1f},{y + 3:.1f}'
                       f' M{x - 3:.1f},{y + 3:.1f} L{x + 3:.1f},{y - 3:.1f}"'
                       f' stroke="#888" stroke-width="1.5">{tip}</path>')
    if chosen is not None:
        x, y, r = chosen
        label = "released: " + ", ".join(f"{q}={int(r[q])}" for q in qi_names)
        anchor = "end" if x > LEFT + pw / 2 else "start"
        dx = -10 if anchor == "end" else 10
        out.append(f'<circle class="released-ring" cx="{x:.1f}" cy="{y:.1f}" r="11" fill="none"'
                   ' stroke="#d00" stroke-width="1.5"/>')
        out.append(f'<text class="released-label" x="{x + dx:.1f}" y="{max(TOP + 12, y - 12):.1f}"'
                   f' font-size="12" font-weight="bold" text-anchor="{anchor}"'
                   ' paint-order="stroke" stroke="#fff" stroke-width="3">'
                   f'{_esc(label)}</text>')
    # legend
    lx, ly = LEFT + pw - 190, TOP + ph + 36
    out.append(f'<circle cx="{lx}" cy="{ly - 4}" r="3.5" fill="#2a6"/>'
               f'<text x="{lx + 8}" y="{ly}" font-size="11">passes MaxSup</text>'
               f'<path d="M{lx + 92},{ly - 7} L{lx + 98},{ly - 1} M{lx + 92},{ly - 1}'
               f' L{lx + 98},{ly - 7}" stroke="#888" stroke-width="1.5"/>'
               f'<text x="{lx + 104}" y="{ly}" font-size="11">fails</text>'
               f'<path d="M{lx + 140},{ly - 10} L{lx + 146},{ly - 4} L{lx + 140},{ly + 2}'
               f' L{lx + 134},{ly - 4} Z" fill="#d00"/>'
               f'<text x="{lx + 150}" y="{ly}" font-size="11">released</text>')
    out.append("</svg>")
    return "\n".join(out)


def level_columns(search: pd.DataFrame) -> list[str]:
    """The QI level columns of a ``deid_ola_search`` frame: the columns before ``role``."""
    cols = list(search.columns)
    return cols[:cols.index("role")]


def risk_utility_section(search: pd.DataFrame | None, qi_names: Sequence[str] | None = None,
                         *, searched: bool = True) -> list[str]:
    """The report's risk-utility section. ``search`` is the search nodes (deid_report_inputs; or a
    ``deid_ola_search`` frame); ``searched`` says whether the release's levels came from the
    search (``generalization.search: ola``). Without a search the section says the levels were
    set in the settings and draws no picture; with one, a sentence saying how many nodes are
    shown of how many evaluated, and the chart. Nothing when ``search`` is None (no table
    given)."""
    if search is None:
        return []
    title = "<h2>Risk and utility of the nodes evaluated</h2>"
    if not searched:
        return [title, '<p class="note">The quasi-identifiers\' levels were set in the settings'
                       " (quasi_identifiers.&lt;qi&gt;.level): no generalization search ran, so"
                       " there is no risk-utility picture (generalization.search: ola searches"
                       " the levels and plots the nodes it evaluated).</p>"]
    rows = plotted_nodes(search) if len(search) and "role" in search.columns else search.iloc[:0]
    if len(rows) == 0:
        return [title, '<p class="note">The generalization search kept no evaluated node'
                       " (deid_report_inputs has no search_nodes row): no picture.</p>"]
    evaluated = int(search["nodes_evaluated"].dropna().iloc[0])
    metric = _metric(search)
    kept = (f"all {evaluated:,} nodes the search evaluated" if len(rows) >= evaluated else
            f"{len(rows):,} of the {evaluated:,} nodes the search evaluated (the first"
            " 2,000 in evaluation order and the released node)")
    released = "no node passes, none is released" if not rows["chosen"].astype(bool).any() else (
        "the released node is the passing node with the least information loss")
    return [
        title,
        f'<p class="note">The generalization search (El Emam et al. 2012, HHP claims, "Base'
        f' Algorithm"): {kept}, information loss ({_esc(metric)}) against the records in'
        f" classes smaller than k (suppressed), with the MaxSup line; {released}. Levels and"
        " figures only.</p>",
        risk_utility_svg(search, qi_names if qi_names is not None else level_columns(search)),
    ]


__all__ = ["level_columns", "plotted_nodes", "risk_utility_section", "risk_utility_svg"]
