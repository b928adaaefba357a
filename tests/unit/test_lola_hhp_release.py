"""The HHP release-3 reader (dbt_deid.longitudinal.hhp_release) and the repetition figures
(dbt_deid.longitudinal.repetition), on small made-up frames in the release's layout."""

from __future__ import annotations

import secrets

import numpy as np
import pandas as pd
import pytest

from dbt_deid.errors import DataError
from dbt_deid.longitudinal import calibration as cal
from dbt_deid.longitudinal.encoding import encode
from dbt_deid.longitudinal.hhp_release import read_release, to_hhp_layout
from dbt_deid.longitudinal.hierarchies import default_hierarchies, generalize
from dbt_deid.longitudinal.preprocess import preprocess
from dbt_deid.longitudinal.repetition import repetition_stats
from dbt_deid.tools.synthetic.claims import generate_hhp

LOS = ["1 day", "2 days", "3 days", "4 days", "5 days", "6 days", "1- 2 weeks", "2- 4 weeks",
       "4- 8 weeks", "8-12 weeks", "12-26 weeks", "26+ weeks", None]
DSFS = ["0- 1 month"] + [f"{m}-{m + 1:2d} months" for m in range(1, 12)] + [None]
AGES = ["0-9", "10-19", "20-29", "30-39", "40-49", "50-59", "60-69", "70-79", "80+", None]


