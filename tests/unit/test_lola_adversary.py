"""The adversary's knowledge model (El Emam et al. 2012, "Adversary Knowledge and Power"): the
known demographics, the power functions, set / distinct / multiset matching, the settings, and
the public HHP members' class sizes that show the literal Table 2 reading fails the paper's own
release (dbt_deid.longitudinal.adversary, docs/lola-adversary.md)."""

from __future__ import annotations

import numpy as np
import pytest

from dbt_deid.errors import ConfigError
from dbt_deid.longitudinal import calibration as cal
from dbt_deid.longitudinal.adversary import LITERAL, AdversaryModel, reconstructed
from dbt_deid.longitudinal.attack import simulate_attack1
from dbt_deid.longitudinal.bootstrap import (
    NodeEvaluator,
    k_for_sample,
    max_sup_from_risk_exposure,
    power_matrix,
)
from dbt_deid.longitudinal.encoding import DEFAULT_DEMOGRAPHIC_QIS, encode
from dbt_deid.longitudinal.hierarchies import default_hierarchies
from dbt_deid.longitudinal.matching import NodeIndex, brute_force_count, draw_knowledge
from dbt_deid.longitudinal.power import power_formula
from dbt_deid.longitudinal.settings import claims_settings
from dbt_deid.tools.synthetic.claims import generate_hhp

NODE5 = (2, 1, 2, 3)  # Table 5 in the default hierarchies' levels


@pytest.fixture(scope="module")
def medium():
    d = generate_hhp(400, 11)
    return d, encode(d.patients, d.claims, default_hierarchies())


# -- the public members: the published node under each reading ---------------------------------
def test_published_node_passes_under_default_and_fails_under_literal_table2():
    """At the Table 5 node, k = 4 (alpha = 113,000 / 700,000, tau 0.05) and MaxSup 0.8%, the
    public members' demographics alone put 1.80% of patients below k when age, sex and both
    DaysInHospital years are known exactly (Table 2 read literally): the published release
    would fail its own limit. The default model (age and sex known) leaves none below k."""
    k = k_for_sample(0.05, cal.SAMPLING_FRACTION)
    max_sup = max_sup_from_risk_exposure(0.05)
    assert (k, max_sup) == (4, 0.008)
    literal = LITERAL.known(DEFAULT_DEMOGRAPHIC_QIS)
    default = reconstructed(DEFAULT_DEMOGRAPHIC_QIS).known(DEFAULT_DEMOGRAPHIC_QIS)
    assert literal == ("age", "sex", "dih_y2", "dih_y3") and default == ("age", "sex")
    assert cal.member_share_below(literal, k) == pytest.approx(2036 / 113_000)
    assert cal.member_share_below(literal, k) > max_sup
    assert cal.member_share_below(default, k) == 0.0 <= max_sup
    assert cal.HHP_MEMBER_CLASS_SIZES[default]["smallest"] >= k
    # one DaysInHospital year known would still pass (0.19% / 0.17%), both do not
    assert cal.member_share_below(("age", "sex", "dih_y2"), k) < max_sup
    assert cal.member_share_below(("age", "sex", "dih_y3"), k) < max_sup


def test_committed_member_counts_are_consistent():
    assert sum(cal.HHP_AGE_BAND_COUNTS) == cal.PAPER_PATIENTS
    assert sum(cal.HHP_SEX_COUNTS.values()) == cal.PAPER_PATIENTS
    assert sum(cal.HHP_DIH_COUNTS[2].values()) == cal.HHP_MEMBERS_WITH_CLAIMS[1]
    assert sum(cal.HHP_DIH_COUNTS[3].values()) == cal.HHP_MEMBERS_WITH_CLAIMS[2]
    positive = {d: cal.HHP_DIH_COUNTS[2][d] + cal.HHP_DIH_COUNTS[3][d] for d in range(1, 16)}
    assert positive == cal.HOSPITAL_DAYS_COUNTS


