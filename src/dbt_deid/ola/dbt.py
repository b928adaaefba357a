"""OLA in the dbt release: frames in, frames out, for the thin Python model ``deid_ola_search``.

Seed 001 "Base Algorithm" (OLA, El Emam et al. 2009) and seed 003 "Apply Generalization and
Suppression" (Table 2 and the flow chart): the release's QIs are searched over the lattice
bounded below by each QI's configured ``level`` (the minimum level) and above by
``generalization.max_levels`` (the maximum acceptable generalization, default the hierarchy
height); a node passes when the records in classes smaller than k are at most MaxSup; the
k-minimal node with the least information loss is released. When no node passes, the flow chart
asks the analyst to relax a limit (MaxSup, tau, the maximum levels): :func:`relax_message` says
which, with the figures at the top node.

The search runs on the pattern table at the minimum levels (``deid_ola_patterns``, a SQL GROUP
BY) with the hierarchies re-based from ``deid_hierarchy`` (level 0 = the minimum level, rows
restricted to the values present), so the metrics measure the loss relative to the minimum
levels (identical to OLA's when every minimum level is 0).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.config import ReleaseConfig, parse_release
from dbt_deid.errors import ConfigError, DataError
from dbt_deid.ola.budget import DEFAULT_MAX_NODES, SearchBudget
from dbt_deid.ola.evaluate import allowed_suppression
from dbt_deid.ola.metrics import DEFAULT_METRIC, METRICS
from dbt_deid.ola.run import OlaResult, run_ola
from dbt_deid.progress import Logger, dbt_logger
from dbt_deid.settings_schema import SECTIONS

SEARCHES = ("fixed", "ola")
SUPPRESSION_MODES = ("records", "cells")
REPORT_COLUMNS = (
    "role", "height", "suppressed", "suppressed_share", "passes", *METRICS, "k_minimal",
    "best_k_minimal", "optimal", "chosen", "k", "max_suppression", "metric", "records",
    "nodes_evaluated", "lattice_size", "message",
)
SETTINGS = tuple(SECTIONS["generalization"])  # the one settings definition


@dataclass(frozen=True)
class OlaSettings:
    """The release's ``generalization`` block with ``search: ola``."""

    metric: str = DEFAULT_METRIC
    max_levels: Mapping[str, int] = field(default_factory=dict)
    suppression: str = "records"
    budget: SearchBudget = field(default_factory=SearchBudget)


def ola_settings(release: Mapping[str, Any]) -> OlaSettings | None:
    """Validate ``generalization`` (None when absent or ``search: fixed``: today's fixed
    levels). Every bad value is a :class:`ConfigError` naming the setting."""
    raw = release.get("generalization")
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ConfigError(f"generalization must be a mapping {{{', '.join(SETTINGS)}}}")
    unknown = sorted(set(raw) - set(SETTINGS))
    if unknown:
        raise ConfigError(
            f"generalization has unknown settings {unknown}; known: {list(SETTINGS)}"
        )
    search = raw.get("search", "fixed")
    if search not in SEARCHES:
        raise ConfigError(f"generalization.search must be one of {list(SEARCHES)}, got {search!r}")
    if search == "fixed":
        if set(raw) - {"search"}:
            raise ConfigError(
                "generalization: metric, max_levels, suppression, max_nodes and max_seconds"
                " need search: ola"
            )
        return None
    metric = raw.get("metric", DEFAULT_METRIC)
    if metric not in METRICS:
        raise ConfigError(f"generalization.metric must be one of {list(METRICS)}, got {metric!r}")
    suppression = raw.get("suppression", "records")
    if suppression not in SUPPRESSION_MODES:
        raise ConfigError(
            f"generalization.suppression must be one of {list(SUPPRESSION_MODES)}, got"
            f" {suppression!r}"
        )
    max_levels = raw.get("max_levels") or {}
    if not isinstance(max_levels, Mapping):
        raise ConfigError("generalization.max_levels must be a mapping quasi-identifier -> level")
    qis = release.get("quasi_identifiers") or {}
    for q, lvl in max_levels.items():
        if q not in qis:
            raise ConfigError(f"generalization.max_levels names unknown quasi-identifier {q!r}")
        if not isinstance(lvl, int) or isinstance(lvl, bool) or lvl < 0:
            raise ConfigError(
                f"generalization.max_levels.{q} must be a non-negative integer, got {lvl!r}"
            )
    if "max_nodes" in raw and raw["max_nodes"] is None:
        raise ConfigError("generalization.max_nodes must be an integer >= 1, got None")
    budget = SearchBudget(max_nodes=raw.get("max_nodes", DEFAULT_MAX_NODES),
                          max_seconds=raw.get("max_seconds"), setting="generalization.")
    return OlaSettings(str(metric), {str(q): int(v) for q, v in max_levels.items()}, suppression,
                       budget)


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


