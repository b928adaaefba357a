"""Adversary power, match counting, bootstrap node evaluation, LOLA search and attacks
(El Emam et al. 2012, "Adversary Knowledge and Power", "Node Computation", "Empirical
Evaluation")."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.longitudinal.attack import (
    expected_marketer_risk,
    marketer_risk,
    population_marketer_risk,
    simulate_attack1,
)
from dbt_deid.longitudinal.bootstrap import (
    NodeEvaluator,
    k_for_sample,
    max_sup_from_risk_exposure,
    power_matrix,
    wilson_interval,
)
from dbt_deid.longitudinal.calibration import illustrative_population
from dbt_deid.longitudinal.encoding import encode
from dbt_deid.longitudinal.hierarchies import default_hierarchies
from dbt_deid.longitudinal.matching import NodeIndex, brute_force_count, draw_knowledge
from dbt_deid.longitudinal.power import adversary_power, check_power, power_formula
from dbt_deid.longitudinal.preprocess import truncate_claims
from dbt_deid.longitudinal.search import lattice_for, lola_search, non_uniform_entropy
from dbt_deid.longitudinal.settings import claims_settings
from dbt_deid.ola.lattice import Lattice
from dbt_deid.settings_resolve import resolve
from dbt_deid.tools.cli import main
from dbt_deid.tools.synthetic.claims import generate_hhp

TOP = (3, 2, 4, 3)


@pytest.fixture(scope="module")
def small():
    d = generate_hhp(120, 11)
    data = encode(d.patients, d.claims, default_hierarchies())
    return d, data


@pytest.fixture(scope="module")
def medium():
    d = generate_hhp(400, 11)
    return encode(d.patients, d.claims, default_hierarchies())


# -- power -------------------------------------------------------------------------------------
def test_power_monotone_capped_and_bounded():
    n = np.arange(1, 400)
    for d in (0.0, 0.3, 0.7, 1.0):
        p = power_formula(n, np.full(len(n), d))
        assert (np.diff(p) >= 0).all()  # increasing with the number of claims
        assert (p <= 5).all() and (p >= 1).all() and (p <= n).all()
    div = np.linspace(0, 1, 50)
    for k in (2, 5, 11, 40, 200):
        p = power_formula(np.full(50, k), div)
        assert (np.diff(p) <= 0).all()  # decreasing with diversity
    assert power_formula(1000, 0.0, p_max=15).item() == 15
    assert power_formula(1000, 0.0).item() == 5
    assert power_formula(7, 0.0).item() > power_formula(7, 1.0).item()


def test_p_max_matters_above_10(small):
    """Table 7's sensitivity runs (p_max 10 and 15) must give the adversary more knowledge about
    patients with many claims, never more claims than a patient has."""
    d, data = small
    n = data.claims_per_patient
    means = {}
    for pm in (5, 10, 15):
        p = power_matrix(data, None, d.claims, pm)
        assert (p <= np.minimum(n, pm)[:, None]).all() and (p[n > 0] >= 1).all()
        means[pm] = p[n > 40].mean()
    assert means[5] < means[10] < means[15]
    few = n <= 5  # "many patients had 5 claims or fewer": their power cannot grow much
    assert (power_matrix(data, None, d.claims, 15)[few] <= 5).all()
    # the formula's anchors: full power at N_FULL = 100 claims of one repeated value
    assert power_formula(100, 0.0, p_max=15).item() == 15
    assert power_formula(100, 1.0, p_max=15).item() == 8  # half, rounded up, for all-distinct


def test_adversary_power_from_claims_and_user_table():
    claims = pd.DataFrame({
        "member_id": [1] * 8 + [2] * 8 + [3],
        "specialty": ["A"] * 8 + list("ABCDEFGH") + ["A"],
    })
    p = adversary_power(claims, ["specialty"])
    assert p.loc[1, "specialty"] > p.loc[2, "specialty"]  # same n, less diversity
    assert p.loc[3, "specialty"] == 1 and list(p["n_claims"]) == [8, 8, 1]
    with pytest.raises(ConfigError, match="p_max"):
        adversary_power(claims, ["specialty"], p_max=0)
    user = pd.DataFrame({"specialty": [2, 1, 1]}, index=[1, 2, 3])
    assert check_power(user, ["specialty"], pd.Index([1, 2, 3]))["specialty"].tolist() == [2, 1, 1]
    with pytest.raises(DataError, match="no row"):
        check_power(user, ["specialty"], pd.Index([1, 2, 4]))
    with pytest.raises(DataError, match="integers"):
        check_power(user.assign(specialty=[1.5, 1, 1]), ["specialty"], pd.Index([1, 2, 3]))


# -- matching ----------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["values", "whole_claim", "ordered_pair"])
def test_match_counts_equal_brute_force(medium, variant):
    data = medium
    rng = np.random.default_rng(5)
    power = rng.integers(0, 2 if variant == "whole_claim" else 3,
                         (data.n_patients, len(data.spec.claim_qis)))
    know = draw_knowledge(data, rng.integers(0, data.n_patients, 150), power, rng, variant)
    most = 0
    for node in [(3, 2, 4, 3), (1, 1, 2, 2)]:
        index = NodeIndex(data, node, variant=variant)
        counts = index.count_matches(data, know)
        brute = [brute_force_count(data, node, data, know, e) for e in range(know.size)]
        assert counts.tolist() == brute
        assert (counts >= 1).all()  # a patient always matches its own knowledge
        most = max(most, int(counts.max()))
        for cap in (1, 2, 4):  # early stop at cap matches: min(count, cap)
            assert index.count_matches(data, know, cap=cap).tolist() == [min(b, cap)
                                                                         for b in brute]
    assert most > 2  # the check (and the caps 1, 2) is not trivial


def test_knowledge_draw_respects_power(small):
    _, data = small
    rng = np.random.default_rng(1)
    power = np.full((data.n_patients, len(data.spec.claim_qis)), 3)
    pats = rng.integers(0, data.n_patients, 50)
    know = draw_knowledge(data, pats, power, rng)
    for q in data.spec.claim_qis:
        e, rows = know.picks[q]
        per = np.bincount(e, minlength=50)
        assert (per == np.minimum(3, data.claims_per_patient[pats])).all()
        assert (data.claim_patient[rows] == pats[e]).all()  # the patient's own claims
        assert len(set(zip(e.tolist(), rows.tolist(), strict=True))) == len(e)  # no replacement


# -- bootstrap ---------------------------------------------------------------------------------
def test_wilson_interval_holds_the_share():
    for p, n in ((0.0, 2000), (1.0, 50), (0.008, 100_000), (0.5, 10)):
        lo, hi = wilson_interval(p, n)
        assert 0 <= lo <= p <= hi <= 1
    lo, hi = wilson_interval(0.008, 100_000)
    assert hi - lo == pytest.approx(2 * 1.96 * np.sqrt(0.008 * 0.992 / 100_000), rel=0.02)


def test_k_and_max_sup_helpers():
    assert k_for_sample(0.05, 0.2) == 4 and k_for_sample(0.05, 1.0) == 20
    assert max_sup_from_risk_exposure(0.05) == pytest.approx(0.008)
    with pytest.raises(ConfigError):
        max_sup_from_risk_exposure(0)


def _evaluator(data, power, seed=3, **kw):
    opts = {"k": 2, "max_sup": 0.5, "n_bootstrap": 150, "n_iterations": 30, "seed": seed,
            "pool_size": 600}
    opts.update(kw)
    return NodeEvaluator(data, power, **opts)


def test_bootstrap_reproducible_and_monotone(small):
    d, data = small
    power = power_matrix(data, None, d.claims)
    chain = [(0, 0, 0, 0), (1, 0, 1, 1), (2, 1, 2, 2), TOP]
    for scheme in ("pooled", "independent"):
        kw = {"scheme": scheme, "n_iterations": 8}
        a, b = _evaluator(data, power, **kw), _evaluator(data, power, **kw)
        ra = [a.evaluate(n) for n in chain]
        rb = [b.evaluate(n) for n in chain]
        assert [(r.mean, r.ci_low, r.ci_high) for r in ra] == [(r.mean, r.ci_low, r.ci_high)
                                                               for r in rb]
        means = [r.mean for r in ra]
        assert all(x >= y for x, y in zip(means, means[1:], strict=False)), scheme
        assert all(r.ci_low <= r.mean <= r.ci_high for r in ra)
        assert all(r.iter_low <= r.iter_high for r in ra) and ra[0].mean > 0
    c = _evaluator(data, power, seed=4)
    assert not np.array_equal(c.knowledge.patient, _evaluator(data, power).knowledge.patient)
    with pytest.raises(ConfigError, match="scheme"):
        _evaluator(data, power, scheme="resampled")
    with pytest.raises(ConfigError, match="pool_size"):
        _evaluator(data, power, pool_size=0)


def test_pooled_mean_is_as_precise_as_independent_iterations(medium):
    """The pooled scheme's mean has (at most) the variance of the paper's independent
    iterations with B x I = pool_size draws, on repeated seeds; the old scheme (a pool of B
    draws resampled I times) had the variance of a single iteration."""
    data = medium
    power = np.ones((data.n_patients, len(data.spec.claim_qis)), dtype=np.int64)
    node, b, i = TOP, 40, 25
    seeds = range(40)

    def spread(**kw):
        return np.array([_evaluator(data, power, seed=s, n_bootstrap=b, n_iterations=i,
                                    **kw).evaluate(node).mean for s in seeds])

    indep = spread(scheme="independent")
    pooled = spread(scheme="pooled", pool_size=b * i)
    old = spread(scheme="pooled", pool_size=b)  # = the former pool of B draws
    p = indep.mean()
    assert 0.05 < p < 0.95  # a node where the variance is not trivially 0
    assert abs(pooled.mean() - p) < 3 * np.sqrt(indep.var() / len(seeds) + pooled.var()
                                                / len(seeds))  # same quantity
    assert pooled.var() <= 1.5 * indep.var()
    assert indep.var() <= 1.6 * p * (1 - p) / (b * i)  # the paper's precision, B x I draws
    assert old.var() > 5 * indep.var()
    # the reported standard error bounds the pooled mean's spread
    se = _evaluator(data, power, n_bootstrap=b, n_iterations=i, pool_size=b * i).evaluate(node).se
    assert pooled.std() <= 1.25 * se


def test_lola_matches_exhaustive_search(small):
    d, data = small
    power = np.minimum(power_matrix(data, None, d.claims), 1)
    probe = _evaluator(data, power)
    mid = probe.evaluate((2, 1, 2, 2)).mean
    lattice = Lattice(data.spec.dimension_names, (1, 0, 1, 1), (3, 2, 3, 3))
    ola = lola_search(data, _evaluator(data, power, max_sup=mid), lattice)
    full = lola_search(data, _evaluator(data, power, max_sup=mid), lattice, exhaustive=True)
    assert ola.chosen is not None and ola.chosen == full.chosen
    assert sorted(ola.candidates) == sorted(full.candidates)
    assert ola.evaluated <= full.evaluated == lattice.size
    best = min(full.candidates, key=lambda c: c[1])
    assert ola.entropy == pytest.approx(best[1])
    assert ola.evaluations[ola.chosen].candidate


def test_entropy_grows_with_generalization(small):
    _, data = small
    assert non_uniform_entropy(data, (0, 0, 0, 0)) == 0.0
    e = [non_uniform_entropy(data, n) for n in [(1, 0, 0, 0), (2, 0, 0, 0), (2, 1, 1, 0), TOP]]
    assert all(x <= y for x, y in zip(e, e[1:], strict=False))
    assert e[0] > 0 and e[-1] > e[1]
    assert lattice_for(data).size == 4 * 3 * 5 * 4


# -- attacks -----------------------------------------------------------------------------------
def test_attack1_sanity(small):
    d, d1 = small
    kept, _ = truncate_claims(d.claims, 80)
    d2 = d1.subset_claims(np.isin(d1.claim_ids, kept["claim_id"].to_numpy()))
    power = power_matrix(d1, None, d.claims)
    r = simulate_attack1(d1, d2, TOP, power, alpha=1.0, iterations=400, seed=2)
    assert r.members_drawn == 400 and 0 < r.success_rate <= 1
    assert r.target_matched <= r.members_drawn
    assert abs(r.success_rate - r.expected_rate) < 0.1
    low = simulate_attack1(d1, d2, TOP, power, alpha=0.1, iterations=400, seed=2)
    assert low.success_rate <= 0.1 + 0.05 and low.members_drawn < 100
    # no truncation: every target matches itself in D2
    same = simulate_attack1(d1, d1, TOP, power, alpha=1.0, iterations=200, seed=1)
    assert same.target_matched == 200
    # more generalization cannot make the attack more successful in expectation
    fine = simulate_attack1(d1, d1, (0, 0, 0, 0), power, alpha=1.0, iterations=200, seed=1)
    assert fine.expected_rate >= same.expected_rate


def test_attack2_against_population_counts():
    """El Emam et al. 2012 attack 2: (1/n) sum_j f_j / F_j with F_j people per class of a
    population table
    (census style, here by 5-year band, rolled up to the release's 10-year bands), not f / alpha;
    a missing released value matches every population value of its QI."""
    h = {"age": default_hierarchies()["age"]}
    pop = pd.DataFrame({"age": ["20-24", "25-29", "20-24", "25-29", "30-34"],
                        "sex": ["F", "F", "M", "M", "M"],
                        "population": [100, 100, 50, 50, 10]})
    released = pd.DataFrame({"age": ["20-29", "20-29", "20-29", "20-29", "30-39"],
                             "sex": ["F", "F", "F", None, "M"]})
    res = population_marketer_risk(released, pop, ["age", "sex"], hierarchies=h,
                                   levels={"age": 2})
    assert res.expected_matches == pytest.approx(3 / 200 + 1 / 300 + 1 / 10)
    assert res.risk == pytest.approx(res.expected_matches / 5)
    assert (res.records, res.classes, res.population) == (5, 3, 310)
    with pytest.raises(DataError, match="coarser than the release"):  # bands -> single years
        population_marketer_risk(released.assign(age=["24", "24", "25", "25", "31"]), pop,
                                 ["age", "sex"], hierarchies=h, levels={"age": 0})
    with pytest.raises(DataError, match="fewer people"):  # the release is not a sample of it
        population_marketer_risk(released, pop.assign(population=[1, 1, 1, 1, 1]),
                                 ["age", "sex"], hierarchies=h, levels={"age": 2})
    with pytest.raises(DataError, match="lacks column"):
        population_marketer_risk(released, pop.drop(columns=["population"]), ["age", "sex"])


def test_demo_population_seed_is_the_illustrative_population():
    seed = pd.read_csv(Path(__file__).resolve().parents[2] / "demo" / "seeds" / "claims"
                       / "claims_population.csv")
    pd.testing.assert_frame_equal(seed, illustrative_population(), check_dtype=False)


def test_marketer_risk_closed_form():
    f = pd.Series({"a": 2, "b": 3})
    big = pd.Series({"a": 4, "b": 30, "c": 10})
    assert marketer_risk(f, big) == pytest.approx((2 / 4 + 3 / 30) / 5)
    assert expected_marketer_risk(big) == pytest.approx(3 / 44)
    with pytest.raises(DataError):
        marketer_risk(pd.Series({"z": 1}), big)


def test_cli_lola_demo(capsys):
    args = ["lola-demo", "--patients", "300", "--bootstrap", "200", "--iterations", "20",
            "--attack-iterations", "300", "--pool-size", "3000"]
    assert main(args) == 0  # the paper's settings: refused, with what to relax
    out = json.loads(capsys.readouterr().out)
    assert out["k"] == 4 and out["max_sup"] == pytest.approx(0.008)
    assert out["lola"]["chosen_node"] is None and "Relax a limit" in out["message"]
    assert out["attack2"]["risk"] < 1e-4
    assert main([*args, "--alpha", "0.03"]) == 0  # a 3% sample: k = 1, a node passes
    out = json.loads(capsys.readouterr().out)
    assert out["k"] == 1 and out["lola"]["chosen_node"] is not None and out["message"] is None
    assert 0 <= out["attack1"]["success_rate"] <= 0.1
    assert main(["lola-demo", "--patients", "0"]) == 2


def test_claims_settings_validate_like_the_jinja_macro():
    base = {"demographic_qis": ["age", "sex"], "claim_qis": ["los"]}
    cfg = claims_settings(base)
    assert (cfg["bootstrap_scheme"], cfg["pool_size"], cfg["attack2_qis"]) == ("pooled", 100_000,
                                                                               [])
    assert cfg["max_suppression"] == pytest.approx(0.008) and cfg["truncate_partition"] == []
    for bad, name in (({"relaxed_max_sup": 0.6}, "relaxed_max_sup"),
                      ({"bootstrap_scheme": "resampled"}, "bootstrap_scheme"),
                      ({"pool_size": 0}, "pool_size"),
                      ({"truncate_partition": ["los"]}, "truncate_partition"),
                      ({"attack2_qis": ["age"]}, "attack2_population"),
                      ({"attack2_population": "pop"}, "attack2_qis"),
                      ({"attack2_population": "pop", "attack2_qis": ["los"]}, "attack2_qis")):
        with pytest.raises(ConfigError, match=f"setting '{name}'"):
            claims_settings({**base, **bad})
    # review r10, L1: a case variant of a published column named the setting only when spelt
    # the same (`Provider_Id` was accepted, and the publish gate refused a raw provider_id_1)
    var = {**base, "patients": "p", "claims": "c", "hierarchies": {"age": "age_h"}}
    for table, column in (("patients", "AGE"), ("patients", "Member_ID"), ("claims", "LOS")):
        with pytest.raises(ConfigError, match=f"setting 'release_columns.{table}': {column} is"
                           " already published"):
            resolve("claims", {**var, "release_columns": {table: [column]}})
    ok = claims_settings({**base, "attack2_population": "pop", "attack2_qis": ["age", "sex"],
                          "truncate_partition": ["year"], "bootstrap_scheme": "independent"})
    assert ok["attack2_qis"] == ["age", "sex"] and ok["truncate_partition"] == ["year"]
