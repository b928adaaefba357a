"""Bootstrap node evaluation (seed 001, "Node Computation", equations 3-5).

The paper samples B = 10,000 patients with replacement, draws p_ih values of each claim QI per
sampled patient without replacement, flags the patient high risk when fewer than k patients
match, and averages the high-risk share over I = 1,000 iterations; the node is a candidate when
the mean is <= MaxSup.

Evaluating 10,000 x 1,000 knowledge sets per node would recount the same patients again and
again, so we draw a *pool* of P knowledge sets once (P = B by default: P patients drawn with
replacement, one knowledge draw each), count their matches once per node, and obtain each of
the I iterations as a resample of B pool entries with replacement (a multinomial weight vector
drawn once; iteration share = weights . high_risk / B). The iteration shares give the mean and a
95% percentile interval. The pool, its knowledge (as claim rows) and the weights depend only on
the seed, not on the node (common random numbers), so the mean is monotone non-increasing up
the lattice, as OLA's predictive tagging requires.

k comes from equation 3: k = alpha * F with F = ceil(1/tau) (tau = 0.05 -> F = 20), rounded up
(:func:`dbt_deid.ola.population.k_from_population`). The paper writes "k = 30 alpha" once, which
contradicts its own F = 20; we use k = alpha * F.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dbt_deid.config import k_from_tau
from dbt_deid.errors import ConfigError
from dbt_deid.longitudinal.encoding import EncodedData
from dbt_deid.longitudinal.matching import Knowledge, NodeIndex, check_variant, draw_knowledge
from dbt_deid.longitudinal.power import adversary_power, check_power
from dbt_deid.ola.population import k_from_population
from dbt_deid.progress import Logger, get_logger

DEFAULT_BOOTSTRAP = 10_000
DEFAULT_ITERATIONS = 1_000


def k_for_sample(tau: float, sampling_fraction: float) -> int:
    """Seed 001 equation 3: k = alpha * F_j with F_j = ceil(1/tau), rounded up, at least 1."""
    return k_from_population(k_from_tau(tau), sampling_fraction)


def max_sup_from_risk_exposure(
    tau: float = 0.05, reference_share: float = 0.0004, reference_risk: float = 1.0
) -> float:
    """MaxSup giving the same risk exposure (loss x probability) as a reference standard
    (seed 001, "Acceptable Re-identification Risk").

    Safe Harbor leaves 0.04% of the population unique (risk 1): exposure 0.0004 * N * 1. With
    records at risk tau, MaxSup * N * tau must not exceed it, so MaxSup = 0.0004 * 1 / tau =
    0.008 (0.8%) at tau = 0.05. The paper's text writes the exposure as "0.004 x N x 1", which
    would give 8%; its own 0.8% (and 0.05 x 0.008 = 0.0004) needs 0.0004, used here.
    """
    for name, v in (("tau", tau), ("reference_share", reference_share),
                    ("reference_risk", reference_risk)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
            raise ConfigError(f"{name} must be a number in (0, 1], got {v!r}")
    return min(1.0, reference_share * reference_risk / tau)


@dataclass(frozen=True)
class BootstrapResult:
    """Evaluation of one node: mean high-risk share over the iterations with its 95% percentile
    interval; ``candidate`` when mean <= MaxSup."""

    node: tuple[int, ...]
    mean: float
    ci_low: float
    ci_high: float
    pool_share: float
    k: int
    max_sup: float
    candidate: bool
    n_bootstrap: int
    n_iterations: int
    pool_size: int
    seconds: float

    def as_dict(self) -> dict[str, object]:
        return {"node": list(self.node), "mean": self.mean, "ci95": [self.ci_low, self.ci_high],
                "pool_share": self.pool_share, "k": self.k, "max_sup": self.max_sup,
                "candidate": self.candidate, "n_bootstrap": self.n_bootstrap,
                "n_iterations": self.n_iterations, "pool_size": self.pool_size,
                "seconds": round(self.seconds, 3)}


def power_matrix(
    data: EncodedData,
    power: pd.DataFrame | None,
    claims: pd.DataFrame | None = None,
    p_max: int = 5,
) -> np.ndarray:
    """(N, H) p_ih in ``data``'s patient order: from a user table (indexed by member id, one
    column per claim QI) or computed by :func:`adversary_power` on ``claims`` (original values).
    Patients without claims get 0."""
    qis = list(data.spec.claim_qis)
    if power is None:
        if claims is None:
            raise ConfigError("give a power table or the claims to compute it from")
        power = adversary_power(claims, qis, p_max=p_max, member=data.spec.member)
        power = power.reindex(data.members, fill_value=0)
    else:
        power = check_power(power, qis, data.members)
    out = power.loc[data.members, qis].to_numpy(dtype=np.int64)
    return np.minimum(out, data.claims_per_patient[:, None])


class NodeEvaluator:
    """Evaluates lattice nodes of one data set with one seeded pool (see module docstring).

    ``power``: (N, H) p_ih (:func:`power_matrix`). ``variant``: "values" (the paper's
    assumptions), "whole_claim" or "ordered_pair" (sensitivity analyses).
    """

    def __init__(
        self,
        data: EncodedData,
        power: np.ndarray,
        *,
        k: int,
        max_sup: float,
        n_bootstrap: int = DEFAULT_BOOTSTRAP,
        n_iterations: int = DEFAULT_ITERATIONS,
        pool_size: int | None = None,
        seed: int = 0,
        variant: str = "values",
        logger: Logger | None = None,
    ) -> None:
        for name, v in (("n_bootstrap", n_bootstrap), ("n_iterations", n_iterations),
                        ("k", k)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(f"{name} must be a positive integer, got {v!r}")
        if not 0 <= max_sup <= 1:
            raise ConfigError(f"max_sup must be in [0, 1], got {max_sup!r}")
        self.data = data
        self.k = k
        self.max_sup = float(max_sup)
        self.n_bootstrap = n_bootstrap
        self.n_iterations = n_iterations
        self.pool_size = int(pool_size or n_bootstrap)
        self.variant = check_variant(variant)
        self.log = logger or get_logger("dbt_deid.longitudinal")
        rng = np.random.default_rng(seed)
        pool = rng.integers(0, data.n_patients, self.pool_size)
        self.knowledge: Knowledge = draw_knowledge(data, pool, power, rng, variant)
        self.weights = rng.multinomial(
            n_bootstrap, np.full(self.pool_size, 1.0 / self.pool_size), size=n_iterations
        ).astype(np.float32)
        self.results: dict[tuple[int, ...], BootstrapResult] = {}

    def match_counts(self, node: tuple[int, ...]) -> np.ndarray:
        """Matching patients for every pool entry at ``node``."""
        index = NodeIndex(self.data, node, variant=self.variant)
        return index.count_matches(self.data, self.knowledge)

    def evaluate(self, node: tuple[int, ...]) -> BootstrapResult:
        node = tuple(int(v) for v in node)
        if node in self.results:
            return self.results[node]
        t0 = time.perf_counter()
        high = (self.match_counts(node) < self.k).astype(np.float32)
        shares = (self.weights @ high) / self.n_bootstrap
        mean = float(shares.mean())
        lo, hi = (float(x) for x in np.percentile(shares, [2.5, 97.5]))
        res = BootstrapResult(node, mean, lo, hi, float(high.mean()), self.k, self.max_sup,
                              mean <= self.max_sup, self.n_bootstrap, self.n_iterations,
                              self.pool_size, time.perf_counter() - t0)
        self.results[node] = res
        self.log.info(f"LOLA: node {len(self.results)} evaluated in {res.seconds:.2f}s")
        return res

    def is_passing(self, node: tuple[int, ...]) -> bool:
        return self.evaluate(node).candidate


def evaluate_node(
    data: EncodedData,
    node: tuple[int, ...],
    power: np.ndarray,
    *,
    tau: float = 0.05,
    sampling_fraction: float = 1.0,
    max_sup: float | None = None,
    options: Mapping[str, object] | None = None,
) -> BootstrapResult:
    """One-shot evaluation of ``node`` (k from tau and alpha, MaxSup from the risk exposure
    unless given); ``options`` are passed to :class:`NodeEvaluator`."""
    k = k_for_sample(tau, sampling_fraction)
    ms = max_sup_from_risk_exposure(tau) if max_sup is None else max_sup
    ev = NodeEvaluator(data, power, k=k, max_sup=ms, **dict(options or {}))  # type: ignore[arg-type]
    return ev.evaluate(node)
