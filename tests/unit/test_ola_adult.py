"""OLA on the real Adult benchmark (skipped when the shared data set is absent)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from dbt_deid.ola import load_hierarchies, run_ola

ADULT = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "adult"
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation", "salary-class"]


@pytest.fixture(scope="module")
def adult():
    if not (ADULT / "adult.csv").exists():
        pytest.skip(f"Adult benchmark not found at {ADULT} (shared data is not in the repo)")
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    patterns = frame.groupby(QIS).size().reset_index(name="n")
    hierarchies = load_hierarchies({c: ADULT / f"adult_hierarchy_{c}.csv" for c in QIS})
    return frame, patterns, hierarchies


def test_hierarchies_give_the_documented_lattice(adult) -> None:
    _, _, hierarchies = adult
    assert {c: h.height + 1 for c, h in hierarchies.items()} == {
        "age": 5, "education": 4, "marital-status": 3, "native-country": 3, "occupation": 3,
        "workclass": 3, "race": 2, "salary-class": 2, "sex": 2,
    }


def test_k5_maxsup_5_percent_finds_a_passing_node(adult) -> None:
    frame, patterns, hierarchies = adult
    r = run_ola(patterns, hierarchies, 5, 0.05)
    assert r.n_records == len(frame) == 30162
    assert r.lattice_size == 12960
    assert r.chosen is not None
    assert 0 < r.suppressed <= 0.05 * len(frame)
    assert r.evaluated < r.lattice_size
    # the chosen levels really give classes >= 5 once the small classes are suppressed
    out = r.apply(patterns)
    kept = out[~out["suppressed"]]
    assert kept.groupby(QIS)["n"].sum().min() >= 5
    assert int(out.loc[out["suppressed"], "n"].sum()) == r.suppressed


@pytest.mark.parametrize("metric", ["entropy", "precision", "discernibility", "loss"])
def test_matches_exhaustive_search_on_a_reduced_lattice(adult, metric: str) -> None:
    _, patterns, hierarchies = adult
    caps = {"age": 2, "education": 1, "marital-status": 1, "native-country": 1,
            "occupation": 1, "workclass": 1}
    ola = run_ola(patterns, hierarchies, 5, 0.05, metric, caps)
    full = run_ola(patterns, hierarchies, 5, 0.05, metric, caps, search="exhaustive")
    assert full.lattice_size == 3 * 2**8
    assert ola.chosen is not None
    assert [r.node for r in ola.k_minimal] == [r.node for r in full.k_minimal]
    assert (ola.chosen, ola.metric_value, ola.suppressed) == (
        full.chosen, full.metric_value, full.suppressed)
    assert ola.evaluated < full.evaluated
