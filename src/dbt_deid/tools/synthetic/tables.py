"""Seeded synthetic data for tests and benchmarks (never real records).

:func:`random_problem` draws small random tables with random tree hierarchies;
:func:`health_survey_records` draws a table shaped like a health interview survey (year,
quarter, region, age, marital status, sex, race, education), :func:`survey_hierarchies` its
hierarchies.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dbt_deid.ola.hierarchies import Hierarchy


def random_hierarchy(column: str, n_leaves: int, height: int, rng: np.random.Generator) -> (
    Hierarchy
):
    """A random tree hierarchy: each level groups the previous level's values at random; the
    top level is ``*``."""
    rows = [[f"{column}{i}"] for i in range(n_leaves)]
    groups = np.arange(n_leaves)
    n_groups = n_leaves
    for lvl in range(1, height):
        n_new = max(1, int(rng.integers(1, max(2, n_groups))))
        parent = rng.integers(0, n_new, size=n_groups)
        groups = parent[groups]
        n_groups = n_new
        for i, r in enumerate(rows):
            r.append(f"{column}L{lvl}g{groups[i]}")
    for r in rows:
        r.append("*")
    return Hierarchy.from_rows(column, rows if height > 0 else [[r[0]] for r in rows])


def random_problem(
    seed: int, n_qis: int = 3, n_records: int = 200
) -> tuple[pd.DataFrame, dict[str, Hierarchy]]:
    """A random record table (one row per record) with skewed values and random hierarchies."""
    rng = np.random.default_rng(seed)
    frame = {}
    hierarchies = {}
    for j in range(n_qis):
        col = f"q{j}"
        n_leaves = int(rng.integers(2, 9))
        height = int(rng.integers(1, 4))
        h = random_hierarchy(col, n_leaves, height, rng)
        weights = rng.dirichlet(np.full(n_leaves, 0.7))
        frame[col] = h.labels[0][rng.choice(n_leaves, size=n_records, p=weights)]
        hierarchies[col] = h
    return pd.DataFrame(frame), hierarchies


def _interval_rows(
    values: range | list[int], widths: list[int], *, half_open: bool = False
) -> list[list[str]]:
    """Hierarchy rows for integers: one level per width (intervals aligned on multiples of the
    width, so each level is a function of the one below when every width divides the next),
    then ``*``. Labels ``lo-hi`` (inclusive), or ``[lo,hi)`` with ``half_open``."""
    rows = []
    for v in values:
        row = [str(v)]
        for w in widths:
            lo = (v // w) * w
            row.append(f"[{lo},{lo + w})" if half_open else f"{lo}-{lo + w - 1}")
        row.append("*")
        rows.append(row)
    return rows


def health_survey_records(n_records: int, seed: int = 0) -> pd.DataFrame:
    """Records shaped like a health interview survey: 8 integer QIs with realistic skew."""
    rng = np.random.default_rng(seed)
    age = np.clip(rng.gamma(4.0, 11.0, n_records), 0, 99).astype(np.int64)
    cols = {
        "year": rng.integers(2010, 2020, n_records),
        "quarter": rng.integers(1, 5, n_records),
        "region": rng.choice(np.arange(1, 10), n_records, p=np.full(9, 1 / 9)),
        "age": age,
        "marital_status": rng.choice(5, n_records, p=[0.45, 0.3, 0.12, 0.08, 0.05]),
        "sex": rng.choice(2, n_records),
        "race": rng.choice(6, n_records, p=[0.6, 0.13, 0.18, 0.06, 0.02, 0.01]),
        "education": rng.choice(8, n_records, p=[0.05, 0.1, 0.27, 0.2, 0.1, 0.18, 0.07, 0.03]),
    }
    return pd.DataFrame(cols)


def survey_hierarchies() -> dict[str, Hierarchy]:
    """Hierarchies of :func:`health_survey_records`' columns."""
    years = range(2010, 2020)
    hier_rows = {
        "year": _interval_rows(years, [2, 4]),
        "quarter": [[str(q), "H1" if q <= 2 else "H2", "*"] for q in range(1, 5)],
        "region": [[str(r), f"division{(r - 1) // 3}", "*"] for r in range(1, 10)],
        "age": _interval_rows(range(100), [5, 10, 20]),
        "marital_status": [[str(m), "married" if m < 1 else "not married", "*"]
                           for m in range(5)],
        "sex": [[str(s), "*"] for s in range(2)],
        "race": [[str(r), "white" if r == 0 else "non-white", "*"] for r in range(6)],
        "education": [[str(e), ["low", "low", "mid", "mid", "mid", "high", "high", "high"][e],
                       "post-primary" if e >= 2 else "primary", "*"] for e in range(8)],
    }
    return {c: Hierarchy.from_rows(c, rows) for c, rows in hier_rows.items()}


