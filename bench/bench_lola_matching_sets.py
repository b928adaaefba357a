"""The matching-set sizes behind the high-risk share and attack 1 at the paper's node (El Emam
et al. 2012, Table 5); not a test.

The paper's figures bound the matching sets (docs/claims-release.md, section 2): attack 1 is
alpha x mean(1 / m) over targets (m: released patients matching the target's knowledge), so its
0.84% at alpha = 0.1614 needs mean(1 / m) >= 5.2%, and with at most 0.8% of patients high risk
(m < k = 4) the others need mean(1 / m) >= 4.4% (a harmonic-mean set of at most 22.5). This
bench measures the same quantities on the calibrated synthetic claims, with knowledge drawn as
attack 1 draws it (from D1 at the reconstruction's power, matched against D2), for every target
(no membership draw): the share with m < k, mean(1 / m) overall and among m >= k, the harmonic
mean among m >= k, and quantiles of m.

    nice -n 10 .venv/bin/python bench/bench_lola_matching_sets.py [--patients 113000]
        [--targets 10000] [--seed 0] [--matching multiset|set|distinct]
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace

import numpy as np

from dbt_deid.longitudinal import calibration as cal
from dbt_deid.longitudinal.adversary import MATCHINGS, reconstructed
from dbt_deid.longitudinal.bootstrap import k_for_sample
from dbt_deid.longitudinal.encoding import DEFAULT_DEMOGRAPHIC_QIS
from dbt_deid.longitudinal.matching import NodeIndex, draw_knowledge
from dbt_deid.tools.longitudinal_demo import prepare


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--patients", type=int, default=cal.PAPER_PATIENTS)
    ap.add_argument("--targets", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--matching", choices=MATCHINGS, default="multiset")
    args = ap.parse_args()
    t0 = time.perf_counter()
    model = replace(reconstructed(DEFAULT_DEMOGRAPHIC_QIS), matching=args.matching)
    prep = prepare(args.patients, args.seed, power_function=model.power_function)
    d1, d2 = prep.d1, prep.d2
    node = tuple(cal.TABLE5_LEVELS[d] for d in d2.spec.dimension_names)
    k = k_for_sample(0.05, cal.SAMPLING_FRACTION)
    rng = np.random.default_rng(args.seed)
    targets = rng.integers(0, d1.n_patients, args.targets)
    know = draw_knowledge(d1, targets, prep.power_d1, rng, "values", model.matching)
    index = NodeIndex(d2, node, variant="values", known=model.known(d2.spec.demographic_qis))
    m = index.count_matches(d1, know).astype(np.float64)
    hit = index.contains(d1, know, targets)
    inv = np.where(hit, 1.0 / np.maximum(m, 1), 0.0)
    low = (m >= k) & hit
    out = {
        "patients": args.patients, "targets": args.targets, "k": k, "node": list(node),
        "matching": model.matching,
        "share_m_below_k": round(float(((m < k) & hit).mean()), 6),
        "mean_inverse_m": round(float(inv.mean()), 6),
        "alpha_x_mean_inverse_m": round(float(cal.SAMPLING_FRACTION * inv.mean()), 6),
        "mean_inverse_m_among_m_at_least_k": round(float(inv[low].mean()), 6),
        "harmonic_mean_m_among_m_at_least_k": round(float(1 / inv[low].mean()), 1),
        "m_quantiles": {q: float(np.quantile(m[hit], q)) for q in (0.05, 0.25, 0.5, 0.75, 0.95)},
        "target_not_matched": int((~hit).sum()),
        "paper_bound": {"mean_inverse_m_at_least": 0.052,
                        "mean_inverse_m_among_m_at_least_k_at_least": 0.044,
                        "harmonic_mean_among_m_at_least_k_at_most": 22.5,
                        "share_m_below_k_at_most": 0.008},
        "seconds": round(time.perf_counter() - t0, 1),
    }
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