def top_class_sizes(result: OlaResult, patterns: pd.DataFrame, count_column: str = "n"
                    ) -> np.ndarray:
    """Class sizes at the top node of the lattice (every QI at its maximum level)."""
    codes = []
    for c, lvl in zip(result.names, result.lattice.max_levels, strict=True):
        h = result.hierarchies[c]
        codes.append(h.maps[lvl][h.encode(patterns[c])])
    mat = np.column_stack(codes)
    _, inverse = np.unique(mat, axis=0, return_inverse=True)
    counts = patterns[count_column].to_numpy(dtype=np.int64)
    return np.bincount(inverse.ravel(), weights=counts).astype(np.int64)


def relax_message(
    result: OlaResult, sizes: np.ndarray, min_levels: Mapping[str, int],
) -> str:
    """Seed 003 flow chart: no node passes -> relax MaxSup, tau or the maximum levels. Says
    which limit would make the top node pass (MaxSup, tau) or can still move (max levels)."""
    n, k = result.n_records, result.k
    top = {c: min_levels[c] + lvl
           for c, lvl in zip(result.names, result.lattice.max_levels, strict=True)}
    small = int(sizes[sizes < k].sum())
    share = small / n
    lines = [
        f"OLA found no node with at most MaxSup = {result.max_suppression:g} of the {n} records"
        f" in classes smaller than k = {k}. At the top node"
        f" ({', '.join(f'{c}={v}' for c, v in top.items())}), {small} records"
        f" ({share:.2%}) are in classes smaller than k. Relax a limit (seed 003):"
        f" MaxSup: set max_suppression to at least {math.ceil(share * 1e4) / 1e4:g};",
    ]
    k_ok = next((kk for kk in range(k - 1, 1, -1)
                 if sizes[sizes < kk].sum() <= allowed_suppression(result.max_suppression, n)),
                None)
    if k_ok is not None:
        lines.append(f" tau: k = {k_ok} (tau >= {1 / k_ok:.4g}) passes at the top node;")
    else:
        lines.append(" tau: no k >= 2 passes at the top node;")
    movable = [
        f"{c} ({top[c]} of {min_levels[c] + h})"
        for c, h, lvl in zip(result.names, result.heights, result.lattice.max_levels,
                             strict=True) if lvl < h
    ]
    if movable:
        lines.append(f" maximum levels: raise generalization.max_levels of {', '.join(movable)}.")
    else:
        lines.append(" maximum levels: every quasi-identifier is already at its hierarchy's top.")
    return "".join(lines)


def ola_search_frame(
    patterns: pd.DataFrame, hierarchy: pd.DataFrame, release: Mapping[str, Any], *,
    logger: Logger | None = None,
) -> pd.DataFrame:
    """Run OLA on the release's minimum-level pattern table; return the node report.

    One row per k-minimal node (``role`` = k_minimal), one for the released node when it is
    not k-minimal (``role`` = optimal) and one for the lattice's top node (``role`` = top,
    metrics null): a column per QI with its absolute level, ``height`` (levels above the
    minimum node), ``suppressed`` records and their share, ``passes``, the four metrics, the
    flags ``k_minimal``, ``best_k_minimal`` (the paper's choice: the best k-minimal node),
    ``optimal`` and ``chosen`` (the released node: the best passing node of the lattice), and
    the run's k, MaxSup, metric, records, nodes evaluated, lattice size and ``message`` (why no
    node passes and what to relax; null when one does).
    """
    cfg = parse_release(release)
    settings = ola_settings(release)
    if settings is None:
        raise ConfigError("deid_ola_search needs generalization.search: ola")
    _check_ola_release(cfg)
    frame = _strings(patterns, cfg.qi_names)
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
    result = run_ola(frame, hs, cfg.k, cfg.max_suppression, settings.metric, caps,
                     count_column="n", all_metrics=True, logger=log, budget=settings.budget)
    sizes = top_class_sizes(result, frame)
    message = None if result.chosen is not None else relax_message(result, sizes, mins)
    rows: list[dict[str, Any]] = []
    for r, is_kmin in result.reports():
        rows.append(_row("k_minimal" if is_kmin else "optimal", r.node, mins, result,
                         r.suppressed, True, r.metrics, is_kmin))
    top_small = int(sizes[sizes < cfg.k].sum())
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
            f" {result.lattice_size} nodes evaluated"
        )
        if not result.chosen_is_k_minimal:
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
                       "k": "int64", "max_suppression": "float64", "metric": "string",
                       "records": "int64", "nodes_evaluated": "int64", "lattice_size": "int64"})


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
               optimal=chosen, chosen=chosen, k=result.k,
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


