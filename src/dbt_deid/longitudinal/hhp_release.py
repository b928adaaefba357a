"""The public HHP release-3 files in the tables the LOLA pipeline reads, and back.

El Emam et al. 2012 (seed 001) released the Heritage Health Prize claims at its Table 5 node:
age in 10-year bands with 80+ (``AgeAtFirstClaim``), DaysInHospital as days with 15 for "more
than two weeks", LengthOfStay as days up to 6 then week bands, DSFS in months. To measure the
release's own risk with the same code as the synthetic benchmark, each released label is mapped
to a *representative* original value that the Table 5 hierarchies
(:mod:`dbt_deid.longitudinal.hierarchies`) generalize back to exactly one label, distinct for
distinct labels: at the Table 5 node the pipeline then sees the release's own partition.

* AgeAtFirstClaim ``"30-39"`` -> 30, ``"80+"`` -> 80 (level 2: 10-year bands, 80+).
* DaysInHospital 0-15 -> the same days (level 1: days to 2 weeks, 15 -> "> 2 weeks").
* LengthOfStay ``"n day(s)"`` -> n; ``"a- b weeks"`` -> 7 b days; ``"26+ weeks"`` -> 200 (level
  2: days up to 6, (1-2] ... (12-26] weeks, 26+ weeks).
* DSFS ``"a- b months"`` -> 28 a + 1 days (level 3: months of 4 weeks).

A label outside these forms is a DataError naming the column and the number of such values
(never the values). The files are the user's own copies, read where they lie: the HHP data terms
do not allow redistribution, and nothing here writes a row anywhere.

:func:`to_hhp_layout` writes generated data in the release's layout (the same labels), so the
reader can be checked on data whose truth is known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dbt_deid.errors import DataError
from dbt_deid.longitudinal.preprocess import Preprocessed

#: The columns each release file must have (HHP data dictionary, release 3).
MEMBER_COLUMNS = ("MemberID", "AgeAtFirstClaim", "Sex")
CLAIM_COLUMNS = ("MemberID", "Year", "Specialty", "PlaceSvc", "LengthOfStay", "DSFS",
                 "PrimaryConditionGroup", "ProcedureGroup")
DIH_COLUMNS = ("MemberID", "DaysInHospital")

_AGE = re.compile(r"^(\d+)-(\d+)$")
_DAYS = re.compile(r"^(\d+) days?$")
_WEEKS = re.compile(r"^(\d+)-\s*(\d+) weeks$")
_MONTHS = re.compile(r"^(\d+)-\s*(\d+) months?$")
_YEAR = re.compile(r"^Y(\d)$")
LOS_TOP = 200                       # "26+ weeks" (any value above 182 days)


@dataclass(frozen=True)
class HHPRelease:
    """The release as the pipeline's tables: ``patients`` (member_id, age, sex, dih_y2, dih_y3)
    and ``claims`` (claim_id, member_id, year and the claim QIs), values as documented above."""

    patients: pd.DataFrame
    claims: pd.DataFrame


def _need(frame: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"{what}: column(s) {missing} not found; the file has"
                        f" {list(frame.columns)}")


def _parse(values: pd.Series, column: str, rules: list[tuple[re.Pattern[str], object]],
           exact: dict[str, int] | None = None) -> pd.Series:
    """Map each label to its representative value; blanks stay missing (their own category)."""
    text = values.astype("string").str.strip()
    out = pd.Series(pd.NA, index=values.index, dtype="Int64")
    done = text.isna() | (text == "")
    for label, value in (exact or {}).items():
        hit = ~done & (text == label)
        out[hit] = value
        done |= hit
    for pattern, fn in rules:
        m = text.where(~done).str.extract(pattern)
        hit = m[0].notna().to_numpy() & ~done.to_numpy()
        if hit.any():
            out[hit] = np.asarray(fn(m[hit].astype(np.int64)))  # type: ignore[operator]
            done |= hit
    bad = int((~done).sum())
    if bad:
        raise DataError(f"column {column!r}: {bad} value(s) are not release-3 labels")
    return out


def age_value(labels: pd.Series) -> pd.Series:
    """AgeAtFirstClaim band -> its lower bound (``"80+"`` -> 80)."""
    return _parse(labels, "AgeAtFirstClaim", [(_AGE, lambda m: m[0])], {"80+": 80})


def los_value(labels: pd.Series) -> pd.Series:
    """LengthOfStay label -> days (see the module docstring)."""
    return _parse(labels, "LengthOfStay", [(_DAYS, lambda m: m[0]), (_WEEKS, lambda m: 7 * m[1])],
                  {"26+ weeks": LOS_TOP})


def dsfs_value(labels: pd.Series) -> pd.Series:
    """DSFS month label ``"a- b months"`` -> 28 a + 1 days (month a of 4 weeks)."""
    return _parse(labels, "DSFS", [(_MONTHS, lambda m: 28 * m[0] + 1)])


def read_release(members: pd.DataFrame, claims: pd.DataFrame, dih_y2: pd.DataFrame,
                 dih_y3: pd.DataFrame) -> HHPRelease:
    """The release-3 frames (as read from ``Members.csv``, ``Claims.csv``,
    ``DaysInHospital_Y2.csv``, ``DaysInHospital_Y3.csv``) as the pipeline's tables."""
    _need(members, MEMBER_COLUMNS, "Members")
    _need(claims, CLAIM_COLUMNS, "Claims")
    for y, frame in ((2, dih_y2), (3, dih_y3)):
        _need(frame, DIH_COLUMNS, f"DaysInHospital_Y{y}")
    if members["MemberID"].duplicated().any():
        raise DataError("Members: MemberID repeats; one row per member is required")
    patients = pd.DataFrame({
        "member_id": members["MemberID"].to_numpy(),
        "age": age_value(members["AgeAtFirstClaim"]).array,
        "sex": members["Sex"].astype("string").str.strip().replace("", pd.NA).to_numpy(),
    })
    for y, frame in ((2, dih_y2), (3, dih_y3)):
        days = pd.to_numeric(frame["DaysInHospital"], errors="coerce")
        if days.isna().any() or (days < 0).any():
            raise DataError(f"DaysInHospital_Y{y}: {int(days.isna().sum() + (days < 0).sum())}"
                            " value(s) are not non-negative integers")
        m = pd.Series(days.to_numpy(np.int64), index=frame["MemberID"].to_numpy())
        patients[f"dih_y{y}"] = pd.array(m.reindex(patients["member_id"]).to_numpy(),
                                         dtype="Int64")
    year = _parse(claims["Year"], "Year", [(_YEAR, lambda m: m[0])])
    if year.isna().any():
        raise DataError(f"column 'Year': {int(year.isna().sum())} blank value(s)")

    def text(col: str) -> pd.Series:
        return claims[col].astype("string").str.strip().replace("", pd.NA).to_numpy()

    out = pd.DataFrame({
        "claim_id": np.arange(1, len(claims) + 1, dtype=np.int64),
        "member_id": claims["MemberID"].to_numpy(),
        "year": year.to_numpy(np.int64),
        "specialty": text("Specialty"),
        "place_of_service": text("PlaceSvc"),
        "procedure_group": text("ProcedureGroup"),
        "primary_condition_group": text("PrimaryConditionGroup"),
        "los": los_value(claims["LengthOfStay"]).array,
        "dsfc": dsfs_value(claims["DSFS"]).array,
    })
    unknown = int((~out["member_id"].isin(patients["member_id"])).sum())
    if unknown:
        raise DataError(f"Claims: {unknown} claim(s) belong to no member of Members")
    return HHPRelease(patients, out)


