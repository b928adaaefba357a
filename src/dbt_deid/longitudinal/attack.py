"""Simulated attacks used to check the de-identification (seed 001, "Empirical Evaluation").

Attack 1 (nosey neighbour), repeated ``iterations`` times (10,000 in the paper):

1. draw membership from a Bernoulli(alpha): is the person the adversary knows in the data set?
   If not, the iteration fails;
2. pick a target patient at random from D1 (all claims, generalized as released);
3. draw p_ih values of each claim QI from the target's D1 claims (plus its demographics);
4. match the knowledge against D2 (the released, truncated claims): the matching set;
5. pick one record of the matching set at random; success when it is the target.

The success rate is the re-identification probability to compare with tau. Attack 2 (voter
list) uses the closed-form marketer risk: matching each released record to a random one of the
F_j population records of its class gives sum_j f_j / F_j expected correct matches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.longitudinal.encoding import EncodedData
from dbt_deid.longitudinal.matching import NodeIndex, draw_knowledge


@dataclass(frozen=True)
class AttackResult:
    """Attack 1: ``success_rate`` (simulated), ``expected_rate`` (same draws, mean of
    membership x target-matches / matching-set size, less noisy), matching-set statistics."""

    success_rate: float
    expected_rate: float
    successes: int
    iterations: int
    members_drawn: int
    target_matched: int
    median_matching_set: float
    variant: str

    def as_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def simulate_attack1(
    d1: EncodedData,
    d2: EncodedData,
    node: tuple[int, ...],
    power: np.ndarray,
    *,
    alpha: float,
    iterations: int = 10_000,
    seed: int = 0,
    variant: str = "values",
) -> AttackResult:
    """Attack 1 with knowledge from ``d1`` (all claims) matched against ``d2`` (released
    claims; same patients and codes, e.g. ``d1.subset_claims(kept)``) at ``node``.
    ``power``: (N, H) p_ih computed on D1."""
    if not 0 < alpha <= 1:
        raise ConfigError(f"alpha (sampling fraction) must be in (0, 1], got {alpha!r}")
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        raise ConfigError(f"iterations must be a positive integer, got {iterations!r}")
    if d1.n_patients != d2.n_patients:
        raise DataError("D1 and D2 must hold the same patients")
    rng = np.random.default_rng(seed)
    member = rng.random(iterations) < alpha
    targets = rng.integers(0, d1.n_patients, iterations)
    know = draw_knowledge(d1, targets, power, rng, variant)
    index = NodeIndex(d2, node, variant=variant)
    m = index.count_matches(d1, know)
    hit = index.contains(d1, know, targets)
    pick = np.floor(rng.random(iterations) * np.maximum(m, 1)).astype(np.int64)
    success = member & hit & (pick == 0)  # the target is one given position of the set
    expected = np.where(member & hit, 1.0 / np.maximum(m, 1), 0.0)
    return AttackResult(
        success_rate=float(success.mean()),
        expected_rate=float(expected.mean()),
        successes=int(success.sum()),
        iterations=iterations,
        members_drawn=int(member.sum()),
        target_matched=int((member & hit).sum()),
        median_matching_set=float(np.median(m)),
        variant=variant,
    )


def marketer_risk(sample_classes: pd.Series, population_classes: pd.Series) -> float:
    """Closed-form marketer risk (seed 001, attack 2; Dankar and El Emam): the expected share
    of released records correctly matched, (1/n) sum_j f_j / F_j, with f_j the released and
    F_j the population (e.g. voter list) size of class j (both indexed by class)."""
    f = sample_classes[sample_classes > 0]
    big = population_classes.reindex(f.index)
    if big.isna().any() or (big < f).any():
        raise DataError("every released class needs a population class at least as large")
    return float((f / big).sum() / f.sum())


def expected_marketer_risk(population_classes: pd.Series) -> float:
    """Marketer risk when the release is a simple random sample of the population: E[f_j] =
    n F_j / N, so (1/n) sum_j E[f_j] / F_j = J / N (classes over population size), whatever
    the sample size."""
    pop = population_classes[population_classes > 0]
    if pop.empty:
        raise DataError("population has no classes")
    return float(len(pop) / pop.sum())