def _strings(patterns: Any, qi_names: Sequence[str]) -> pd.DataFrame:
    from dbt_deid.dbt_entry import to_pandas

    frame = to_pandas(patterns).copy()
    frame.columns = [str(c) for c in frame.columns]
    for q in qi_names:
        frame[q] = frame[q].astype(object).astype(str)
    return frame


def record_suppression(
    patterns: pd.DataFrame, k: int, count_column: str = "n",
) -> np.ndarray:
    """OLA's record-level suppression (seed 001 "Base Algorithm"; seed 003 "Apply
    Generalization and Suppression"): every record in a class smaller than k (a pattern of the
    released node's pattern table, all QIs together) has all its QIs suppressed. Returns, per
    pattern, how many of its records are suppressed.

    The published table keeps suppressed records (QIs NULL) instead of deleting them, so the
    fully suppressed records are a class of their own: when there are fewer than k of them,
    records are taken from the largest classes (never below k), then whole classes (the
    smallest first, including what is left of a class that gave records), until the class
    reaches k (as seed 000's combinations algorithm grows it): this always succeeds when the
    table has k records. Ties between classes of one size are broken by the patterns' values,
    never by the row order of the pattern table.
    """
    counts = patterns[count_column].to_numpy(dtype=np.int64)
    take = np.where(counts < k, counts, 0)
    need = k - int(take.sum()) if 0 < take.sum() < k else 0
    values = [c for c in patterns.columns if c != count_column]
    order = np.lexsort((_label_rank(patterns, values), -counts))  # largest first, then values
    for i in order:
        if need == 0:
            break
        if counts[i] > k:
            t = min(need, int(counts[i]) - k)
            take[i] += t
            need -= t
    for i in order[::-1]:  # smallest first: whole classes (the rest of a class that gave too)
        if need <= 0:
            break
        if counts[i] >= k and take[i] < counts[i]:
            need -= int(counts[i] - take[i])
            take[i] = counts[i]
    if need > 0:
        raise DataError(
            f"only {int(counts.sum())} records: the suppressed records cannot reach k = {k}"
        )
    return take


def _label_rank(patterns: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """Rank of each row in the order of its values (as text, nulls last), column by column."""
    keys: list[np.ndarray] = []
    for c in reversed(list(columns)):
        null = patterns[c].isna().to_numpy()
        text = np.array(["" if m else str(v) for v, m in zip(patterns[c], null, strict=True)],
                        dtype=object)
        _, codes = np.unique(text, return_inverse=True)
        keys += [codes.reshape(-1), null]
    order = np.lexsort(keys) if keys else np.arange(len(patterns))
    rank = np.empty(len(patterns), dtype=np.int64)
    rank[order] = np.arange(len(patterns))
    return rank


def record_suppression_map(
    patterns: pd.DataFrame, qi_names: Sequence[str], k: int, count_column: str = "n",
) -> pd.DataFrame:
    """:func:`record_suppression` as the suppression map ``deid_suppressed`` joins (the same
    format as the combinations cell suppression): per pattern with suppressed records, its QI
    values, ``n`` suppressed records, ranks 1..n and every ``<qi>__suppressed`` flag true."""
    take = record_suppression(patterns, k, count_column)
    hit = take > 0
    out = patterns.loc[hit, list(qi_names)].reset_index(drop=True)
    out["n"] = take[hit]
    out["rank_from"] = 1
    out["rank_to"] = take[hit]
    for q in qi_names:
        out[f"{q}__suppressed"] = True
    return out
