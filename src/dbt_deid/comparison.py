"""Combinations vs complete suppression on the same pattern table (seed 000, "Evaluation":
the "complete" algorithm is the same procedure with one combination of all QIs).

Information loss is reported per algorithm and column from the pattern tables alone (no record
scan): suppressed cells and their share, records with a suppressed value, and the suppression
part of non-uniform entropy: a suppressed cell whose generalized value is g costs
-log2(|g| / n) bits, |g| being the records with value g (a released cell costs 0 bits relative
to the generalized data). Summed over cells this is the entropy the suppression adds on top of
the generalization; the paper's "Entropy (%)" divides such totals by a baseline release's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.config import parse_release
from dbt_deid.patterns import SUPPRESSED
from dbt_deid.progress import Logger, get_logger
from dbt_deid.suppression import SuppressionResult, run_suppression, verify_result
from dbt_deid.verify import class_sizes


def suppression_loss(result: SuppressionResult, columns: list[str]) -> pd.DataFrame:
    """Per column (and ``(all quasi-identifiers)``): cells, share, records, entropy bits."""
    table, source = result.table, result.input_table
    n = int(table.counts.sum())
    truth = source.codes[source.rows_of(table.origin)]
    rows = []
    any_sup = np.zeros(len(table.counts), dtype=bool)
    total_cells = total_bits = 0.0
    for c in columns:
        j = table.col(c)
        sup = table.codes[:, j] == SUPPRESSED
        any_sup |= sup
        freq = np.bincount(
            truth[:, j][truth[:, j] >= 0], weights=table.counts[truth[:, j] >= 0],
            minlength=len(table.labels[j]),
        )
        g = truth[sup, j]
        bits = float((table.counts[sup] * -np.log2(np.maximum(freq[g], 1) / n)).sum())
        cells = float(table.counts[sup].sum())
        total_cells += cells
        total_bits += bits
        rows.append((c, int(cells), cells / n, int(cells), cells / n, bits))
    records = float(table.counts[any_sup].sum())
    rows.insert(0, ("(all quasi-identifiers)", int(total_cells), total_cells / (n * len(columns)),
                    int(records), records / n, total_bits))
    return pd.DataFrame(rows, columns=["column_name", "suppressed_cells", "share_cells_suppressed",
                                       "records_with_suppression",
                                       "share_records_with_suppression", "suppression_entropy"])


def compare_algorithms(
    patterns: pd.DataFrame, release: Mapping[str, Any], logger: Logger | None = None,
    *, exact: bool = True,
) -> pd.DataFrame:
    """Run the release with both algorithms; one row per (algorithm, column) with the loss,
    plus the smallest class over the verified combinations (both must reach k)."""
    cfg = parse_release(release)
    log = logger or get_logger()
    frames = []
    for algorithm in ("combinations", "complete"):
        result = run_suppression(
            patterns, cfg.k, cfg.combinations, cfg.weights, algorithm=algorithm, logger=log,
            propagation=cfg.propagation(), columns=cfg.qi_names,
            verify_combinations=cfg.verified_combinations(), families=cfg.families,
        )
        loss = suppression_loss(result, cfg.released_qis())
        loss.insert(0, "algorithm", algorithm)
        # Class sizes (sufficient) on the pattern table; the exact check of the selected
        # algorithm is the release gate's job, and of both only when asked (it is the slow part).
        sizes = [
            int(class_sizes(result.published(), b, result.table.counts).min())
            for b in result.verify_combinations
        ]
        loss["smallest_class"] = min(sizes)
        loss["min_consistent_exact"] = (
            min(c.min_consistent for c in verify_result(result)) if exact else None
        )
        loss["selected"] = algorithm == cfg.algorithm
        frames.append(loss)
        log.info(f"dbt_deid: {algorithm}: {result.stats.cells} cells suppressed")
    return pd.concat(frames, ignore_index=True)
