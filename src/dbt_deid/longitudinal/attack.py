"""Simulated attacks used to check the de-identification (El Emam et al. 2012, "Empirical
Evaluation").

Attack 1 (nosey neighbour), repeated ``iterations`` times (10,000 in the paper):

1. draw membership from a Bernoulli(alpha): is the person the adversary knows in the data set?
   If not, the iteration fails;
2. pick a target patient at random from D1 (all claims, generalized as released);
3. draw p_ih values of each claim QI from the target's D1 claims (plus its demographics);
4. match the knowledge against D2 (the released, truncated claims): the matching set;
5. pick one record of the matching set at random; success when it is the target.

The success rate is the re-identification probability to compare with tau.

Attack 2 (voter list, "Empirical Evaluation"): the paper counts, per class of the matching
quasi-identifiers, the people of the population (2000 census by county, sex and 5-year age
band, as a voter list would hold them) and uses the closed-form marketer risk (Dankar and El
Emam): each released record matched to a random one of the F_j population records of its class
is correct with probability 1 / F_j, so the expected share of released records correctly matched
is (1/n) sum_j f_j / F_j (:func:`population_marketer_risk`; the population comes from a table,
never from f_j / alpha). Attack 3 (State Inpatient Database, Table 6) is the same closed form on
patient signatures built from all their inpatient visits: :mod:`dbt_deid.longitudinal.attack3`
(per QI set, per year and all years, against a population table of visits the user gives; the
SID itself is purchased data and not public).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.longitudinal.adversary import LITERAL, AdversaryModel
from dbt_deid.longitudinal.encoding import EncodedData
from dbt_deid.longitudinal.matching import NodeIndex, draw_knowledge

MISSING = "<missing>"


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
    model: AdversaryModel | None = None,
) -> AttackResult:
    """Attack 1 with knowledge from ``d1`` (all claims) matched against ``d2`` (released
    claims; same patients and codes, e.g. ``d1.subset_claims(kept)``) at ``node``.
    ``power``: (N, H) p_ih computed on D1. ``model``: the adversary's knowledge model
    (default the literal reading, :data:`dbt_deid.longitudinal.adversary.LITERAL`)."""
    model = model or LITERAL
    if not 0 < alpha <= 1:
        raise ConfigError(f"alpha (sampling fraction) must be in (0, 1], got {alpha!r}")
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        raise ConfigError(f"iterations must be a positive integer, got {iterations!r}")
    if d1.n_patients != d2.n_patients:
        raise DataError("D1 and D2 must hold the same patients")
    rng = np.random.default_rng(seed)
    member = rng.random(iterations) < alpha
    targets = rng.integers(0, d1.n_patients, iterations)
    know = draw_knowledge(d1, targets, power, rng, variant, model.matching)
    index = NodeIndex(d2, node, variant=variant, known=model.known(d2.spec.demographic_qis))
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
    """Closed-form marketer risk (El Emam et al. 2012, attack 2; Dankar and El Emam): the expected
    share of released records correctly matched, (1/n) sum_j f_j / F_j, with f_j the released and
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


@dataclass(frozen=True)
class MarketerResult:
    """Closed-form marketer risk against a population: ``risk`` (expected share of released
    records correctly matched), ``expected_matches`` (sum_j f_j / F_j), ``records``, ``classes``
    (released classes) and ``population`` (people in the population table)."""

    risk: float
    expected_matches: float
    records: int
    classes: int
    population: int

    def as_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _label(v: object) -> str | None:
    """A value as its label string (an integral float as an integer: 34.0 -> "34")."""
    if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA:
        return None
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def _labels(values: pd.Series) -> pd.Series:
    return values.astype(object).where(values.notna(), None).map(_label)


