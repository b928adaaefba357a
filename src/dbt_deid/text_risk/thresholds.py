"""Thresholds and verdicts, section 2.3.9.

* Direct identifiers (2.3.9.1): a *benchmark distribution* is equation 20 with all-or-nothing
  recall 0.95 (the acceptable recall of [26]), ``w = 1`` (every document holds the identifier,
  the worst case) and ``n = 220`` (the smallest evaluation corpus in the literature), one direct
  identifier type. The release passes when the upper limit of its 95% interval is at most the
  benchmark's upper limit.
* Quasi-identifiers (2.3.9.2): the upper limit of the 95% interval of equation 21 must be at most
  ``tau`` (inequality 22). ``tau`` comes from a cell-size rule: ``tau = 1 / cell size`` (cell size
  5 -> 0.2, the paper's case study, section 3.3; 20 -> 0.05 for public patient data [55,56]).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError
from dbt_deid.tau import check_tau
from dbt_deid.text_risk.distributions import (
    DEFAULT_ITERATIONS,
    Interval,
    Triangular,
    interval,
    simulate_direct,
)
from dbt_deid.text_risk.probabilities import DEFAULT_H, DIRECT_CUTOFF

BENCHMARK_RECALL = 0.95
BENCHMARK_W = 1.0
BENCHMARK_N = 220
DEFAULT_TAU = 0.05
"""Default quasi-identifier threshold: cell size 20 (public release of patient data)."""


def tau_from_cell_size(cell_size: int) -> float:
    """``tau = 1 / k`` for the "cell size of k" rule (section 2.3.9.2); ``k >= 1``."""
    if cell_size < 1:
        raise ConfigError(f"cell size must be at least 1, got {cell_size}")
    return 1.0 / cell_size


def benchmark_measures(
    recall: float = BENCHMARK_RECALL, w: float = BENCHMARK_W, n: int = BENCHMARK_N
) -> pd.DataFrame:
    """The benchmark's single direct identifier type as a ``direct_measures`` frame."""
    if not (0.0 <= recall <= 1.0 and 0.0 < w <= 1.0 and n >= 1):
        raise ConfigError(
            f"benchmark needs recall in [0, 1], w in (0, 1], n >= 1; got {recall}, {w}, {n}"
        )
    s = max(1, round(w * n))
    return pd.DataFrame(
        [{"type": "benchmark", "s": s, "s_caught": round(recall * s), "w": w, "r": recall}]
    )


def benchmark_direct(
    *,
    recall: float = BENCHMARK_RECALL,
    w: float = BENCHMARK_W,
    n: int = BENCHMARK_N,
    h: float = DEFAULT_H,
    cutoff: float | None = DIRECT_CUTOFF,
    attempt: Triangular | None = None,
    iterations: int = DEFAULT_ITERATIONS,
    rng: np.random.Generator,
) -> Interval:
    """The benchmark distribution for direct identifiers (section 2.3.9.1) through equation 20.

    The same ``h``, cut-off and ``Pr(attempt)`` as the release being judged, so the comparison is
    on recall, document frequency and corpus size only.
    """
    draws = simulate_direct(
        benchmark_measures(recall, w, n), n, h=h, cutoff=cutoff, attempt=attempt,
        iterations=iterations, rng=rng,
    )
    return interval(draws)


@dataclass(frozen=True)
class Verdict:
    """A gate: ``passed`` when ``upper <= limit``."""

    gate: str
    upper: float
    limit: float
    passed: bool

    def as_dict(self) -> dict[str, object]:
        return {"gate": self.gate, "upper": self.upper, "limit": self.limit,
                "passed": self.passed}


def direct_verdict(data: Interval, benchmark: Interval) -> Verdict:
    """Pass when the data's upper 95% limit <= the benchmark's upper limit (2.3.9.1, Fig. 1)."""
    return Verdict("direct", data.upper, benchmark.upper, bool(data.upper <= benchmark.upper))


def quasi_verdict(data: Interval, tau: float) -> Verdict:
    """Pass when the upper 95% limit of equation 21 is <= ``tau`` (inequality 22)."""
    limit = check_tau(tau)
    return Verdict("quasi", data.upper, limit, bool(data.upper <= limit))
