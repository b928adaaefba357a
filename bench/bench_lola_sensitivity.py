"""Which property of the synthetic claims keeps the paper's released node from meeting MaxSup;
not a test.

Regenerates the paper's 113,000 patients with one calibration constant changed at a time
(:mod:`dbt_deid.longitudinal.calibration`; the baseline is the calibrated generator) and prints,
at the paper's released node (Table 5): the share of patients whose demographics alone are
shared by fewer than k patients (exact), the estimated high-risk share (pooled bootstrap) and
simulated attack 1, beside the paper's MaxSup 0.8% and attack 1 0.84%. Variants:

* ``hospital_rate_x0.5``: half as many hospital stays (about 7.5% of members a year above 0 days
  instead of 15%);
* ``own_condition_share_0.3``: a patient's claims repeat the patient's own condition groups 30%
  of the time instead of 65% (condition groups closer to independent draws);
* both.

    nice -n 10 .venv/bin/python bench/bench_lola_sensitivity.py [--patients 113000] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from dbt_deid.longitudinal import calibration as cal
from dbt_deid.longitudinal.attack import simulate_attack1
from dbt_deid.longitudinal.bootstrap import NodeEvaluator, k_for_sample
from dbt_deid.tools.longitudinal_demo import prepare

VARIANTS: dict[str, dict[str, object]] = {
    "calibrated": {},
    "hospital_rate_x0.5": {"HOSPITAL_RATE": {k: v / 2 for k, v in cal.HOSPITAL_RATE.items()}},
    "own_condition_share_0.3": {"OWN_CONDITION_SHARE": 0.3},
    "both": {"HOSPITAL_RATE": {k: v / 2 for k, v in cal.HOSPITAL_RATE.items()},
             "OWN_CONDITION_SHARE": 0.3},
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--patients", type=int, default=cal.PAPER_PATIENTS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pool-size", type=int, default=100_000)
    args = ap.parse_args(argv)
    k = k_for_sample(0.05, cal.SAMPLING_FRACTION)
    out: dict[str, object] = {"patients": args.patients, "k": k,
                              "paper": {"max_sup": cal.PAPER_MAX_SUP,
                                        "attack1": cal.PAPER_ATTACK1}}
    saved = {name: getattr(cal, name) for v in VARIANTS.values() for name in v}
    for label, changes in VARIANTS.items():
        t = time.perf_counter()
        for name, value in saved.items():
            setattr(cal, name, value)
        for name, value in changes.items():
            setattr(cal, name, value)
        prep = prepare(args.patients, args.seed)
        node = tuple(cal.TABLE5_LEVELS[d] for d in prep.d2.spec.dimension_names)
        ev = NodeEvaluator(prep.d2, prep.power_d2, k=k, max_sup=cal.PAPER_MAX_SUP,
                           pool_size=args.pool_size, seed=args.seed)
        att = simulate_attack1(prep.d1, prep.d2, node, prep.power_d1,
                               alpha=cal.SAMPLING_FRACTION, iterations=10_000, seed=args.seed)
        dih = prep.pre.patients["dih_y2"].dropna()
        out[label] = {
            "demographics_alone": round(ev.demographic_share(node), 5),
            "high_risk_share": round(ev.evaluate(node).mean, 5),
            "attack1": att.success_rate,
            "dih_y2_above_0": round(float((dih > 0).mean()), 4),
            "seconds": round(time.perf_counter() - t, 1),
        }
    for name, value in saved.items():
        setattr(cal, name, value)
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