# -- power functions ---------------------------------------------------------------------------
def test_power_functions():
    n = np.arange(1, 300)
    for d in (0.0, 0.4, 1.0):
        old = power_formula(n, np.full(len(n), d), function="log_diversity")
        rec = power_formula(n, np.full(len(n), d), function="reconstructed")
        assert (rec == old).all()  # the same at the paper's p_m = 5
        for pm in (10, 15):
            rec = power_formula(n, np.full(len(n), d), pm, function="reconstructed")
            old = power_formula(n, np.full(len(n), d), pm, function="log_diversity")
            assert (rec <= old).all() and (rec >= 1).all() and (np.diff(rec) >= 0).all()
    # p_m barely raises the reconstruction's power: 5 -> 6 -> 6 at 100 repeated values, where
    # the former formula gives 5 -> 10 -> 15
    assert [power_formula(100, 0.0, pm, function="reconstructed").item()
            for pm in (5, 10, 15)] == [5, 6, 6]
    assert power_formula(100, 1.0, function="reconstructed").item() == 3
    assert power_formula(np.array([1, 3, 9]), np.zeros(3), function="claims").tolist() == [1, 3, 5]
    with pytest.raises(ConfigError, match="power_function"):
        power_formula(3, 0.0, function="nope")


# -- matching ----------------------------------------------------------------------------------
@pytest.mark.parametrize("matching", ["distinct", "set"])
def test_set_matching_equals_brute_force(medium, matching):
    _, data = medium
    rng = np.random.default_rng(7)
    power = rng.integers(0, 4, (data.n_patients, len(data.spec.claim_qis)))
    know = draw_knowledge(data, rng.integers(0, data.n_patients, 120), power, rng,
                          matching=matching)
    for known in (None, ("age", "sex")):
        for node in [(0, 0, 0, 0), (2, 1, 2, 3)]:
            index = NodeIndex(data, node, known=known)
            counts = index.count_matches(data, know)
            brute = [brute_force_count(data, node, data, know, e, known=known)
                     for e in range(know.size)]
            assert counts.tolist() == brute and (counts >= 1).all()


def test_distinct_draws_are_distinct_values(medium):
    _, data = medium
    rng = np.random.default_rng(3)
    power = np.full((data.n_patients, len(data.spec.claim_qis)), 4)
    pats = rng.integers(0, data.n_patients, 80)
    know = draw_knowledge(data, pats, power, rng, matching="distinct")
    for q in data.spec.claim_qis:
        e, rows = know.picks[q]
        codes = data.claim_codes[q][0]
        for j, i in enumerate(pats):
            mine = codes[rows[e == j]]
            own = codes[data.offsets[i]:data.offsets[i + 1]]
            assert len(set(mine.tolist())) == len(mine) == min(4, len(set(own.tolist())))


def test_weaker_knowledge_never_fewer_matches(medium):
    """Knowing fewer demographics, or values as a set, can only widen the matching set."""
    d, data = medium
    power = power_matrix(data, None, d.claims, 5, "log_diversity")
    shares = {}
    for name, model in {"literal": LITERAL,
                        "set": AdversaryModel(None, "log_diversity", "set"),
                        "age_sex": AdversaryModel(("age", "sex"), "log_diversity", "set")}.items():
        ev = NodeEvaluator(data, power, k=3, max_sup=0.01, pool_size=2_000, seed=1, model=model)
        shares[name] = ev.evaluate(NODE5).mean
    assert shares["literal"] >= shares["set"] >= shares["age_sex"]
    assert shares["literal"] > shares["age_sex"]
    att = simulate_attack1(data, data, NODE5, power, alpha=1.0, iterations=300, seed=1,
                           model=AdversaryModel(("age", "sex"), "log_diversity", "distinct"))
    assert att.target_matched == att.members_drawn  # the target always matches itself


# -- settings ----------------------------------------------------------------------------------
BASE = {"patients": "p", "claims": "c", "demographic_qis": ["age", "sex", "dih_y2"],
        "claim_qis": ["specialty"]}


def test_settings_default_to_the_reconstruction():
    cfg = claims_settings(BASE)
    assert cfg["adversary"] == AdversaryModel(("age", "sex"), "reconstructed", "multiset")
    other = claims_settings({**BASE, "demographic_qis": ["age_band", "gender"]})
    assert other["adversary"].known(["age_band", "gender"]) == ("age_band", "gender")
    strict = claims_settings({**BASE, "known_demographic_qis": ["age", "sex", "dih_y2"],
                              "power_function": "log_diversity",
                              "knowledge_matching": "multiset"})
    assert strict["adversary"] == AdversaryModel(("age", "sex", "dih_y2"), "log_diversity",
                                                 "multiset")


@pytest.mark.parametrize("setting,value", [
    ("known_demographic_qis", ["age", "specialty"]),
    ("known_demographic_qis", "age"),
    ("power_function", "linear"),
    ("knowledge_matching", "bag"),
])
def test_settings_errors_name_the_setting(setting, value):
    with pytest.raises(ConfigError, match=f"'{setting}'"):
        claims_settings({**BASE, setting: value})