# -- a census-like table with 30 attributes (shaped like the ACS PUMS extract ARX benchmarks) -----

#: The 30 attributes of :func:`census_records`, named after the American Community Survey PUMS
#: variables whose shape they imitate (age, citizenship, class of worker, six disability flags,
#: fertility, grandparent caregiver, seven health-insurance flags, interest income, marital
#: status and three marital-history flags, mobility, military service, person weight,
#: relationship, grade attending, schooling, sex). The values are drawn at random: no record
#: of any survey is used.
CENSUS_ATTRIBUTES = (
    "AGEP", "CIT", "COW", "DDRS", "DEAR", "DEYE", "DOUT", "DPHY", "DREM", "FER", "GCL",
    "HINS1", "HINS2", "HINS3", "HINS4", "HINS5", "HINS6", "HINS7", "INTP", "MAR", "MARHD",
    "MARHM", "MARHW", "MIG", "MIL", "PWGTP", "RELP", "SCHG", "SCHL", "SEX",
)


def _group_rows(values: list[str], groups: list[dict[str, str]]) -> list[list[str]]:
    """Hierarchy rows for codes: ``groups[i]`` maps the level-i label to its level-(i+1)
    label (a missing key keeps the label), then ``*``."""
    rows = []
    for v in values:
        row = [v]
        for g in groups:
            row.append(g.get(row[-1], row[-1]))
        row.append("*")
        rows.append(row)
    return rows


def census_hierarchies() -> dict[str, Hierarchy]:
    """Hierarchies of :func:`census_records`' 30 attributes (levels including the original:
    AGEP 6, INTP 7, PWGTP 7, SCHL 5, COW/RELP/SCHG 4, CIT/MAR/MIG/MIL 3, the flags 2)."""
    flag = [["1", "*"], ["2", "*"]]
    flag_b = [["1", "*"], ["2", "*"], ["b", "*"]]
    rows: dict[str, list[list[str]]] = {
        "AGEP": _interval_rows(list(range(96)), [5, 10, 20, 40], half_open=True),
        "CIT": _group_rows([str(v) for v in range(1, 6)],
                           [{"1": "born-us", "2": "born-us", "3": "born-us", "4": "foreign",
                             "5": "foreign"}]),
        "COW": _group_rows(["b", *map(str, range(1, 10))],
                           [{"1": "private", "2": "private", "3": "government",
                             "4": "government", "5": "government", "6": "self",
                             "7": "self", "8": "unpaid", "9": "unemployed", "b": "none"},
                            {"private": "employee", "government": "employee",
                             "self": "self-or-unpaid", "unpaid": "self-or-unpaid",
                             "unemployed": "not-working", "none": "not-working"}]),
        "INTP": _interval_rows(list(range(0, 20000, 10)), [100, 1000, 5000, 10000, 20000],
                               half_open=True),
        "MAR": _group_rows([str(v) for v in range(1, 6)],
                           [{"1": "married", "2": "previously", "3": "previously",
                             "4": "previously", "5": "never"}]),
        "MIG": _group_rows(["b", "1", "2", "3"], [{"1": "same", "2": "moved", "3": "moved",
                                                   "b": "child"}]),
        "MIL": _group_rows(["b", "1", "2", "3", "4"],
                           [{"1": "served", "2": "served", "3": "served", "4": "never",
                             "b": "child"}]),
        "PWGTP": _interval_rows(list(range(1, 2000)), [5, 25, 100, 500, 1000], half_open=True),
        "RELP": _group_rows([str(v) for v in range(18)],
                            [{**{str(v): "family" for v in range(1, 11)},
                              **{str(v): "other" for v in range(11, 16)},
                              "0": "householder", "16": "group", "17": "group"},
                             {"householder": "household", "family": "household",
                              "other": "household", "group": "group-quarters"}]),
        "SCHG": _group_rows(["b", *map(str, range(1, 16))],
                            [{"1": "pre", "2": "pre", **{str(v): "primary" for v in range(3, 11)},
                              **{str(v): "secondary" for v in range(11, 15)}, "15": "college",
                              "b": "none"},
                             {"pre": "school", "primary": "school", "secondary": "school",
                              "college": "school", "none": "none"}]),
        "SCHL": _group_rows(["b", *map(str, range(1, 25))],
                            [{**{str(v): f"s{(v - 1) // 3}" for v in range(1, 25)}, "b": "sb"},
                             {**{f"s{i}": f"t{i // 2}" for i in range(8)}, "sb": "tb"},
                             {"t0": "low", "t1": "low", "t2": "high", "t3": "high",
                              "tb": "low"}]),
    }
    for c in ("DEAR", "DEYE", "SEX", "HINS1", "HINS2", "HINS3", "HINS4", "HINS5", "HINS6",
              "HINS7"):
        rows[c] = flag
    for c in ("DDRS", "DOUT", "DPHY", "DREM", "FER", "GCL", "MARHD", "MARHM", "MARHW"):
        rows[c] = flag_b
    return {c: Hierarchy.from_rows(c, rows[c]) for c in CENSUS_ATTRIBUTES}


