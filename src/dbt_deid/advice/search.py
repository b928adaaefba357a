"""The nearest levels that pass: a refused fixed-level release's next step.

El Emam et al. 2009 (prescription records), "Apply Generalization and Suppression" (Table 2 and
the flow chart): when the suppression needed at the chosen generalization exceeds the limit,
the analyst generalizes further (or, as a policy decision, changes the limit). OLA (El Emam et
al. 2009; El Emam et al. 2012, HHP claims, "Base Algorithm") searches that lattice for the
optimum; this module answers the narrower question a refused fixed-level release asks: which
coarser levels, closest to the ones configured, pass the release's own gates (MaxSup and the
column caps) with the release's own suppression algorithm (El Emam et al. 2011, discharge PUMF,
"Combinations Suppression Algorithm").

It works on the pattern table the build already has (``deid_patterns``: the QI values at the
configured levels with their counts) and each QI's hierarchy above its configured level (wide:
column 0 = the configured level; every level a function of the one below). Nodes are visited by
their distance from the configured node (the number of levels added), then in a fixed order of
QI offsets; a node whose records in classes smaller than k already exceed MaxSup (a lower bound
on what any suppression must remove) is not run; the others run the release's suppression. The
search stops after the first distance with a passing node, or at its budget (said so).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.advice.shares import Shares, small_class_shares, suppression_shares
from dbt_deid.config import ReleaseConfig, parse_release
from dbt_deid.progress import Logger, get_logger
from dbt_deid.suppression import run_suppression


@dataclass(frozen=True)
class LevelOption:
    """One node that passes: every varied QI's absolute level and the figures there."""

    levels: Mapping[str, int]
    changes: Mapping[str, tuple[int, int]]  # qi -> (configured level, advised level)
    shares: Shares


@dataclass(frozen=True)
class Advice:
    """What a fixed-level release's suppression does and, when a gate fails, what would pass."""

    release: str
    k: int
    max_suppression: float
    caps: Mapping[str, float]
    levels: Mapping[str, int]
    shares: Shares
    failing: tuple[str, ...]
    options: tuple[LevelOption, ...] = ()
    held: Mapping[str, str] = field(default_factory=dict)  # qi -> why its level is not varied
    nodes_checked: int = 0
    suppression_runs: int = 0
    stopped: str | None = None  # why the search stopped before finishing a distance
    searched: bool = False

    @property
    def refused(self) -> bool:
        return bool(self.failing)


def _offsets(bounds: Sequence[int], distance: int) -> Iterator[tuple[int, ...]]:
    """Offsets (one per varied QI, 0..bound) summing to ``distance``, in lexicographic order
    of the offsets reversed (the first QI raised first): a fixed order, never the data's."""
    n = len(bounds)

    def rec(i: int, left: int) -> Iterator[tuple[int, ...]]:
        if i == n - 1:
            if left <= bounds[i]:
                yield (left,)
            return
        rest = sum(bounds[i + 1:])
        for v in range(min(bounds[i], left), -1, -1):
            if left - v <= rest:
                for tail in rec(i + 1, left - v):
                    yield (v, *tail)

    if n == 0:
        return
    yield from rec(0, distance)


def _coded_levels(values: pd.Series, wide: pd.DataFrame) -> list[np.ndarray] | None:
    """Per level of ``wide`` (column 0 = the configured level), each pattern's code at that
    level (codes index the level's sorted labels), or None when a value of the pattern table
    is not in the hierarchy."""
    base = wide.iloc[:, 0].astype(str).to_numpy()
    lookup = pd.Index(base)
    if not lookup.is_unique:
        return None
    pos = lookup.get_indexer(values.astype(str).to_numpy())
    if (pos < 0).any():
        return None
    out = []
    for j in range(wide.shape[1]):
        labels = wide.iloc[:, j].astype(str).to_numpy()
        codes, uniques = pd.factorize(labels, sort=True)
        out.append((codes[pos], uniques))
    return out  # type: ignore[return-value]


def _current_shares(frame: pd.DataFrame, cfg: ReleaseConfig, released: Sequence[str],
                    combos: Sequence[Sequence[str]], log: Logger) -> Shares:
    small, _ = small_class_shares(frame, combos, cfg.k)
    return _run(frame, cfg, released, combos, small, log)


def _run(frame: pd.DataFrame, cfg: ReleaseConfig, released: Sequence[str],
         combos: Sequence[Sequence[str]], small: Mapping[tuple[str, ...], float],
         log: Logger) -> Shares:
    result = run_suppression(
        frame, cfg.k, cfg.combinations, cfg.weights, algorithm=cfg.algorithm, count_column="n",
        logger=log, propagation=cfg.propagation(), columns=cfg.qi_names,
        verify_combinations=cfg.verified_combinations(), families=cfg.families,
    )
    t = result.table
    return suppression_shares(t.codes, t.counts, t.columns, released, combos, small)


