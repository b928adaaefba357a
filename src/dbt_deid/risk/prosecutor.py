"""Prosecutor risk on a released pattern table (El Emam et al. 2011 attack 3; El Emam et al. 2009
(CJHP) "Evaluate Actual Risk").

The intruder knows the target is in the release and picks one of the f_j records of the target's
equivalence class at random: the record risk is 1/f_j. The release risk is the worst case
1/min_j f_j (El Emam et al. 2009 (CJHP)); the mean record risk is |J|/n and the share of records
above tau is the share in classes smaller than k = ceil(1/tau) (El Emam et al. 2011).

Two class definitions are reported, both from :mod:`dbt_deid.verify`:

* ``class_sizes``: a suppressed value is its own category (sufficient check);
* ``exact_consistent_counts`` (when the true values are given): the number of released records
  consistent with a record's true values, a suppressed cell matching anything (definitive).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.errors import DataError
from dbt_deid.risk._common import COUNT_COLUMN, check_qi, record_counts
from dbt_deid.tau import above_tau, k_from_tau
from dbt_deid.verify import class_keys, class_sizes, exact_consistent_counts


@dataclass(frozen=True)
class RiskStats:
    """Aggregate figures of a per-record risk vector (weighted by record counts)."""

    max_risk: float
    mean_risk: float
    records_above_tau: int
    share_above_tau: float
    smallest_class: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "max_risk": self.max_risk,
            "mean_risk": self.mean_risk,
            "records_above_tau": self.records_above_tau,
            "share_above_tau": self.share_above_tau,
            "smallest_class": self.smallest_class,
        }


def risk_stats(sizes: np.ndarray, weights: np.ndarray, tau: float) -> RiskStats:
    """Max 1/min f, mean of 1/f over records, and records with 1/f > tau.

    Records above tau are those of classes :func:`dbt_deid.tau.above_tau` flags (f < k for
    whole sizes; estimated, fractional sizes work too).
    """
    sizes = np.asarray(sizes, dtype=float)
    w = np.asarray(weights, dtype=np.int64)
    n = int(w.sum())
    risk = 1.0 / sizes
    above = int(w[above_tau(sizes, tau)].sum())
    return RiskStats(
        max_risk=float(risk.max()),
        mean_risk=float((risk * w).sum() / n),
        records_above_tau=above,
        share_above_tau=above / n,
        smallest_class=int(np.floor(sizes.min())),
    )


@dataclass(frozen=True)
class ProsecutorRisk:
    """Prosecutor risk of one release on one QI set.

    ``class_size``/``record_risk`` are per input row (suppressed = own category);
    ``consistent``/``exact_risk`` per row when the true values were given, else None. When the
    exact check came as a distribution (``exact_distribution`` of :func:`prosecutor_risk`),
    ``consistent`` holds its set sizes and ``consistent_records`` the records of each.
    """

    qi: tuple[str, ...]
    tau: float
    k: int
    n_records: int
    n_classes: int
    stats: RiskStats
    class_size: np.ndarray = field(repr=False)
    record_risk: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)
    exact: RiskStats | None = None
    consistent: np.ndarray | None = field(default=None, repr=False)
    consistent_records: np.ndarray | None = field(default=None, repr=False)

    @property
    def consistent_weights(self) -> np.ndarray | None:
        """Records per entry of ``consistent`` (the row counts when it is per row)."""
        if self.consistent is None:
            return None
        return self.counts if self.consistent_records is None else self.consistent_records

    @property
    def exact_risk(self) -> np.ndarray | None:
        return None if self.consistent is None else 1.0 / self.consistent

    @property
    def ok(self) -> bool:
        """Max risk at or below tau on both class definitions (El Emam et al. 2011)."""
        worst = self.stats if self.exact is None else self.exact
        return self.stats.smallest_class >= self.k and worst.smallest_class >= self.k

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "qi": list(self.qi),
            "tau": self.tau,
            "k": self.k,
            "records": self.n_records,
            "classes": self.n_classes,
            **self.stats.to_dict(),
            "ok": self.ok,
        }
        out["exact"] = None if self.exact is None else self.exact.to_dict()
        return out


def prosecutor_risk(
    published: pd.DataFrame,
    qi: Sequence[str],
    tau: float,
    *,
    count_column: str | None = COUNT_COLUMN,
    true_values: pd.DataFrame | None = None,
    exact_distribution: tuple[np.ndarray, np.ndarray] | None = None,
) -> ProsecutorRisk:
    """Prosecutor risk 1/f_j per record and its max, mean and share above tau.

    ``published`` is the released pattern table (null = suppressed). ``true_values``, when
    given, is aligned row by row with ``published`` (same records, original values) and adds
    the exact variant (risk 1 / number of released records consistent with the true values).
    ``exact_distribution`` gives that variant already computed, as (sizes of the consistent
    set, records with each): what the warehouse computes once per build (the exact check's
    columns of ``deid_suppressed_patterns``); its records must add up to the release's.
    """
    cols = check_qi(published, qi)
    k = k_from_tau(tau)
    w = record_counts(published, count_column)
    sizes = class_sizes(published, cols, w)
    stats = risk_stats(sizes, w, tau)
    n_classes = len(np.unique(class_keys(published, cols))) if len(published) else 0
    exact = consistent = consistent_records = None
    if true_values is not None and exact_distribution is not None:
        raise ValueError("give the true values or the exact distribution, not both")
    if exact_distribution is not None:
        consistent = np.asarray(exact_distribution[0], dtype=np.int64)
        consistent_records = np.asarray(exact_distribution[1], dtype=np.int64)
        if len(consistent) != len(consistent_records):
            raise DataError("the exact distribution needs one record count per set size")
        if int(consistent_records.sum()) != int(w.sum()):
            raise DataError(
                f"the exact distribution counts {int(consistent_records.sum())} records but the"
                f" release has {int(w.sum())}: it was computed from another build of the"
                " release (rebuild deid_suppressed_patterns)"
            )
        if len(consistent) and (consistent < 1).any():
            raise DataError("a true record is consistent with no released record: the exact"
                            " distribution was not computed from this release")
        exact = risk_stats(consistent, consistent_records, tau)
    if true_values is not None:
        check_qi(true_values, cols, "true-values table")
        if len(true_values) != len(published):
            raise DataError(
                f"true-values table has {len(true_values)} rows but the release has"
                f" {len(published)}; they must be aligned row by row"
            )
        if true_values[cols].isna().to_numpy().any():
            raise DataError("true-values table has null quasi-identifier cells")
        consistent = exact_consistent_counts(true_values, published, cols, w)
        if (consistent < 1).any():
            raise DataError(
                "a true record is consistent with no released record: the tables are not"
                " aligned (row i must be the same record in both)"
            )
        exact = risk_stats(consistent, w, tau)
    return ProsecutorRisk(
        qi=tuple(cols), tau=float(tau), k=k, n_records=int(w.sum()), n_classes=n_classes,
        stats=stats, class_size=sizes, record_risk=1.0 / sizes, counts=w, exact=exact,
        consistent=consistent, consistent_records=consistent_records,
    )


def prosecutor_table(
    published: pd.DataFrame,
    qi: Sequence[str],
    tau: float,
    *,
    count_column: str | None = COUNT_COLUMN,
    true_values: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The pattern table with ``class_size``, ``risk`` and ``above_tau`` per row added
    (plus ``consistent`` and ``exact_risk`` when the true values are given)."""
    res = prosecutor_risk(
        published, qi, tau, count_column=count_column, true_values=true_values
    )
    out = published.copy()
    if count_column is None:
        out[COUNT_COLUMN] = res.counts
    out["class_size"] = res.class_size
    out["risk"] = res.record_risk
    out["above_tau"] = res.class_size < res.k
    if res.consistent is not None:
        out["consistent"] = res.consistent
        out["exact_risk"] = 1.0 / res.consistent
    return out
