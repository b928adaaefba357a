"""Combinations vs complete suppression on the same pattern table (El Emam et al. 2011,
"Evaluation": the "complete" algorithm is the same procedure with one combination of all QIs).

Information loss is reported per algorithm and column from the pattern tables alone (no record
scan): suppressed cells and their share, records with a suppressed value, and the suppression
part of non-uniform entropy: a suppressed cell whose generalized value is g costs
-log2(|g| / n) bits, |g| being the records with value g (a released cell costs 0 bits relative
to the generalized data). Summed over cells this is the entropy the suppression adds on top of
the generalization; the paper's "Entropy (%)" divides such totals by a baseline release's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.coded import factorize_columns
from dbt_deid.config import parse_release
from dbt_deid.errors import DataError
from dbt_deid.patterns import SUPPRESSED, PatternTable
from dbt_deid.progress import Logger, get_logger
from dbt_deid.suppression import SuppressionResult, run_suppression
from dbt_deid.verify import check_coded, coded_class_sizes

LOSS_COLUMNS = ["column_name", "suppressed_cells", "share_cells_suppressed",
                "records_with_suppression", "share_records_with_suppression",
                "suppression_entropy"]


def coded_loss(
    pub: np.ndarray, truth: np.ndarray, counts: np.ndarray, columns: Sequence[str]
) -> pd.DataFrame:
    """Per column (and ``(all quasi-identifiers)``): cells, share, records, entropy bits.

    ``pub`` and ``truth`` are ``rows x columns`` codes (-1 in ``pub`` = suppressed; a -1 in
    ``truth`` is a null true value, a category of its own), each row standing for ``counts``
    records. A suppressed cell with true value g costs -log2(|g| / n) bits (El Emam et al. 2011
    "Measuring Information Loss": its released value covers every record).
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    rows = []
    any_sup = np.zeros(len(counts), dtype=bool)
    total_cells = total_bits = 0.0
    for j, c in enumerate(columns):
        sup = pub[:, j] == SUPPRESSED
        any_sup |= sup
        shifted = truth[:, j] + 1  # nulls (-1) get slot 0
        freq = np.bincount(shifted, weights=counts, minlength=int(shifted.max(initial=0)) + 1)
        bits = float((counts[sup] * -np.log2(np.maximum(freq[shifted[sup]], 1) / n)).sum())
        cells = float(counts[sup].sum())
        total_cells += cells
        total_bits += bits
        rows.append((c, int(cells), cells / n, int(cells), cells / n, bits))
    records = float(counts[any_sup].sum())
    rows.insert(0, ("(all quasi-identifiers)", int(total_cells), total_cells / (n * len(columns)),
                    int(records), records / n, total_bits))
    return pd.DataFrame(rows, columns=LOSS_COLUMNS)


@dataclass(frozen=True)
class _Coded:
    """A release as codes: released and true values of ``columns``, counts, cardinalities."""

    pub: np.ndarray
    truth: np.ndarray
    counts: np.ndarray
    columns: list[str]
    cards: list[int]

    def figures(self, released: Sequence[str], verify: Sequence[Sequence[str]], k: int,
                exact: bool) -> pd.DataFrame:
        idx = [self.columns.index(c) for c in released]
        loss = coded_loss(self.pub[:, idx], self.truth[:, idx], self.counts, list(released))
        sizes = []
        for b in verify:
            cols = [self.columns.index(c) for c in b]
            sizes.append(int(coded_class_sizes(self.pub[:, cols], [self.cards[j] for j in cols],
                                               self.counts).min()))
        loss["smallest_class"] = min(sizes)
        loss["min_consistent_exact"] = (
            min(c.min_consistent for c in check_coded(
                self.truth, self.pub, self.cards, self.columns, verify, k, self.counts))
            if exact else None
        )
        return loss


def _coded_result(result: SuppressionResult) -> _Coded:
    table = result.table
    source = result.input_table
    # int32 codes as the PatternTable holds them (half the memory of int64 at 8 million
    # patterns); row keys are built in int64 (dbt_deid.coded.row_keys).
    return _Coded(
        pub=table.codes.astype(np.int32, copy=False),
        truth=source.codes[source.rows_of(table.origin)].astype(np.int32, copy=False),
        counts=table.counts.astype(np.int64), columns=list(table.columns),
        cards=[len(lab) for lab in table.labels],
    )


