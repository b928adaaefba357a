"""OLA in the dbt release: frames in, frames out, for the thin Python model ``deid_ola_search``.

El Emam et al. 2012 (HHP claims) "Base Algorithm" (OLA, El Emam et al. 2009) and El Emam et al.
2009 (prescription records) "Apply Generalization and Suppression" (Table 2 and the flow chart):
the release's QIs are searched over the lattice bounded below by each QI's configured ``level``
(the minimum level) and above by ``generalization.max_levels`` (the maximum acceptable
generalization, default the hierarchy height); a node passes when the records in classes smaller
than k are at most MaxSup; the k-minimal node with the least information loss is released. When
no node passes, the flow chart asks the analyst to relax a limit
(:func:`dbt_deid.ola.relax.relax_message`).

The search runs on the pattern table at the minimum levels (``deid_ola_patterns``, a SQL GROUP
BY) with the hierarchies re-based from ``deid_hierarchy`` (level 0 = the minimum level, rows
restricted to the values present), so the metrics measure the loss relative to the minimum
levels (identical to OLA's when every minimum level is 0). The settings are
:func:`dbt_deid.ola.settings.ola_settings`; the algorithms are in :mod:`dbt_deid.ola`.
:func:`deid_ola_search` is the body of the dbt Python model of that name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.config import ReleaseConfig, parse_release
from dbt_deid.dbt_side.dbt_logger import dbt_logger
from dbt_deid.dbt_side.glue.frames import string_values, to_pandas
from dbt_deid.errors import ConfigError, DataError
from dbt_deid.ola.evaluate import allowed_suppression
from dbt_deid.ola.metrics import METRICS
from dbt_deid.ola.relax import relax_message, top_class_sizes, top_small_counter
from dbt_deid.ola.run import TRACE_LIMIT, OlaResult, run_ola
from dbt_deid.ola.settings import ola_settings
from dbt_deid.progress import Logger

REPORT_COLUMNS = (
    "role", "height", "suppressed", "suppressed_share", "passes", *METRICS, "k_minimal",
    "best_k_minimal", "optimal", "chosen", "search", "k", "max_suppression", "metric", "records",
    "nodes_evaluated", "lattice_size", "message",
)


def ola_hierarchies(
    hierarchy: pd.DataFrame, patterns: pd.DataFrame, min_levels: Mapping[str, int],
    missing_label: str,
) -> dict[str, pd.DataFrame]:
    """One wide hierarchy frame per QI for :func:`run_ola`, from ``deid_hierarchy`` (long:
    qi_name, level, original_value, generalized_value): columns are the levels from the QI's
    minimum level up to its height (re-based, column 0 = the minimum level), one row per
    minimum-level value present in ``patterns``. The release's missing label (a NULL source
    value) is its own value at every level."""
    out: dict[str, pd.DataFrame] = {}
    for q, lo in min_levels.items():
        rows = hierarchy[hierarchy["qi_name"] == q]
        wide = rows.pivot_table(index="original_value", columns="level",
                                values="generalized_value", aggfunc="first")
        if len(wide.columns) == 0:
            raise DataError(f"quasi-identifier {q!r} has no rows in deid_hierarchy")
        height = int(max(wide.columns))
        if lo > height:
            raise ConfigError(
                f"quasi_identifiers.{q}.level is {lo} but its hierarchy has {height} levels"
            )
        present = set(patterns[q].astype(str))
        frame = wide[list(range(lo, height + 1))].astype(str).drop_duplicates()
        frame = frame[frame[lo].isin(present)]
        if missing_label in present and missing_label not in set(frame[lo]):
            frame = pd.concat([frame, pd.DataFrame([[missing_label] * len(frame.columns)],
                                                   columns=frame.columns)])
        dup = frame[lo][frame[lo].duplicated()]
        if len(dup):
            raise DataError(
                f"quasi-identifier {q!r}: level {lo} value {dup.iloc[0]!r} generalizes to"
                " several values at a higher level; OLA needs every level to be a function of"
                " the level below (a tree)"
            )
        frame.columns = [f"level{j}" for j in range(len(frame.columns))]
        out[q] = frame.reset_index(drop=True)
    return out


def ola_search_frame(
    patterns: pd.DataFrame, hierarchy: pd.DataFrame, release: Mapping[str, Any], *,
    logger: Logger | None = None,
) -> pd.DataFrame:
    """Run OLA on the release's minimum-level pattern table; return the node report.

    One row per k-minimal node (``role`` = k_minimal), one for the released node when it is
    not k-minimal (``role`` = optimal), one for every other node the search evaluated
    (``role`` = evaluated: its suppression and its value of the release's metric, the other
    metrics null; at most :data:`~dbt_deid.ola.run.TRACE_LIMIT` evaluated nodes, the first in
    evaluation order, plus the released node: fewer rows than ``nodes_evaluated`` says some
    were not kept), for the report's risk-utility picture as ARX's GUI plots the evaluated
    transformations, and one for the lattice's top node (``role`` = top, metrics null): a
    column per QI with its absolute level, ``height`` (levels above the
    minimum node), ``suppressed`` records and their share, ``passes``, the four metrics, the
    flags ``k_minimal``, ``best_k_minimal`` (the paper's choice: the best k-minimal node),
    ``optimal`` and ``chosen`` (the released node: the best passing node of the lattice), and
    the run's k, MaxSup, metric, records, nodes evaluated, lattice size and ``message`` (why no
    node passes and what to relax; null when one does). ``search`` says which search chose the
    node: ``optimal``, or ``heuristic`` when the lattice is larger than
    ``generalization.max_nodes`` (:mod:`dbt_deid.ola.heuristic`; then there is no k-minimal
    row, the released node's ``role`` is heuristic and ``optimal`` is true only when the
    heuristic proved it).
    """
    cfg = parse_release(release)
    settings = ola_settings(release)
    if settings is None:
        raise ConfigError("deid_ola_search needs generalization.search: ola")
    _check_ola_release(cfg)
    frame = string_values(patterns, cfg.qi_names)
    if len(frame) == 0:
        raise DataError("model deid_ola_search: the pattern table is empty; nothing to release")
    mins = {q.name: q.level for q in cfg.quasi_identifiers.values()}
    hs = ola_hierarchies(hierarchy, frame, mins, cfg.missing_label)
    heights = {q: len(h.columns) - 1 + mins[q] for q, h in hs.items()}
    caps = {}
    for q, lvl in settings.max_levels.items():
        if not mins[q] <= lvl <= heights[q]:
            raise ConfigError(
                f"generalization.max_levels.{q} must be between the minimum level {mins[q]}"
                f" (quasi_identifiers.{q}.level) and the hierarchy height {heights[q]}, got {lvl}"
            )
        caps[q] = lvl - mins[q]
    log = logger or dbt_logger()
    combos = [list(c) for c in cfg.verified_combinations()]
    result = run_ola(frame, hs, cfg.k, cfg.max_suppression, settings.metric, caps,
                     count_column="n", all_metrics=True, logger=log, budget=settings.budget,
                     combinations=combos)
    log.info(f"dbt_deid: deid_ola_search: a node passes when at most MaxSup of the records are"
             f" in a class smaller than k, judging {result.judged_by}")
    sizes = top_class_sizes(result, frame)
    small_at = top_small_counter(result, frame)
    message = (None if result.chosen is not None
               else relax_message(result, sizes, mins, small_at))
    rows: list[dict[str, Any]] = []
    for r, is_kmin in result.reports():
        role = "k_minimal" if is_kmin else (
            "heuristic" if result.search_kind == "heuristic" else "optimal")
        rows.append(_row(role, r.node, mins, result, r.suppressed, True, r.metrics, is_kmin))
    shown = {tuple(int(v) for v in r.node) for r, _ in result.reports()}
    for e in result.trace:
        if e.node not in shown:
            rows.append(_row("evaluated", e.node, mins, result, e.suppressed, e.passes,
                             {settings.metric: e.value}, False))
    if result.trace_dropped:
        log.info(f"dbt_deid: deid_ola_search: {result.evaluated} nodes evaluated; the node"
                 f" report keeps the first {TRACE_LIMIT} in evaluation order and the released"
                 f" node ({result.trace_dropped} not kept)")
    top_small = small_at(cfg.k)
    rows.append(_row("top", result.lattice.max_levels, mins, result, top_small,
                     top_small <= allowed_suppression(cfg.max_suppression, result.n_records),
                     {}, False, report=False))
    out = pd.DataFrame(rows, columns=[*cfg.qi_names, *REPORT_COLUMNS[:-1]])
    out["message"] = pd.Series([message] * len(out), dtype="string")
    if result.chosen is None:
        log.info(f"dbt_deid: deid_ola_search: {message}")
    else:
        log.info(
            f"dbt_deid: deid_ola_search: chosen node {result.chosen_levels()} (above the minimum"
            f" levels), {result.suppressed} records in classes smaller than k = {cfg.k},"
            f" {settings.metric} {result.metric_value:.6g}; {result.evaluated} of"
            f" {result.lattice_size} nodes evaluated; search: {result.search_kind}"
        )
        if result.heuristic is not None:
            h = result.heuristic_summary()
            gap = h["gap_bound"]
            log.info(
                "dbt_deid: deid_ola_search: the lattice is larger than"
                " generalization.max_nodes, so the heuristic search (Lightning) chose the node;"
                f" it stopped ({h['stopped']}) after {h['nodes_checked']} nodes checked;"
                + (" it proved the node optimal" if h["proved_optimal"] else
                   f" the node is at most {gap:.1%} above the optimum" if gap is not None
                   else " its distance from the optimum is unknown"))
        elif not result.chosen_is_k_minimal:
            best = next(r for r in result.k_minimal if r.node == result.best_k_minimal)
            log.info(
                "dbt_deid: deid_ola_search: the chosen node is not k-minimal: it generalizes a"
                " k-minimal node and keeps more records (suppression makes the metric"
                f" non-monotone); the best k-minimal node has {settings.metric}"
                f" {best.metrics[settings.metric]:.6g} with {best.suppressed} records suppressed"
            )
    return out.astype({**{q: "int64" for q in cfg.qi_names}, "role": "string", "height": "int64",
                       "suppressed": "int64", "suppressed_share": "float64", "passes": "bool",
                       **{m: "float64" for m in METRICS}, "k_minimal": "bool",
                       "best_k_minimal": "bool", "optimal": "bool", "chosen": "bool",
                       "search": "string", "k": "int64", "max_suppression": "float64",
                       "metric": "string", "records": "int64", "nodes_evaluated": "int64",
                       "lattice_size": "int64"})


def _row(role: str, node: Sequence[int], mins: Mapping[str, int], result: OlaResult,
         suppressed: int, passes: bool, metrics: Mapping[str, float], is_kmin: bool, *,
         report: bool = True) -> dict[str, Any]:
    row: dict[str, Any] = {c: mins[c] + int(lvl) for c, lvl in zip(result.names, node,
                                                                    strict=True)}
    node = tuple(int(v) for v in node)
    chosen = report and node == result.chosen
    row.update(role=role, height=int(sum(node)), suppressed=int(suppressed),
               suppressed_share=suppressed / result.n_records, passes=bool(passes),
               k_minimal=is_kmin, best_k_minimal=report and node == result.best_k_minimal,
               optimal=chosen and result.chosen_is_optimal, chosen=chosen,
               search=result.search_kind, k=result.k,
               max_suppression=result.max_suppression, metric=result.metric,
               records=result.n_records, nodes_evaluated=result.evaluated,
               lattice_size=result.lattice_size)
    row.update({m: metrics.get(m, np.nan) for m in METRICS})
    return row


def _check_ola_release(cfg: ReleaseConfig) -> None:
    if cfg.families:
        raise ConfigError("generalization.search: ola does not support hierarchical_qis")
    clash = sorted(set(cfg.qi_names) & set(REPORT_COLUMNS))
    if clash:
        raise ConfigError(
            f"generalization.search: ola: quasi-identifier name(s) {clash} clash with the node"
            " report's columns; rename them"
        )


def deid_ola_search(release_json: str, ola_patterns: Any, hierarchy: Any) -> pd.DataFrame:
    """The dbt Python model ``deid_ola_search``: OLA (El Emam et al. 2012, HHP claims, "Base
    Algorithm"; El Emam et al. 2009, prescription records, "Apply Generalization and
    Suppression") on the minimum-level pattern table ``ola_patterns`` (``deid_ola_patterns``)
    with the hierarchies of ``hierarchy`` (``deid_hierarchy``). Returns the node report of
    :func:`ola_search_frame` (k-minimal nodes, the chosen one, the top node and, when no node
    passes, the message saying which limit to relax); ``deid_ola_levels`` selects the chosen
    levels from it."""
    release = json.loads(release_json)
    return ola_search_frame(to_pandas(ola_patterns), to_pandas(hierarchy), release)
