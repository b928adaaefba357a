"""Generator, hierarchies, pseudonyms and preprocessing steps (El Emam et al. 2012,
"Preprocessing")."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from dbt_deid.errors import ConfigError
from dbt_deid.longitudinal.hierarchies import (
    check_hierarchy,
    default_hierarchies,
    generalize,
    los_hierarchy,
)
from dbt_deid.longitudinal.preprocess import (
    STIGMATIZED_CODES,
    claim_scores,
    preprocess,
    remove_stigmatized,
    suppress_rare_provider_patterns,
    top_code,
    truncate_claims,
)
from dbt_deid.longitudinal.pseudonyms import pseudonymize
from dbt_deid.tools.synthetic.claims import generate_hhp

KEY = "k3y-for-tests-only-0123456789abcdef"
ENV = {"DBT_DEID_PSEUDONYM_KEY": KEY}


def test_hierarchies_nest_and_follow_table4():
    for name, h in default_hierarchies().items():
        check_hierarchy(name, h)
    los = pd.Series([0, 6, 7, 14, 15, 28, 29, 200])
    lv2 = generalize(los, los_hierarchy(), 2).tolist()
    assert lv2 == ["0 days", "6 days", "(1-2] weeks", "(1-2] weeks", "(2-4] weeks",
                   "(2-4] weeks", "(4-8] weeks", "26+ weeks"]
    assert generalize(pd.Series([85]), default_hierarchies()["age"], 2).tolist() == ["80+"]


def test_pseudonyms_consistent_irreversible_and_keyed():
    f1 = pd.DataFrame({"member_id": [11, 12, 11, None]})
    f2 = pd.DataFrame({"member_id": [12, 11]})
    o1, rep = pseudonymize(f1, ["member_id"], environ=ENV)
    o2, _ = pseudonymize(f2, ["member_id"], environ=ENV)
    assert o1["member_id"][0] == o1["member_id"][2] == o2["member_id"][1]
    assert o1["member_id"][1] != o1["member_id"][0]
    assert pd.isna(o1["member_id"][3])
    assert rep.changed["member_id_pseudonymized"] == 3 and rep.details["member_id_missing"] == 1
    # not an unkeyed hash of the id, and another key gives other pseudonyms
    plain = {hashlib.sha256(str(v).encode()).hexdigest()[:32] for v in (11, 12, "11", "12")}
    assert not plain & set(o1["member_id"].dropna())
    o3, _ = pseudonymize(f1, ["member_id"], environ={"DBT_DEID_PSEUDONYM_KEY": KEY[::-1]})
    assert o3["member_id"][0] != o1["member_id"][0]
    # the key never appears in outputs
    text = o1.to_csv() + repr(rep) + repr(rep.as_dict())
    assert KEY not in text


def test_missing_or_short_key_is_config_error():
    f = pd.DataFrame({"member_id": [1]})
    with pytest.raises(ConfigError, match="MY_KEY_VAR"):
        pseudonymize(f, ["member_id"], key_env="MY_KEY_VAR", environ={})
    with pytest.raises(ConfigError, match="shorter") as exc:
        pseudonymize(f, ["member_id"], environ={"DBT_DEID_PSEUDONYM_KEY": "short"})
    assert "short'" not in str(exc.value) and ": short" not in str(exc.value)


def test_top_code_counts():
    f = pd.DataFrame({"pay_delay": list(range(1, 101)) + [1000, 2000]})
    out, rep = top_code(f, "pay_delay", 99)
    thr = float(np.percentile(f["pay_delay"], 99, method="inverted_cdf"))
    assert rep.details["threshold"] == thr
    assert rep.changed["values_top_coded"] == int((f["pay_delay"] > thr).sum()) == 1
    assert out["pay_delay"].max() == thr and len(out) == len(f)


def test_truncation_removes_highest_scoring_claims_first():
    rows = []
    cid = 0
    for m, n in [(1, 3), (2, 3), (3, 3), (4, 10)]:
        for j in range(n):
            cid += 1
            rare = m == 4 and j < 2
            rows.append({"member_id": m, "claim_id": cid, "specialty": f"R{j}" if rare else "A"})
    claims = pd.DataFrame(rows)
    out, rep = truncate_claims(claims, 75, qis=["specialty"])
    cap = rep.details["cap"]
    assert cap == 3
    assert rep.changed["claims_removed"] == 10 - cap == len(claims) - len(out)
    assert rep.changed["patients_truncated"] == 1
    kept4 = out[out.member_id == 4]
    assert len(kept4) == cap and (kept4["specialty"] == "A").all()  # the rare ones went first
    s = claim_scores(claims, ["specialty"])
    assert s[claims.specialty == "R0"].iloc[0] > s[claims.specialty == "A"].iloc[0]


def test_remove_stigmatized_counts():
    patients = pd.DataFrame({"member_id": [1, 2, 3]})
    claims = pd.DataFrame({"member_id": [1, 1, 2, 3, 3],
                           "diagnosis_code": ["X", STIGMATIZED_CODES[0], "Y", "Z", "Z"]})
    p, c, rep = remove_stigmatized(patients, claims)
    assert list(p.member_id) == [2, 3] and len(c) == 3
    assert rep.changed == {"patients_removed": 1, "claims_removed": 2, "flagged_claims": 1}


def test_provider_suppression_counts():
    claims = pd.DataFrame({
        "place_of_service": ["O"] * 5 + ["H"] * 2,
        "specialty": ["S"] * 7, "procedure_group": ["P"] * 7,
        "primary_condition_group": ["D"] * 7,
        "provider_id": [1, 2, 3, 4, 5, 6, 6], "vendor_id": [1] * 7, "pcp_id": [9] * 7,
    })
    out, rep = suppress_rare_provider_patterns(claims, min_providers=3)
    assert out["provider_id"].isna().tolist() == [False] * 5 + [True] * 2
    assert rep.changed["provider_id_suppressed"] == 2
    assert rep.changed["vendor_id_suppressed"] == 7 and rep.changed["pcp_id_suppressed"] == 7


def test_preprocess_pipeline_reports_and_d1_d2():
    pre = preprocess(generate_hhp(400, 2, stigmatized_share=0.05), environ=ENV)
    steps = [r.step for r in pre.reports]
    assert steps[-1] == "truncate_claims" and "remove_stigmatized" in steps
    trunc = pre.reports[-1]
    assert len(pre.claims_all) - len(pre.claims) == trunc.changed["claims_removed"] > 0
    assert set(pre.claims["claim_id"]) <= set(pre.claims_all["claim_id"])
    rem = next(r for r in pre.reports if r.step == "remove_stigmatized")
    assert rem.changed["patients_removed"] > 0
    assert not pre.claims_all["diagnosis_code"].astype(str).isin(STIGMATIZED_CODES).any()
    assert KEY not in repr(pre.reports)


def test_truncation_per_year_has_a_cap_per_year():
    rows, cid = [], 0
    # year 1: members with 2, 2, 2, 6 claims; year 2: 5, 5, 5, 9 claims
    for year, sizes in ((1, [2, 2, 2, 6]), (2, [5, 5, 5, 9])):
        for m, n in enumerate(sizes, start=1):
            for _ in range(n):
                cid += 1
                rows.append({"member_id": m, "claim_id": cid, "year": year, "specialty": "A"})
    claims = pd.DataFrame(rows)
    out, rep = truncate_claims(claims, 75, qis=["specialty"], partition=["year"])
    per = out.groupby(["year", "member_id"]).size()
    assert per.loc[1].max() == 2 and per.loc[2].max() == 5  # cap 2 in year 1, 5 in year 2
    assert (rep.details["cap_min"], rep.details["cap"]) == (2, 5)
    assert rep.changed == {"claims_removed": 4 + 4, "patients_truncated": 1,
                           "groups_truncated": 2}
    # one cap over the whole period instead: member totals 7, 7, 7, 15 -> cap 7
    whole, rep2 = truncate_claims(claims, 75, qis=["specialty"])
    assert rep2.details["cap"] == 7 and len(whole) == len(claims) - 8
    with pytest.raises(Exception, match="year"):
        truncate_claims(claims.drop(columns=["year"]), 75, qis=["specialty"], partition=["year"])