def census_records(n_records: int = 68_725, seed: int = 0) -> pd.DataFrame:
    """Synthetic census-like records (string codes, every value listed by
    :func:`census_hierarchies`), with the dependencies that make such data hard to anonymize:
    children have no work, marriage or schooling history, flags follow age, income and weight
    have thousands of distinct values."""
    rng = np.random.default_rng(seed)
    n = n_records
    age = np.clip(rng.gamma(2.2, 18.0, n), 0, 95).astype(np.int64)
    adult = age >= 16
    old = age >= 65

    def pick(choices: list[str], p: list[float], size: int = n) -> np.ndarray:
        return rng.choice(np.array(choices, dtype=object), size=size, p=np.array(p) / sum(p))

    def flag(p_yes: np.ndarray | float) -> np.ndarray:
        return np.where(rng.random(n) < p_yes, "1", "2").astype(object)

    def flag_b(applies: np.ndarray, p_yes: np.ndarray | float) -> np.ndarray:
        return np.where(applies, flag(p_yes), "b").astype(object)

    cols: dict[str, np.ndarray] = {"AGEP": age.astype(str).astype(object)}
    cols["CIT"] = pick(["1", "2", "3", "4", "5"], [80, 1, 2, 8, 9])
    cols["COW"] = np.where(adult & (age < 75), pick([str(v) for v in range(1, 10)],
                                                    [50, 8, 5, 5, 6, 5, 3, 1, 4]), "b")
    disability = 0.02 + 0.3 * (age / 95.0) ** 2
    cols["DDRS"] = flag_b(age >= 5, disability / 3)
    cols["DEAR"] = flag(disability / 2)
    cols["DEYE"] = flag(disability / 3)
    cols["DOUT"] = flag_b(age >= 15, disability / 2)
    cols["DPHY"] = flag_b(age >= 5, disability)
    cols["DREM"] = flag_b(age >= 5, disability / 2)
    sex = pick(["1", "2"], [49, 51])
    cols["FER"] = flag_b((sex == "2") & (age >= 15) & (age <= 50), 0.06)
    cols["GCL"] = flag_b(age >= 30, 0.03)
    insured = 0.55 + 0.3 * old
    cols["HINS1"] = flag(insured)
    cols["HINS2"] = flag(0.12)
    cols["HINS3"] = flag(np.where(old, 0.95, 0.03))
    cols["HINS4"] = flag(np.where(age < 18, 0.35, 0.12))
    cols["HINS5"] = flag(0.02)
    cols["HINS6"] = flag(0.04)
    cols["HINS7"] = flag(0.01)
    interest = np.where(adult & (rng.random(n) < 0.25),
                        np.minimum(rng.lognormal(5.5, 1.6, n), 19990), 0)
    cols["INTP"] = ((interest // 10) * 10).astype(np.int64).astype(str).astype(object)
    cols["MAR"] = np.where(adult, pick(["1", "2", "3", "4", "5"], [48, 6, 11, 2, 33]), "5")
    married = cols["MAR"] != "5"
    cols["MARHD"] = flag_b(married, 0.25)
    cols["MARHM"] = flag_b(married, 0.02)
    cols["MARHW"] = flag_b(married, 0.05)
    cols["MIG"] = np.where(age >= 1, pick(["1", "2", "3"], [85, 14, 1]), "b")
    cols["MIL"] = np.where(age >= 17, pick(["1", "2", "3", "4"], [1, 6, 3, 90]), "b")
    weight = np.clip(rng.gamma(1.6, 60.0, n), 1, 1999).astype(np.int64)
    cols["PWGTP"] = weight.astype(str).astype(object)
    cols["RELP"] = np.where(age < 18, pick(["2", "3", "4", "7", "11", "16"], [70, 5, 5, 10, 5, 5]),
                            pick([str(v) for v in range(18)],
                                 [38, 28, 8, 1, 1, 1, 3, 1, 1, 1, 1, 1, 5, 4, 2, 1, 2, 1]))
    school_age = (age >= 3) & (age <= 24)
    grade = np.clip((age - 3) + 1, 1, 15).astype(str)
    cols["SCHG"] = np.where(school_age & (rng.random(n) < 0.85), grade, "b").astype(object)
    schl = np.clip(np.round(rng.normal(17, 3.5, n)), 1, 24).astype(np.int64)
    schl = np.minimum(schl, np.maximum(1, (age - 2)))
    cols["SCHL"] = np.where(age >= 3, schl.astype(str), "b").astype(object)
    cols["SEX"] = sex
    return pd.DataFrame({c: cols[c] for c in CENSUS_ATTRIBUTES})
