"""Bootstrap node evaluation (El Emam et al. 2012, "Node Computation", equations 3-5).

The paper samples B = 10,000 patients with replacement, draws p_ih values of each claim QI per
sampled patient without replacement, flags the patient high risk when fewer than k patients
match, and averages the high-risk share over I = 1,000 iterations; the node is a candidate when
the mean is <= MaxSup. Two schemes (setting ``bootstrap_scheme``):

* ``independent`` - the paper's: I iterations, each of B fresh draws (patient with replacement,
  then knowledge). Mean of the iteration shares; its standard error is their standard
  deviation / sqrt(I), and the 95% interval of the mean is mean +- 1.96 SE. Exact, but it
  counts matches for B x I = 10 million knowledge sets per node.
* ``pooled`` (default) - P = ``pool_size`` draws (default 100,000) spread evenly over the
  patients (every patient floor(P/N) or ceil(P/N) times; a simple random sample without
  replacement when P < N), counted once per node. The estimate is the mean over patients of
  each patient's mean high-risk flag: the same quantity as the paper's mean (the share of
  high-risk (patient, knowledge) draws), with a variance *at most* that of P independent draws,
  i.e. of the paper's scheme with B x I = P (stratifying over patients removes the
  between-patient part of the variance; ``tests/unit/test_lola.py`` shows it on repeated seeds).
  The reported standard error is that bound, sqrt(p (1 - p) / P), and the 95% interval of the
  mean is the Wilson score interval for P draws. The paper's precision (B x I = 10^7) needs
  ``pool_size`` 10^7; 10^5 gives +-7% relative at a share of 0.8%.

The former scheme (a pool of B draws resampled I times) had the precision of one iteration
(+-22% relative at 0.8%) whatever I; it is gone.

Both schemes also report the spread of single iterations (2.5 and 97.5 percentiles of the I
shares of B patients; for ``pooled``, iterations resample B pool draws), which is what one run
of the paper's inner loop could give, not the uncertainty of the mean. Knowledge draws depend
only on the seed, not on the node (common random numbers), so the mean is monotone
non-increasing up the lattice, as OLA's predictive tagging requires. High risk only needs to
know whether k patients match, so matching stops at k (:meth:`NodeIndex.count_matches`).

k comes from equation 3: k = alpha * F with F = ceil(1/tau) (tau = 0.05 -> F = 20), rounded up
(:func:`dbt_deid.tau.k_from_population`). The paper writes "k = 30 alpha" once, which
contradicts its own F = 20; we use k = alpha * F.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.longitudinal.adversary import LITERAL, AdversaryModel
from dbt_deid.longitudinal.encoding import EncodedData
from dbt_deid.longitudinal.matching import Knowledge, NodeIndex, check_variant, draw_knowledge
from dbt_deid.longitudinal.power import adversary_power, check_power
from dbt_deid.progress import Logger, get_logger
from dbt_deid.tau import k_from_population, k_from_tau

DEFAULT_BOOTSTRAP = 10_000
DEFAULT_ITERATIONS = 1_000
DEFAULT_POOL = 100_000
SCHEMES = ("pooled", "independent")
_Z95 = 1.959963984540054


def k_for_sample(tau: float, sampling_fraction: float) -> int:
    """El Emam et al. 2012 equation 3: k = alpha * F_j with F_j = ceil(1/tau), rounded up, at least
    1."""
    return k_from_population(k_from_tau(tau), sampling_fraction)


def max_sup_from_risk_exposure(
    tau: float = 0.05, reference_share: float = 0.0004, reference_risk: float = 1.0
) -> float:
    """MaxSup giving the same risk exposure (loss x probability) as a reference standard
    (El Emam et al. 2012, "Acceptable Re-identification Risk").

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
    """Evaluation of one node: the estimated high-risk share (``mean``) with its standard error
    and 95% interval (``ci_low``, ``ci_high``), the 2.5 / 97.5 percentiles of single iteration
    shares (``iter_low``, ``iter_high``), ``draws`` knowledge sets counted; ``candidate`` when
    mean <= MaxSup (equation 5)."""

    node: tuple[int, ...]
    mean: float
    se: float
    ci_low: float
    ci_high: float
    iter_low: float
    iter_high: float
    k: int
    max_sup: float
    candidate: bool
    n_bootstrap: int
    n_iterations: int
    draws: int
    scheme: str
    seconds: float

    def as_dict(self) -> dict[str, object]:
        return {"node": list(self.node), "mean": self.mean, "se": self.se,
                "ci95": [self.ci_low, self.ci_high],
                "iterations95": [self.iter_low, self.iter_high], "k": self.k,
                "max_sup": self.max_sup, "candidate": self.candidate,
                "n_bootstrap": self.n_bootstrap, "n_iterations": self.n_iterations,
                "draws": self.draws, "scheme": self.scheme, "seconds": round(self.seconds, 3)}