def _population_level(q: str, values: pd.Series, hierarchy: pd.DataFrame) -> int:
    """The hierarchy level whose labels the population column uses (the lowest that holds every
    value)."""
    wanted = set(_labels(values).dropna())
    h = sum(1 for c in hierarchy.columns if str(c).startswith("level_")) - 1
    for lvl in range(h + 1):
        if wanted <= set(_labels(hierarchy[f"level_{lvl}"])):
            return lvl
    raise DataError(f"attack 2 population: column {q!r} holds values that are labels of no level"
                    f" of its hierarchy ({len(wanted)} distinct values)")


def population_marketer_risk(
    released: pd.DataFrame,
    population: pd.DataFrame,
    qis: Sequence[str],
    *,
    count: str = "population",
    hierarchies: Mapping[str, pd.DataFrame] | None = None,
    levels: Mapping[str, int] | None = None,
) -> MarketerResult:
    """El Emam et al. 2012 attack 2 (and 3): marketer risk of the released records ``released`` (one
    row per record, the ``qis`` at their release levels as labels; missing = suppressed or unknown)
    against the population counts ``population`` (columns ``qis`` + ``count``).

    A population column may hold the labels of any level of the QI's hierarchy at or below the
    release level (e.g. census 5-year bands for a release in 10-year bands); they are rolled up
    to the release level through ``hierarchies[q]`` (levels nest). A missing released value is
    consistent with every population value of that QI. Every released class needs at least as
    many people in the population as released records (the release is a sample of it): a
    smaller population is a DataError (counts only, never values)."""
    qis = list(qis)
    hierarchies = hierarchies or {}
    levels = levels or {}
    miss = [c for c in [*qis, count] if c not in population.columns]
    if miss:
        raise DataError(f"attack 2 population table lacks column(s) {miss}")
    miss = [c for c in qis if c not in released.columns]
    if miss:
        raise DataError(f"attack 2: the released records lack column(s) {miss}")
    people = pd.to_numeric(population[count], errors="coerce")
    if people.isna().any() or (people < 0).any():
        raise DataError(f"attack 2 population column {count!r} must hold counts >= 0")
    pop = pd.DataFrame({"people": people.to_numpy(dtype=np.float64)})
    for q in qis:
        vals = _labels(population[q])
        if vals.isna().any():
            raise DataError(f"attack 2 population column {q!r} has missing values")
        if q in hierarchies:
            h = hierarchies[q]
            lvl = _population_level(q, vals, h)
            rel = int(levels.get(q, 0))
            if lvl > rel:
                raise DataError(f"attack 2 population: {q!r} is counted at hierarchy level {lvl},"
                                f" coarser than the release (level {rel})")
            up = dict(zip(_labels(h[f"level_{lvl}"]), _labels(h[f"level_{rel}"]),
                          strict=False))
            vals = vals.map(up)
        pop[q] = vals.to_numpy()
    rel_df = pd.DataFrame({q: _labels(released[q]).to_numpy() for q in qis})
    n = len(rel_df)
    if n == 0:
        raise DataError("attack 2: no released records")
    keyed = rel_df.fillna(MISSING)
    f = keyed.groupby(qis, sort=True).size()
    expected, short = 0.0, 0
    cache: dict[tuple[str, ...], pd.Series] = {}
    for key, fj in f.items():
        key = key if isinstance(key, tuple) else (key,)
        known = tuple(q for q, v in zip(qis, key, strict=True) if v != MISSING)
        if known not in cache:
            cache[known] = (pop.groupby(list(known))["people"].sum() if known
                            else pd.Series({(): pop["people"].sum()}))
        look = tuple(v for v in key if v != MISSING)
        table = cache[known]
        big = float(table.get(look if len(look) != 1 else look[0], 0.0)) if known else float(
            table.iloc[0])
        if big < fj:
            short += 1
            continue
        expected += fj / big
    if short:
        raise DataError(f"attack 2: {short} released class(es) have fewer people in the"
                        " population table than released records (the release must be a"
                        " sample of that population)")
    return MarketerResult(expected / n, expected, n, int(len(f)), int(pop["people"].sum()))
