"""Seeded synthetic data for tests and benchmarks (never real records).

:func:`random_problem` draws small random tables with random tree hierarchies;
:func:`health_survey` draws a table shaped like a health interview survey (year, quarter,
region, age, marital status, sex, race, education) with matching hierarchies.
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


def _interval_rows(values: range, widths: list[int]) -> list[list[str]]:
    rows = []
    for v in values:
        row = [str(v)]
        for w in widths:
            lo = (v // w) * w
            row.append(f"{lo}-{lo + w - 1}")
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


def health_survey(n_records: int, seed: int = 0) -> tuple[pd.DataFrame, dict[str, Hierarchy]]:
    """The pattern table (distinct QI tuples with counts in column ``n``, values as strings)
    of :func:`health_survey_records`, with hierarchies (lattice 4*3*3*5*3*2*3*4 = 12,960
    nodes): the form the warehouse hands to the core."""
    frame = health_survey_records(n_records, seed)
    patterns = frame.groupby(list(frame.columns), sort=True).size().reset_index(name="n")
    for c in frame.columns:
        patterns[c] = patterns[c].astype(str)
    return patterns, survey_hierarchies()


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