def advise(
    patterns: pd.DataFrame,
    hierarchies: Mapping[str, pd.DataFrame],
    release: Mapping[str, Any],
    *,
    shares: Shares | None = None,
    held: Mapping[str, str] | None = None,
    max_options: int = 3,
    max_runs: int = 40,
    max_nodes: int = 2000,
    max_seconds: float = 60.0,
    logger: Logger | None = None,
) -> Advice:
    """The advice for a fixed-level release (see the module docstring).

    ``patterns`` is ``deid_patterns`` (QI columns at the configured levels plus ``n``);
    ``hierarchies`` one wide frame per QI whose level may be raised (column 0 = the configured
    level, as :func:`dbt_deid.dbt_side.glue.ola.ola_hierarchies` builds them); ``shares`` the
    figures at the configured levels when the build already has them (else the suppression runs once
    here); ``held`` QIs the caller could not give a hierarchy for, with the reason. The search
    runs only when MaxSup or a column cap fails; it stops after ``max_runs`` suppression runs,
    ``max_nodes`` nodes or ``max_seconds`` and says so."""
    log = logger or get_logger()
    cfg = parse_release(dict(release), partial=True)
    released = cfg.released_qis()
    combos = [tuple(c) for c in cfg.verified_combinations()]
    frame = patterns.copy()
    frame.columns = [str(c) for c in frame.columns]
    for q in cfg.qi_names:
        frame[q] = frame[q].astype(str)
    current = shares if shares is not None else _current_shares(frame, cfg, released, combos,
                                                                log)
    caps = cfg.caps
    levels = {q: cfg.quasi_identifiers[q].level for q in cfg.qi_names}
    failing = tuple(current.failing(cfg.max_suppression, caps))
    base = Advice(release=cfg.name, k=cfg.k, max_suppression=cfg.max_suppression, caps=caps,
                  levels=levels, shares=current, failing=failing, held=dict(held or {}))
    if not failing:
        return base
    in_family = {lvl for f in cfg.families for lvl in f.levels}
    why = dict(held or {})
    varied: list[str] = []
    coded: dict[str, list[Any]] = {}
    for q in cfg.qi_names:
        if q in why:
            continue
        if q in in_family:
            why[q] = "a level of a hierarchical QI (hierarchical_qis): change its levels there"
            continue
        wide = hierarchies.get(q)
        if wide is None or wide.shape[1] < 2:
            why[q] = "already at its hierarchy's top level"
            continue
        levels_q = _coded_levels(frame[q], wide)
        if levels_q is None:
            why[q] = "its hierarchy is not a tree above the configured level"
            continue
        varied.append(q)
        coded[q] = levels_q
    fixed = {q: pd.factorize(frame[q], sort=True) for q in cfg.qi_names if q not in coded}
    counts = frame["n"].to_numpy(dtype=np.int64)
    bounds = [len(coded[q]) - 1 for q in varied]
    start = time.monotonic()
    options: list[LevelOption] = []
    checked = runs = 0
    stopped = None
    log.info(f"dbt_deid: advice: {cfg.name}: refused ({', '.join(failing)}); searching the"
             f" levels above the configured ones for {', '.join(varied) or 'no QI'}"
             f" ({int(np.prod([b + 1 for b in bounds])) if bounds else 1} nodes)")
    for distance in range(1, sum(bounds) + 1):
        for node in _offsets(bounds, distance):
            if checked >= max_nodes or runs >= max_runs or time.monotonic() - start > max_seconds:
                stopped = (f"budget reached after {checked} nodes and {runs} suppression runs"
                           f" ({time.monotonic() - start:.1f} s)")
                break
            checked += 1
            codes = {q: coded[q][j][0] for q, j in zip(varied, node, strict=True)}
            codes.update({q: fixed[q][0] for q in fixed})
            key = pd.DataFrame({q: codes[q] for q in cfg.qi_names})
            key["n"] = counts
            grouped = key.groupby(cfg.qi_names, sort=True, as_index=False)["n"].sum()
            small, union = small_class_shares(grouped, combos, cfg.k)
            if union > cfg.max_suppression:
                continue
            labels = pd.DataFrame({
                q: (coded[q][node[varied.index(q)]][1] if q in coded else fixed[q][1])[
                    grouped[q].to_numpy()]
                for q in cfg.qi_names})
            labels["n"] = grouped["n"].to_numpy()
            runs += 1
            s = _run(labels, cfg, released, combos, small, log)
            if not s.failing(cfg.max_suppression, caps):
                options.append(LevelOption(
                    levels={q: levels[q] + j for q, j in zip(varied, node, strict=True)},
                    changes={q: (levels[q], levels[q] + j)
                             for q, j in zip(varied, node, strict=True) if j},
                    shares=s))
        if options or stopped:
            break
    options.sort(key=lambda o: (o.shares.share, sorted(o.changes.items())))
    log.info(f"dbt_deid: advice: {cfg.name}: {len(options)} passing node(s) at the nearest"
             f" distance; {checked} nodes checked, {runs} suppression runs,"
             f" {time.monotonic() - start:.1f} s" + (f"; {stopped}" if stopped else ""))
    return Advice(release=cfg.name, k=cfg.k, max_suppression=cfg.max_suppression, caps=caps,
                  levels=levels, shares=current, failing=failing,
                  options=tuple(options[:max_options]), held=why, nodes_checked=checked,
                  suppression_runs=runs, stopped=stopped, searched=True)
