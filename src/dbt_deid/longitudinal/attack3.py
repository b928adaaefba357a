"""Attack 3 of El Emam et al. 2012 ("Attack 3: Matching With the State Inpatient Database",
Table 6): the marketer risk of the released claims against a population table of inpatient
visits (a State Inpatient Database, SID).

The paper matches "on the quasi-identifiers" with "the closed-form marketer risk calculation",
assuming "the HHP would be a sample from the SID" and that "all of the visits could be used for
matching", for several combinations of age, LOS, sex, number of visits, primary condition group
and CPT code, per year and across all years (Table 6). We read it as: a patient's *signature* for
a QI set is their patient-level values (e.g. age, sex), the number of their inpatient visits
(``NUMBER_OF_VISITS``) and the multiset of their visits' visit-level values (e.g. LOS,
condition group), over one year or all years (then each visit also carries its year). A
released patient whose signature is shared by F population patients is matched correctly with
probability 1 / F, so the expected share of released patients correctly matched is

    (1 / n) sum_j f_j / F_j        (Dankar and El Emam; f_j released, F_j population patients)

with n every released patient (Table 6: "proportion of all records"): patients without an
inpatient visit in the period cannot be matched and add 0. Both tables must code the QIs alike
(e.g. the population generalized to the release's levels); a released signature absent from the
population is an error (the release must be a sample of it), reported as a count, never values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.errors import DataError

NUMBER_OF_VISITS = "number_of_visits"
ALL_YEARS = "all_years"


def signatures(
    visits: pd.DataFrame, qis: Sequence[str], *, patient_qis: Sequence[str], patient: str,
    year: str, years: Sequence[object] | None = None,
) -> pd.Series:
    """One signature string per patient (index: patient id) from ``visits`` (one row per
    inpatient visit) restricted to ``years`` (None: all years, each visit keeping its year)."""
    qis = list(qis)
    missing = [c for c in [patient, year, *[q for q in qis if q != NUMBER_OF_VISITS]]
               if c not in visits.columns]
    if missing:
        raise DataError(f"attack 3: the visits table lacks column(s) {missing}")
    v = visits if years is None else visits[visits[year].isin(list(years))]
    if v.empty:
        return pd.Series(dtype=object)
    pat_cols = [q for q in qis if q in patient_qis]
    visit_cols = [q for q in qis if q not in patient_qis and q != NUMBER_OF_VISITS]
    if years is None:
        visit_cols = [year, *visit_cols]
    labels = v[[patient]].copy()
    labels["_visit"] = _row_labels(v, visit_cols)
    labels["_patient"] = _row_labels(v, pat_cols)
    labels = labels.sort_values([patient, "_visit"], kind="stable")
    # one pass over the sorted rows (a pandas aggregation per patient costs ~0.2 ms each)
    ids = labels[patient].to_numpy()
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    ends = np.r_[starts[1:], len(ids)]
    visit = labels["_visit"].tolist()
    head = labels["_patient"].to_numpy()[starts]
    sig = [f"{h}\x1d{chr(30).join(visit[a:b])}" for h, a, b in zip(head, starts, ends,
                                                                 strict=True)]
    if NUMBER_OF_VISITS in qis:
        sig = [f"{x}\x1dn={b - a}" for x, a, b in zip(sig, starts, ends, strict=True)]
    return pd.Series(sig, index=pd.Index(ids[starts], name=patient), dtype=object)


def _row_labels(frame: pd.DataFrame, cols: Sequence[str]) -> pd.Series:
    if not cols:
        return pd.Series("", index=frame.index)
    parts = [frame[c].astype(object).where(frame[c].notna(), "<missing>").astype(str)
             for c in cols]
    out = parts[0]
    for p in parts[1:]:
        out = out + "\x1f" + p
    return out


def marketer_risk_visits(released: pd.Series, population: pd.Series, n_released: int,
                         *, absent: str = "error") -> float:
    """(1/n) sum over released patients of 1 / F, F the population patients with the same
    signature (``released`` and ``population``: one signature per patient). ``absent``: what a
    released signature no population patient has does: ``"error"`` (the release must be a
    sample of the population, coded alike) or ``"zero"`` (it cannot be matched correctly and
    adds 0: a released patient whose visits the release truncated; count them with
    :func:`absent_patients`)."""
    if n_released < 1:
        raise DataError("attack 3: no released patients")
    f = released.map(population.value_counts())
    missing = int(f.isna().sum())
    if missing and absent == "error":
        raise DataError(f"attack 3: {missing} released patient(s) have a signature no population"
                        " patient has (the release must be a sample of the population table,"
                        " coded alike)")
    f = f.dropna()
    return float((1.0 / f.to_numpy(dtype=np.float64)).sum() / n_released)


def absent_patients(released: pd.Series, population: pd.Series) -> int:
    """Released patients whose signature no population patient has."""
    return int((~released.isin(set(population))).sum())


def attack3_rows(
    released_visits: pd.DataFrame, population_visits: pd.DataFrame,
    qi_sets: Sequence[Sequence[str]], *, n_released: int, patient_qis: Sequence[str] = ("age",
                                                                                      "sex"),
    patient: str = "member_id", year: str = "year", absent: str = "error",
) -> pd.DataFrame:
    """Table 6 in long form: one row per QI set and period (each year of the released visits,
    then ``all_years``) with ``marketer_risk`` (the expected share of the ``n_released``
    released patients correctly matched), ``patients_with_visits`` (released patients with an
    inpatient visit in the period), ``patients_not_in_population`` (their signature is in no
    population patient's: they add 0 with ``absent="zero"``) and ``population_patients``."""
    if not qi_sets:
        raise DataError("attack 3: give at least one QI set")
    years = sorted(pd.unique(released_visits[year]).tolist())
    rows = []
    for qis in qi_sets:
        for y in [*years, None]:
            kw = {"patient_qis": patient_qis, "patient": patient, "year": year,
                  "years": None if y is None else [y]}
            r = signatures(released_visits, qis, **kw)
            p = signatures(population_visits, qis, **kw)
            rows.append({
                "qi_set": "+".join(qis), "period": ALL_YEARS if y is None else f"year_{y}",
                "marketer_risk": (marketer_risk_visits(r, p, n_released, absent=absent)
                                  if len(r) else 0.0),
                "patients_with_visits": len(r),
                "patients_not_in_population": absent_patients(r, p) if len(r) else 0,
                "population_patients": len(p),
            })
    return pd.DataFrame(rows)


def attack3_table(
    released_visits: pd.DataFrame, population_visits: pd.DataFrame,
    qi_sets: Sequence[Sequence[str]], **options: Any,
) -> pd.DataFrame:
    """Table 6: one row per QI set (``qis``), one column per year of the released visits and
    ``all_years``, each the expected share of the released patients correctly matched to the
    population of inpatient visits (:func:`attack3_rows` with the same keyword ``options``,
    pivoted)."""
    long = attack3_rows(released_visits, population_visits, qi_sets, **options)
    wide = long.pivot(index="qi_set", columns="period", values="marketer_risk")
    periods = list(dict.fromkeys(long["period"]))
    order = list(dict.fromkeys(long["qi_set"]))
    out = wide.loc[order, periods].reset_index().rename(columns={"qi_set": "qis"})
    out.columns.name = None
    return out