def coded_released(released: pd.DataFrame, columns: Sequence[str]) -> _Coded:
    """``deid_suppressed_patterns`` (``<qi>``, ``<qi>__generalized``, ``n``) as codes."""
    missing = [c for q in columns for c in (q, f"{q}__generalized") if c not in released.columns]
    if missing or "n" not in released.columns:
        raise DataError(f"model deid_algorithm_comparison: the released patterns"
                        f" (deid_suppressed_patterns) lack column(s) {missing or ['n']}")
    truth = released[[f"{q}__generalized" for q in columns]].set_axis(list(columns), axis=1)
    (pub, tru), cards = factorize_columns([released, truth], list(columns))
    counts = pd.to_numeric(released["n"]).to_numpy(dtype=np.int64)
    return _Coded(pub.astype(np.int32), tru.astype(np.int32), counts, list(columns), cards)


def compare_algorithms(
    patterns: pd.DataFrame | PatternTable | None, release: Mapping[str, Any],
    logger: Logger | None = None, *, exact: bool = True,
    released: pd.DataFrame | _Coded | None = None, released_min_consistent: int | None = None,
    selected_only: bool = False,
) -> pd.DataFrame:
    """Run the release with both algorithms; one row per (algorithm, column) with the loss,
    plus the smallest class over the verified combinations (both must reach k).

    ``selected_only`` (with ``released``): the selected algorithm's figures only, read from
    ``released``; no algorithm runs and ``patterns`` is not read (a refresh of a release line,
    docs/living-release.md: the version is not a run of either algorithm from scratch).

    ``released``: the selected algorithm's result as released patterns
    (``deid_suppressed_patterns``); its figures are read from it instead of running that
    algorithm a second time (only the other algorithm runs on ``patterns``); it may be given
    already coded (:func:`coded_released`), so the caller can drop the frame of text first.
    ``released_min_consistent``: with ``released``, the smallest exact consistent set of the
    release as the warehouse computed it once for the build (``deid_suppressed_patterns``; El Emam
    et al. 2011, "Equivalence Classes"); the selected algorithm's exact figure is then that one,
    not computed again here.
    """
    cfg = parse_release(release)
    log = logger or get_logger()
    verify = cfg.verified_combinations()
    frames = []
    source: pd.DataFrame | PatternTable | None = patterns
    # the paper's two, and the release's own when it chose another (mask_cover)
    if selected_only and released is None:
        raise ValueError("compare_algorithms: selected_only needs the released patterns")
    algorithms = ((cfg.algorithm,) if selected_only
                  else tuple(dict.fromkeys(("combinations", "complete", cfg.algorithm))))
    for algorithm in algorithms:
        if released is not None and algorithm == cfg.algorithm:
            coded = (released if isinstance(released, _Coded)
                     else coded_released(released, cfg.qi_names))
            log.info(f"dbt_deid: {algorithm}: figures of the release itself"
                     f" ({len(coded.counts)} released patterns)")
        else:
            result = run_suppression(
                source, cfg.k, cfg.combinations, cfg.weights, algorithm=algorithm, logger=log,
                propagation=cfg.propagation(), columns=cfg.qi_names,
                verify_combinations=verify, families=cfg.families,
            )
            source = result.input_table  # encoded once, shared by both runs
            coded = _coded_result(result)
            log.info(f"dbt_deid: {algorithm}: {result.stats.cells} cells suppressed")
        # Class sizes (sufficient) always; the exact check when asked (the release gate checks
        # the selected algorithm in any case).
        reuse = released is not None and algorithm == cfg.algorithm and (
            released_min_consistent is not None)
        loss = coded.figures(cfg.released_qis(), verify, cfg.k, exact and not reuse)
        if reuse:
            loss["min_consistent_exact"] = int(released_min_consistent)
        loss.insert(0, "algorithm", algorithm)
        loss["selected"] = algorithm == cfg.algorithm
        frames.append(loss)
    return pd.concat(frames, ignore_index=True)