def as_preprocessed(release: HHPRelease) -> Preprocessed:
    """The release as :class:`Preprocessed`: the released claims are both D1 and D2 (the
    truncated claims were never published, so attack 1 draws its knowledge from the released
    claims)."""
    return Preprocessed(release.patients, release.claims, release.claims, [])


# -- the release's layout, from generated data --------------------------------------------------

def _age_label(age: pd.Series) -> pd.Series:
    a = age.astype("Int64")
    ten = (a // 10 * 10).clip(upper=80)
    lab = ten.astype("string") + "-" + (ten + 9).astype("string")
    return lab.where((ten < 80).fillna(True), "80+")


def _los_label(los: pd.Series) -> pd.Series:
    d = los.astype("Int64")
    out = pd.Series(pd.NA, index=los.index, dtype="string")
    out[d == 1] = "1 day"
    short = (d >= 2) & (d <= 6)
    out[short] = d[short].astype("string") + " days"
    for lo, hi, label in ((7, 14, "1- 2 weeks"), (15, 28, "2- 4 weeks"), (29, 56, "4- 8 weeks"),
                          (57, 84, "8-12 weeks"), (85, 182, "12-26 weeks")):
        out[(d >= lo) & (d <= hi)] = label
    out[d > 182] = "26+ weeks"
    return out


def _dsfs_label(dsfc: pd.Series) -> pd.Series:
    m = (dsfc.astype("Int64") // 30).clip(upper=11)
    return (m.astype("string") + "-" + (m + 1).astype("string").str.pad(2)
            + " month" + np.where(m.fillna(0) + 1 > 1, "s", ""))


def to_hhp_layout(pre: Preprocessed) -> dict[str, pd.DataFrame]:
    """``pre``'s released patients and claims in the release-3 layout (``Members``, ``Claims``,
    ``DaysInHospital_Y2``, ``DaysInHospital_Y3``), with the release's labels (DSFS in 30-day
    months)."""
    p, c = pre.patients, pre.claims
    members = pd.DataFrame({"MemberID": p["member_id"].to_numpy(),
                            "AgeAtFirstClaim": _age_label(p["age"]).to_numpy(),
                            "Sex": p["sex"].to_numpy()})
    claims = pd.DataFrame({
        "MemberID": c["member_id"].to_numpy(),
        "Year": "Y" + c["year"].astype("string"),
        "Specialty": c["specialty"].astype("string").to_numpy(),
        "PlaceSvc": c["place_of_service"].astype("string").to_numpy(),
        "LengthOfStay": _los_label(c["los"]).to_numpy(),
        "DSFS": _dsfs_label(c["dsfc"]).to_numpy(),
        "PrimaryConditionGroup": c["primary_condition_group"].astype("string").to_numpy(),
        "ProcedureGroup": c["procedure_group"].astype("string").to_numpy(),
    })
    out = {"Members": members, "Claims": claims}
    for y in (2, 3):
        v = p[f"dih_y{y}"]
        keep = v.notna().to_numpy()
        out[f"DaysInHospital_Y{y}"] = pd.DataFrame({
            "MemberID": p["member_id"].to_numpy()[keep],
            "DaysInHospital": v[keep].astype(np.int64).clip(upper=15).to_numpy()})
    return out