def _release(los=LOS, dsfs=DSFS, ages=AGES):
    n = max(len(los), len(dsfs))
    members = pd.DataFrame({"MemberID": np.arange(len(ages)) + 100, "AgeAtFirstClaim": ages,
                            "Sex": (["M", "F", None] * 4)[: len(ages)]})
    claims = pd.DataFrame({
        "MemberID": np.arange(n) % len(ages) + 100, "Year": ["Y1", "Y2", "Y3"] * (n // 3)
        + ["Y1"] * (n % 3), "Specialty": "Internal", "PlaceSvc": "Office",
        "LengthOfStay": (los * n)[:n], "DSFS": (dsfs * n)[:n], "PrimaryConditionGroup": "ARTHSPIN",
        "ProcedureGroup": "EM"})
    dih = pd.DataFrame({"MemberID": [100, 101], "DaysInHospital": [0, 15]})
    return members, claims, dih, dih.iloc[:1]


def _one_to_one(labels: pd.Series, values: pd.Series, column: str, level: int) -> None:
    g = generalize(values, default_hierarchies()[column], level)
    x = pd.DataFrame({"label": labels.fillna("?").to_numpy(), "node": g.fillna("?").to_numpy()})
    assert x.groupby("label")["node"].nunique().max() == 1
    assert x.groupby("node")["label"].nunique().max() == 1


def test_every_release_label_maps_back_to_one_label_at_the_table5_node():
    members, claims, y2, y3 = _release()
    r = read_release(members, claims, y2, y3)
    _one_to_one(claims["LengthOfStay"], r.claims["los"], "los", cal.TABLE5_LEVELS["los"])
    _one_to_one(claims["DSFS"], r.claims["dsfc"], "dsfc", cal.TABLE5_LEVELS["dsfc"])
    _one_to_one(members["AgeAtFirstClaim"], r.patients["age"], "age", cal.TABLE5_LEVELS["age"])
    assert r.claims["los"].isna().sum() == claims["LengthOfStay"].isna().sum()
    assert r.patients["dih_y2"].tolist()[:3] == [0, 15, pd.NA]
    assert r.patients["dih_y3"].notna().sum() == 1


def test_an_unknown_label_names_the_column_not_the_value():
    members, claims, y2, y3 = _release(los=["1 day", "about a week"])
    with pytest.raises(DataError, match="LengthOfStay") as e:
        read_release(members, claims, y2, y3)
    assert "about a week" not in str(e.value)


def test_generated_data_written_in_the_layout_reads_back_to_the_same_classes():
    pre = preprocess(generate_hhp(400, 3), key_env="K", environ={"K": secrets.token_hex(32)})
    f = to_hhp_layout(pre)
    r = read_release(f["Members"], f["Claims"], f["DaysInHospital_Y2"], f["DaysInHospital_Y3"])
    assert len(r.patients) == len(pre.patients) and len(r.claims) == len(pre.claims)
    h = default_hierarchies()
    for col in ("age", "dih_y2", "dih_y3"):
        lvl = cal.TABLE5_LEVELS["age" if col == "age" else "days_in_hospital"]
        before = generalize(pre.patients[col], h[col], lvl).fillna("?").to_numpy()
        after = generalize(r.patients[col], h[col], lvl).fillna("?").to_numpy()
        assert (before == after).all(), col
    los_before = generalize(pre.claims["los"], h["los"], 2).fillna("?").to_numpy()
    los_after = generalize(r.claims["los"], h["los"], 2).fillna("?").to_numpy()
    assert (los_before == los_after).all()


def test_repetition_figures_match_a_brute_force_count():
    patients = pd.DataFrame({"member_id": [1, 2, 3, 4, 5], "age": [30, 31, 30, 50, 52],
                             "sex": ["F", "F", "F", "M", "M"], "dih_y2": [0] * 5,
                             "dih_y3": [0] * 5})
    rows = [(1, "A"), (1, "A"), (1, "B"), (2, "A"), (2, "C"), (3, "A"), (4, "A"), (4, "A"),
            (5, "B")]
    claims = pd.DataFrame({"claim_id": range(1, len(rows) + 1),
                           "member_id": [m for m, _ in rows], "year": 1,
                           "specialty": [v for _, v in rows], "place_of_service": "Office",
                           "procedure_group": "EM", "primary_condition_group": "X",
                           "los": pd.array([pd.NA] * len(rows), dtype="Int64"), "dsfc": 0})
    d = encode(patients, claims, default_hierarchies())
    s = repetition_stats(d, (2, 1, 2, 3), k=2)["specialty"]
    # classes (age 10-year band, sex): {1, 2, 3} and {4, 5}
    # (patient, value) pairs: 1A 1B 2A 2C 3A 4A 5B -> distinct per patient 2, 2, 1, 1, 1
    assert s["distinct_mean"] == pytest.approx(7 / 5)
    assert s["claims_per_value"] == pytest.approx(9 / 7, abs=1e-3)
    # holders in class: 1A 3, 1B 1, 2A 3, 2C 1, 3A 3, 4A 1, 5B 1 -> unique pairs 1B 2C 4A 5B
    assert s["claims_unique_in_class"] == pytest.approx(5 / 9, abs=1e-6)   # 1B, 2C, 4A x2, 5B
    assert s["patients_unique_in_class"] == pytest.approx(4 / 5)
    assert s["claims_below_k_in_class"] == s["claims_unique_in_class"]      # k = 2


def test_the_fitted_usual_visit_share_repeats_providers_as_the_real_claims(monkeypatch):
    # HHP providers (calibration.HHP_PROVIDERS_PER_MEMBER): mean 6.90, median 5 distinct
    # ProviderID per member; the default USUAL_VISIT_SHARE gives about twice as many
    real = cal.HHP_PROVIDERS_PER_MEMBER
    monkeypatch.setattr(cal, "USUAL_VISIT_SHARE", cal.USUAL_VISIT_SHARE_FITTED)
    fitted = generate_hhp(3000, 0).claims.groupby("member_id")["provider_id"].nunique()
    assert fitted.mean() == pytest.approx(real["mean"], rel=0.15)
    assert fitted.median() == real["median"]
    monkeypatch.setattr(cal, "USUAL_VISIT_SHARE", 0.5)
    default = generate_hhp(3000, 0).claims.groupby("member_id")["provider_id"].nunique()
    assert default.mean() > 1.5 * real["mean"]


def test_going_back_to_the_own_doctor_changes_providers_only(monkeypatch):
    before = generate_hhp(800, 2).claims
    monkeypatch.setattr(cal, "OWN_DOCTOR_SHARE", cal.OWN_DOCTOR_SHARE_MEAN_FIT)
    after = generate_hhp(800, 2).claims
    fixed = [c for c in before.columns if c not in ("provider_id", "vendor_id")]
    pd.testing.assert_frame_equal(before[fixed], after[fixed])
    per = [c.groupby("member_id")["provider_id"].nunique().mean() for c in (before, after)]
    assert per[1] < 0.7 * per[0]
