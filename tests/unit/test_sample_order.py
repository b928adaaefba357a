"""seed 000's order (El Emam et al. 2011, "Attack 3"): the whole population is suppressed so that
every class has at least k people, then the disjoint 10% files are drawn from it
(dbt_deid.sampling); the setting sample.order and the SQL twin of the sample hash."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dbt_deid.config import parse_release
from dbt_deid.errors import ConfigError
from dbt_deid.sampling import population_first, sample_mask

COMBOS = [["age", "sex", "region"], ["age", "sex", "dx"]]


def population(n: int = 6000, seed: int = 11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "rid": np.arange(n) * 7 + 3,
        "age": rng.integers(0, 18, n).astype(str),
        "sex": rng.choice(["F", "M"], n),
        "region": rng.choice(list("ABCDEFGHIJ"), n,
                             p=[.3, .2, .1, .1, .1, .05, .05, .04, .03, .03]),
        "dx": (rng.zipf(1.6, n) % 60).astype(str),
    })


def class_sizes(frame: pd.DataFrame, combo: list[str]) -> pd.Series:
    return frame[combo].astype(object).where(frame[combo].notna(), "*").value_counts()


def test_every_population_class_has_k_records_before_sampling() -> None:
    pop = population()
    for combo in COMBOS:
        assert class_sizes(pop, combo).min() < 20  # the input is not k-anonymous
    rel = population_first(pop, "rid", 20, COMBOS, 0.1, [0, 1], 2011)
    assert len(rel.population) == len(pop)
    assert sorted(rel.population["rid"]) == sorted(pop["rid"])  # no record dropped
    for combo in COMBOS:
        assert class_sizes(rel.population, combo).min() >= 20
    # a released cell is the record's own value or suppressed
    merged = rel.population.merge(pop, on="rid", suffixes=("", "_true"))
    for q in ["age", "sex", "region", "dx"]:
        assert (merged[q].isna() | (merged[q] == merged[f"{q}_true"])).all()


def test_the_files_are_disjoint_samples_of_the_suppressed_population() -> None:
    pop = population()
    rel = population_first(pop, "rid", 20, COMBOS, 0.1, [0, 1], 2011)
    a, b = rel.samples
    assert set(a["rid"]).isdisjoint(b["rid"])
    for s in (a, b):
        assert 0.08 * len(pop) < len(s) < 0.12 * len(pop)
        rows = s.merge(rel.population, on="rid", suffixes=("", "_pop"))
        assert len(rows) == len(s)
        for q in ["age", "sex", "region", "dx"]:
            same = rows[q].isna() & rows[f"{q}_pop"].isna() | (rows[q] == rows[f"{q}_pop"])
            assert same.all()


def test_seeded_reproducibility() -> None:
    pop = population()
    one = population_first(pop, "rid", 20, COMBOS, 0.1, [0, 1], 2011)
    shuffled = pop.sample(frac=1.0, random_state=5).reset_index(drop=True)
    two = population_first(shuffled, "rid", 20, COMBOS, 0.1, [0, 1], 2011)
    for x, y in zip(one.samples, two.samples, strict=True):
        pd.testing.assert_frame_equal(x, y)
    other = population_first(pop, "rid", 20, COMBOS, 0.1, [0], 7).samples[0]
    assert set(other["rid"]) != set(one.samples[0]["rid"])


def test_sample_mask_slots_partition_the_records() -> None:
    ids = [f"id-{i}" for i in range(5000)]
    masks = [sample_mask(ids, 0.25, s, 3) for s in range(4)]
    assert (np.sum(masks, axis=0) == 1).all()
    # the SQL condition's bounds: md5('3:id-0')[:8] compared as hex text
    with pytest.raises(ConfigError, match="sample.slot"):
        sample_mask(ids, 0.5, 2, 3)


BASE = {"source": "s", "record_id": "id", "max_suppression": 0.1, "tau": 0.05,
        "quasi_identifiers": {"age": {}}}


def test_sample_order_setting() -> None:
    parse_release({**BASE, "sample": {"fraction": 0.1, "order": "population_first"}})
    parse_release({**BASE, "sample": {"fraction": 0.1, "order": "sample_first"}})
    parse_release({**BASE, "sample": {"fraction": 0.1}})
    with pytest.raises(ConfigError, match="'sample.order': must be one of sample_first"):
        parse_release({**BASE, "sample": {"fraction": 0.1, "order": "population"}})
    with pytest.raises(ConfigError, match="population_first protects the whole population"):
        parse_release({**{k: v for k, v in BASE.items() if k != "tau"},
                       "population_threshold": 20, "sampling_fraction": 0.1,
                       "sample": {"fraction": 0.1, "order": "population_first"}})
