"""Random releases of the integration project's source, for the dbt path of the fuzz suite.

Each case (seeded) picks quasi-identifiers with lookup hierarchies, interval, prefix and date
rules at random levels, sometimes the diagnosis family of seed 000 (MRDx, CMG, block, chapter
with the adversary at CMG), overlapping combinations, k, MaxSup, and sometimes a sample slot;
every other source column gets a role at random (pass_through or excluded). ``check_run`` checks
a built release independently (tests/independent_check.py): on every verified combination no
class smaller than k and no record consistent with fewer than k published records, the sample's
row count, pass-through columns unchanged, missing values published as the missing label; or,
for a refused release, that nothing was published and a gate said why.
"""

from __future__ import annotations

import random
from typing import Any

import pandas as pd

from tests.independent_check import smallest_class, smallest_consistent_set

MISSING = "<no value>"
OTHER_COLUMNS = ["total_cost_cad", "discharge_disposition", "cmg"]


def _qi_pool(rng: random.Random) -> dict[str, dict[str, Any]]:
    width = rng.choice([5, 10, 20])
    return {
        "province": {"hierarchy": "province_hierarchy", "level": rng.choice([0, 1, 2])},
        "age": {"rule": {"type": "interval",
                         "levels": [{"width": width, "top_code": rng.choice([80, 90])},
                                    {"breaks": [0, 18, 65], "label": "lower"}]},
                "level": rng.choice([1, 2])},
        "gender": {"hierarchy": "gender_hierarchy", "level": 0},
        "los_days": {"rule": {"type": "interval",
                              "levels": [{"width": 7, "top_code": 182, "label": "index"}]},
                     "level": 1},
        "mrdx": {"hierarchy": "diagnosis_hierarchy", "level": rng.choice([2, 3])},
        "cci_code": {"rule": {"type": "prefix", "levels": [{"length": 3}, {"length": 1}]},
                     "level": rng.choice([1, 2])},
        "admission_date": {"rule": {"type": "date", "levels": [{"trunc": "quarter"},
                                                              {"trunc": "year"}]},
                           "level": rng.choice([1, 2])},
    }


def make_release(seed: int) -> dict[str, Any]:
    """A random release (the var deid_release) for integration_tests' discharge_abstracts."""
    rng = random.Random(seed)
    pool = _qi_pool(rng)
    family = rng.random() < 0.3
    names = rng.sample(sorted(pool), rng.randint(2, 4))
    if family:
        names = [n for n in names if n != "mrdx"]
    qis = {n: pool[n] for n in names}
    release: dict[str, Any] = {
        "name": f"fuzz_{seed}", "source": "discharge_abstracts", "record_id": "abstract_id",
        "direct_identifiers": ["health_card_number", "patient_name"],
        "missing_label": MISSING, "k": rng.randint(2, 6),
        "max_suppression": rng.choice([1.0, 1.0, 0.5, 0.2]),
    }
    others = [c for c in ["province", "age", "gender", "los_days", "mrdx", "cci_code",
                          "admission_date", *OTHER_COLUMNS] if c not in qis]
    if family:
        qis.update({
            "mrdx": {"hierarchy": "diagnosis_hierarchy", "level": 0},
            "cmg": {"level": 0},
            "diag_block": {"column": "mrdx", "hierarchy": "diagnosis_hierarchy", "level": 2},
            "diag_chapter": {"column": "mrdx", "hierarchy": "diagnosis_hierarchy", "level": 3},
        })
        others = [c for c in others if c not in ("mrdx", "cmg")]
        release["demographics"] = names
        release["hierarchical_qis"] = {"diagnosis": {
            "levels": ["mrdx", "cmg", "diag_block", "diag_chapter"],
            "generalizes": {"diag_block": "mrdx", "diag_chapter": "diag_block"},
            "adversary_level": "cmg"}}
    else:
        combos = [rng.sample(names, rng.randint(1, len(names)))
                  for _ in range(rng.randint(1, 3))]
        covered = {q for c in combos for q in c}
        combos.append([q for q in names if q not in covered] or names[:1])
        release["combinations"] = combos
    release["quasi_identifiers"] = qis
    passing = [c for c in others if rng.random() < 0.5 and c != "total_cost_cad"]
    release["pass_through"] = passing
    release["excluded"] = [c for c in others if c not in passing]
    if rng.random() < 0.3:
        release["sample"] = {"fraction": 0.5, "slot": rng.choice([0, 1]), "seed": seed}
    return release


def check_run(run: Any, release: dict[str, Any]) -> list[str]:
    """Problems with a built (or refused) random release; [] when it behaved."""
    problems: list[str] = []
    if not run.ok:
        if "release refused, nothing published" not in run.output:
            return ["crash: " + run.output[-1500:]]
        if "deid_published" in run.tables("main"):
            problems.append("a refused release published a table")
        return problems
    k = release["k"]
    plan = run.query("select * from deid_release_plan where kind = 'verified'")
    verified = [list(g.sort_values("position")["column_name"]) for _, g in plan.groupby("item")]
    published = run.query("select * from main.deid_published")
    truth_cols = sorted({q for b in verified for q in b})
    # the checked cells in the form deid_published writes them (periods, half-open intervals:
    # docs/published-types.md), so a published cell is compared with its own record's value
    from tests.published_form import published_frame

    truth = published_frame(run.query("select abstract_id, " + ", ".join(
        f'"{q}__generalized" as "{q}"' for q in truth_cols) + " from deid_suppressed"), release)
    source = run.query("select s.* from discharge_abstracts as s join deid_suppressed"
                       " using (abstract_id)")
    if len(published) != len(truth) or len(truth) != len(source):
        problems.append(f"rows: published {len(published)}, release {len(truth)},"
                        f" input {len(source)}")
    for b in verified:
        if smallest_class(published, b) < k:
            problems.append(f"class smaller than k on {b}")
        if smallest_consistent_set(truth, published, b) < k:
            problems.append(f"consistent set smaller than k on {b}")
    for col in release["pass_through"]:
        a = source[col].astype(str).value_counts().sort_index()
        b = published[col].astype(str).value_counts().sort_index()
        if not a.equals(b):
            problems.append(f"pass-through column {col} changed")
    for col in [*release["excluded"], *release["direct_identifiers"], "abstract_id"]:
        if col in published.columns:
            problems.append(f"column {col} published")
    for q, spec in release["quasi_identifiers"].items():
        src_col = spec.get("column", q)
        has_missing = q in published.columns and source[src_col].isna().any()
        if has_missing and not (published[q] == MISSING).any() and published[q].notna().any():
            problems.append(f"missing values of {q} not published as the missing label")
    return problems


def summarize(results: list[tuple[int, str, list[str]]]) -> pd.DataFrame:
    return pd.DataFrame(results, columns=["seed", "outcome", "problems"])
