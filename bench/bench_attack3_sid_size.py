"""Attack 3 (El Emam et al. 2012, Table 6) against SID-like populations of growing size; not a
test.

The claims demo measures attack 3 against a small synthetic SID (its release's patients and
``claims_sid_others`` other people), far smaller than California's SID. This bench shows how the
closed-form marketer risk falls as the population grows: the released patients are every
inpatient-visit holder of ``generate_hhp(--patients, seed)`` (no truncation, so none is
unmatchable), generalized at the demo's release node (age level 3, LOS level 4, Table 4
hierarchies); the population is ``generate_sid_visits(--patients, seed, others=N)`` for each N of
``--others``. Prints the Table 6 cells per QI set and population size, beside the paper's
range, and the time of each run as a ratio to the generation of the release (baseline, same run).

    nice -n 10 .venv/bin/python bench/bench_attack3_sid_size.py [--patients 5000]
        [--others 20000 80000] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import time

from dbt_deid.longitudinal.attack3 import NUMBER_OF_VISITS, attack3_rows
from dbt_deid.longitudinal.hierarchies import default_hierarchies, generalize
from dbt_deid.tools.synthetic.claims import generate_hhp, generate_sid_visits

QI_SETS = [["age", "sex", "los", NUMBER_OF_VISITS],
           ["age", "sex", "primary_condition_group", NUMBER_OF_VISITS],
           ["age", "sex", "procedure_group", NUMBER_OF_VISITS],
           ["age", "sex", "los", "primary_condition_group", NUMBER_OF_VISITS]]
LEVELS = {"age": 3, "los": 4}
PAPER_RANGE = (0.001478, 0.017272)


def coded(frame, hierarchies):
    out = frame.copy()
    for q, level in LEVELS.items():
        out[q] = generalize(out[q], hierarchies[q], level)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--patients", type=int, default=5000)
    ap.add_argument("--others", type=int, nargs="+", default=[20_000, 80_000])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    hier = default_hierarchies()
    t0 = time.perf_counter()
    hhp = generate_hhp(args.patients, args.seed)
    baseline = time.perf_counter() - t0
    visits = hhp.claims.loc[hhp.claims["los"].notna()].merge(
        hhp.patients[["member_id", "age", "sex"]], on="member_id")
    released = coded(visits.rename(columns={"member_id": "patient_id"}), hier)
    for c in ("primary_condition_group", "procedure_group", "sex"):
        released[c] = released[c].astype("string")
    out = {"patients": args.patients, "released_with_visits": int(released.patient_id.nunique()),
           "paper_range": PAPER_RANGE, "baseline_s": round(baseline, 2), "runs": []}
    for others in args.others:
        t = time.perf_counter()
        pop = coded(generate_sid_visits(args.patients, args.seed, others=others), hier)
        # the released patients under the population's keys: the source patients' visits are
        # the population's, matched by their values (the keys differ by design)
        rows = attack3_rows(released, pop, QI_SETS, n_released=args.patients,
                            patient_qis=["age", "sex"], patient="patient_id", absent="zero")
        out["runs"].append({
            "others": others, "population_patients": int(pop.patient_id.nunique()),
            "cells": {f"{r.qi_set}|{r.period}": round(float(r.marketer_risk), 6)
                      for r in rows.itertuples()},
            "not_in_population": int(rows.patients_not_in_population.max()),
            "time_ratio": round((time.perf_counter() - t) / baseline, 2)})
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
