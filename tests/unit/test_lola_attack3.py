"""Attack 3 of El Emam et al. 2012 (Table 6): closed-form marketer risk against a population of
inpatient visits, checked against a brute-force count on a tiny population."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from dbt_deid.errors import DataError, DeidError
from dbt_deid.longitudinal.attack3 import NUMBER_OF_VISITS, attack3_table

QI_SETS = [["age", "sex", "los", NUMBER_OF_VISITS], ["age", "sex", "pcg", NUMBER_OF_VISITS],
           ["age", "sex", "los", "pcg"], ["age", "los"]]


def tiny_population(seed: int = 4, people: int = 60) -> pd.DataFrame:
    """A seeded SID-like table: 60 people, 0-3 inpatient visits a year over 3 years, coarse
    values so that signatures collide."""
    rng = np.random.default_rng(seed)
    rows = []
    for pid in range(people):
        age, sex = rng.choice(["40-49", "50-59"]), rng.choice(["F", "M"])
        for year in (1, 2, 3):
            for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
                rows.append((pid, year, age, sex, rng.choice(["1", "2-3", "4+"]),
                             rng.choice(["HEART2", "COPD"])))
    return pd.DataFrame(rows, columns=["member_id", "year", "age", "sex", "los", "pcg"])


def brute_force(released: pd.DataFrame, population: pd.DataFrame, qis: list[str],
                years: list[int] | None, n_released: int) -> float:
    """For every released patient, count population patients with the same patient values,
    number of visits and multiset of visit values (by explicit comparison), and sum 1 / count."""
    pat = [q for q in qis if q in ("age", "sex")]
    vis = [q for q in qis if q not in ("age", "sex", NUMBER_OF_VISITS)]

    def person(frame: pd.DataFrame, pid: int) -> tuple | None:
        v = frame[frame["member_id"] == pid]
        if years is not None:
            v = v[v["year"].isin(years)]
        if v.empty:
            return None
        cols = vis if years is not None else ["year", *vis]
        visits = Counter(zip(*(v[c].astype(str) for c in cols), strict=True))
        head = tuple(str(v.iloc[0][c]) for c in pat)
        return head, visits, (len(v) if NUMBER_OF_VISITS in qis else None)

    everyone = [person(population, q) for q in population["member_id"].unique()]
    total = 0.0
    for pid in released["member_id"].unique():
        mine = person(released, pid)
        if mine is None:
            continue
        same = sum(other == mine for other in everyone)
        total += 1.0 / same
    return total / n_released


def test_closed_form_equals_brute_force():
    pop = tiny_population()
    sample = [0, 3, 5, 8, 13, 21, 34, 40, 41, 55]       # the release: a sample of the people
    released = pop[pop["member_id"].isin(sample)]
    table = attack3_table(released, pop, QI_SETS, n_released=len(sample))
    assert list(table.columns) == ["qis", "year_1", "year_2", "year_3", "all_years"]
    nonzero = 0
    for i, qis in enumerate(QI_SETS):
        for col, years in (("year_1", [1]), ("year_2", [2]), ("year_3", [3]),
                           ("all_years", None)):
            want = brute_force(released, pop, qis, years, len(sample))
            assert table.loc[i, col] == pytest.approx(want), (qis, col)
            nonzero += want > 0
            assert 0 <= want <= 1
    assert nonzero > 8
    # more QIs can only make signatures rarer: all years >= each year for the same QI set
    assert (table["all_years"] >= table[["year_1", "year_2", "year_3"]].min(axis=1)).all()


def test_release_must_be_a_sample_of_the_population():
    pop = tiny_population()
    released = pop[pop["member_id"] == 3].assign(los="99")  # no population patient has it
    with pytest.raises(DataError, match="1 released patient"):
        attack3_table(released, pop, [["age", "los"]], n_released=1)
    with pytest.raises(DataError, match="lacks column"):
        attack3_table(pop, pop, [["age", "cpt"]], n_released=5)


def test_truncated_visits_add_zero_and_are_counted():
    """The release step's reading (absent="zero"): a released patient whose visits the release
    truncated has a signature no population patient has; it cannot be matched correctly, adds
    0 and is counted, and the other patients' terms are the strict closed form's."""
    from dbt_deid.longitudinal.attack3 import attack3_rows

    pop = tiny_population()
    sample = [0, 3, 5, 8, 13]
    released = pop[pop["member_id"].isin(sample)]
    truncated = released.drop(index=released.index[released["member_id"] == 3][:1])
    rows = attack3_rows(truncated, pop, [["age", "sex", "los"]], n_released=len(sample),
                        absent="zero").set_index("period")
    strict = attack3_rows(released[released["member_id"] != 3], pop, [["age", "sex", "los"]],
                          n_released=len(sample)).set_index("period")
    assert rows.loc["all_years", "patients_not_in_population"] == 1
    assert rows.loc["all_years", "marketer_risk"] == pytest.approx(
        strict.loc["all_years", "marketer_risk"])
    assert rows.loc["all_years", "patients_with_visits"] == len(set(truncated["member_id"]))


def test_synthetic_sid_holds_every_inpatient_visit_of_the_release_source():
    """generate_sid_visits: the release's source patients are in the population with all their
    inpatient visits (the paper's assumption), beside other people; seeded."""
    from dbt_deid.tools.synthetic.claims import SID_COLUMNS, generate_hhp, generate_sid_visits

    sid = generate_sid_visits(300, 5, others=600)
    assert tuple(sid.columns) == SID_COLUMNS
    assert sid.equals(generate_sid_visits(300, 5, others=600))
    hhp = generate_hhp(300, 5)
    visits = hhp.claims[hhp.claims["los"].notna()].merge(hhp.patients, on="member_id")
    key = ["year", "age", "sex", "los", "primary_condition_group", "procedure_group"]

    def counts(frame: pd.DataFrame) -> Counter:
        text = frame[key].astype("string").fillna("<missing>")
        return Counter(text.itertuples(index=False, name=None))

    assert not counts(visits) - counts(sid)          # every source visit is in the SID
    assert sid["patient_id"].nunique() > hhp.claims.loc[hhp.claims["los"].notna(),
                                                        "member_id"].nunique()
    assert not set(sid["patient_id"]) & set(hhp.patients["member_id"])  # its own key


@pytest.mark.parametrize(("change", "setting"), [
    ({"attack3_population": "sid"}, "attack3_qi_sets"),
    ({"attack3_qi_sets": [["age", "los"]]}, "attack3_population"),
    ({"attack3_population": "sid", "attack3_qi_sets": [["age", "cpt"]]}, "attack3_qi_sets"),
    ({"attack3_population": "sid", "attack3_qi_sets": [["age"]], "attack3_visit_column": "age"},
     "attack3_visit_column"),
])
def test_attack3_settings_are_checked_by_the_resolver(change, setting):
    """Relations between settings: refused by the resolver the plan node deid_claims_plan runs;
    the parse-time check leaves them to it (issue 33)."""
    from dbt_deid.settings_resolve import resolve
    from tests.settings_render import jinja_config

    raw = {"patients": "p", "claims": "c", "demographic_qis": ["age", "sex"],
           "claim_qis": ["los"], "hierarchies": {"age": "age_h"}, **change}
    with pytest.raises(DeidError, match=f"setting '{setting}'"):
        resolve("claims", raw)
    jinja_config("claims", raw)
    ok = {**raw, "attack3_population": "sid", "attack3_qi_sets": [["age", "number_of_visits"]]}
    ok.pop("attack3_visit_column", None)
    assert resolve("claims", ok)["attack3_qi_sets"] == [["age", "number_of_visits"]]
    assert jinja_config("claims", ok)["attack3_qi_sets"] == [["age", "number_of_visits"]]