def wilson_interval(p: float, n: int, z: float = _Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p`` observed in ``n`` draws."""
    if n <= 0:
        return 0.0, 1.0
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denom
    # the interval always holds p (rounding could put a bound a hair past it at p = 0 or 1)
    return min(max(0.0, float(centre - half)), p), max(min(1.0, float(centre + half)), p)


def power_matrix(
    data: EncodedData,
    power: pd.DataFrame | None,
    claims: pd.DataFrame | None = None,
    p_max: int = 5,
    function: str = "log_diversity",
    scale: float = 1.0,
) -> np.ndarray:
    """(N, H) p_ih in ``data``'s patient order: from a user table (indexed by member id, one
    column per claim QI) or computed by :func:`adversary_power` on ``claims`` (original values).
    Patients without claims get 0."""
    qis = list(data.spec.claim_qis)
    if power is None:
        if claims is None:
            raise ConfigError("give a power table or the claims to compute it from")
        power = adversary_power(claims, qis, p_max=p_max, member=data.spec.member,
                                function=function, scale=scale)
        power = power.reindex(data.members, fill_value=0)
    else:
        power = check_power(power, qis, data.members)
    out = power.loc[data.members, qis].to_numpy(dtype=np.int64)
    return np.minimum(out, data.claims_per_patient[:, None])


class NodeEvaluator:
    """Evaluates lattice nodes of one data set with one seed (see the module docstring).

    ``power``: (N, H) p_ih (:func:`power_matrix`). ``scheme``: ``pooled`` (``pool_size`` draws,
    default 100,000) or ``independent`` (the paper's I x B draws). ``variant``: "values" (the
    paper's assumptions), "whole_claim" or "ordered_pair" (sensitivity analyses). ``model``:
    which demographics the adversary knows and how values match
    (:class:`dbt_deid.longitudinal.adversary.AdversaryModel`; default the literal reading:
    every demographic QI, multisets).
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
        scheme: str = "pooled",
        seed: int = 0,
        variant: str = "values",
        model: AdversaryModel | None = None,
        logger: Logger | None = None,
    ) -> None:
        for name, v in (("n_bootstrap", n_bootstrap), ("n_iterations", n_iterations),
                        ("k", k), ("pool_size", DEFAULT_POOL if pool_size is None else pool_size)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ConfigError(f"{name} must be a positive integer, got {v!r}")
        if not 0 <= max_sup <= 1:
            raise ConfigError(f"max_sup must be in [0, 1], got {max_sup!r}")
        if scheme not in SCHEMES:
            raise ConfigError(f"bootstrap scheme must be one of {list(SCHEMES)}, got {scheme!r}")
        if data.n_patients == 0:
            raise DataError("node evaluation needs at least one patient")
        self.data = data
        self.power = power
        self.k = int(k)
        self.max_sup = float(max_sup)
        self.n_bootstrap = int(n_bootstrap)
        self.n_iterations = int(n_iterations)
        self.scheme = scheme
        self.seed = int(seed)
        self.variant = check_variant(variant)
        self.model = model or LITERAL
        self.known = self.model.known(data.spec.demographic_qis)
        self.log = logger or get_logger("dbt_deid.longitudinal")
        self.results: dict[tuple[int, ...], BootstrapResult] = {}
        if scheme == "independent":
            self.pool_size = self.n_bootstrap * self.n_iterations
            return
        self.pool_size = int(DEFAULT_POOL if pool_size is None else pool_size)
        rng = np.random.default_rng([self.seed, 0])
        n = data.n_patients
        rounds, rest = divmod(self.pool_size, n)
        parts = [rng.permutation(n) for _ in range(rounds)]
        parts.append(rng.choice(n, rest, replace=False))
        pool = np.concatenate(parts).astype(np.int64)
        self.knowledge: Knowledge = draw_knowledge(data, pool, power, rng, variant,
                                                   self.model.matching)
        times = np.bincount(pool, minlength=n)
        covered = int((times > 0).sum())
        self.entry_weight = 1.0 / (times[pool] * covered)      # sums to 1: mean over patients
        self._times = times
        self._covered = np.flatnonzero(times > 0)
        self._by_patient = np.argsort(pool, kind="stable")     # pool entries grouped by patient
        self._first = np.cumsum(times) - times

    def match_counts(self, node: tuple[int, ...], knowledge: Knowledge | None = None,
                     cap: int | None = None) -> np.ndarray:
        """Matching patients for every pool entry (or ``knowledge``) at ``node``."""
        index = NodeIndex(self.data, node, variant=self.variant, known=self.known)
        return index.count_matches(self.data, knowledge or self.knowledge, cap=cap)

    def _iteration_shares(self, high: np.ndarray) -> np.ndarray:
        """I shares of B pool draws each: B patients with replacement among those in the pool,
        each with one of its draws at random (the same choice at every node)."""
        rng = np.random.default_rng([self.seed, 1])
        out = np.empty(self.n_iterations)
        step = max(1, 4_000_000 // self.n_bootstrap)
        for lo in range(0, self.n_iterations, step):
            hi = min(self.n_iterations, lo + step)
            who = self._covered[rng.integers(0, len(self._covered), (hi - lo, self.n_bootstrap))]
            times = self._times[who]
            pick = self._first[who] + (rng.random(who.shape) * times).astype(np.int64)
            out[lo:hi] = high[self._by_patient[pick]].mean(axis=1)
        return out

    def _independent_shares(self, index: NodeIndex) -> np.ndarray:
        """The paper's iterations: for iteration i, B patients with replacement and their
        knowledge, drawn from a generator seeded by (seed, 2, i) (the same at every node)."""
        out = np.empty(self.n_iterations)
        for i in range(self.n_iterations):
            rng = np.random.default_rng([self.seed, 2, i])
            pats = rng.integers(0, self.data.n_patients, self.n_bootstrap)
            know = draw_knowledge(self.data, pats, self.power, rng, self.variant,
                                  self.model.matching)
            out[i] = float((index.count_matches(self.data, know, cap=self.k) < self.k).mean())
        return out

    def evaluate(self, node: tuple[int, ...]) -> BootstrapResult:
        node = tuple(int(v) for v in node)
        if node in self.results:
            return self.results[node]
        t0 = time.perf_counter()
        if self.scheme == "independent":
            shares = self._independent_shares(NodeIndex(self.data, node, variant=self.variant,
                                                        known=self.known))
            mean = float(shares.mean())
            se = float(shares.std(ddof=1) / np.sqrt(len(shares))) if len(shares) > 1 else (
                float(np.sqrt(max(mean * (1 - mean), 0.0) / self.n_bootstrap)))
            lo, hi = max(0.0, mean - _Z95 * se), min(1.0, mean + _Z95 * se)
        else:
            high = (self.match_counts(node, cap=self.k) < self.k).astype(np.float64)
            mean = float(self.entry_weight @ high)
            se = float(np.sqrt(max(mean * (1 - mean), 0.0) / self.pool_size))
            lo, hi = wilson_interval(mean, self.pool_size)
            shares = self._iteration_shares(high)
        it_lo, it_hi = (float(x) for x in np.percentile(shares, [2.5, 97.5]))
        res = BootstrapResult(node, mean, se, lo, hi, it_lo, it_hi, self.k, self.max_sup,
                              mean <= self.max_sup, self.n_bootstrap, self.n_iterations,
                              self.pool_size, self.scheme, time.perf_counter() - t0)
        self.results[node] = res
        self.log.info(f"LOLA: node {len(self.results)} evaluated in {res.seconds:.2f}s")
        return res

    def is_passing(self, node: tuple[int, ...]) -> bool:
        return self.evaluate(node).candidate

    def shares_below(self, node: tuple[int, ...], ks: list[int]) -> dict[int, float]:
        """The estimated share of patients with fewer than k' matches at ``node``, for each
        k' <= k in ``ks`` (from the pool's capped counts; the independent scheme uses a pool of
        DEFAULT_POOL draws for this diagnostic)."""
        if any(k2 > self.k or k2 < 1 for k2 in ks):
            raise ConfigError(f"shares_below needs 1 <= k' <= k = {self.k}, got {ks}")
        if self.scheme != "pooled":
            probe = NodeEvaluator(self.data, self.power, k=self.k, max_sup=self.max_sup,
                                  n_bootstrap=self.n_bootstrap, n_iterations=1,
                                  pool_size=DEFAULT_POOL, seed=self.seed, variant=self.variant,
                                  model=self.model)
            return probe.shares_below(node, ks)
        counts = self.match_counts(tuple(int(v) for v in node), cap=self.k)
        return {int(k2): float(self.entry_weight @ (counts < k2)) for k2 in ks}

    def demographic_share(self, node: tuple[int, ...]) -> float:
        """The exact share of patients whose generalized demographics alone are shared by fewer
        than k patients at ``node`` (what any claim knowledge can only add to)."""
        index = NodeIndex(self.data, tuple(int(v) for v in node), variant="values",
                          known=self.known)
        return float(((index.block_hi - index.block_lo) < self.k).mean())
