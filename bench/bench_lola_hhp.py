"""LOLA risk of the public HHP release itself, from the user's own copy; not a test.

El Emam et al. 2012 (seed 001) published the Heritage Health Prize claims at its Table 5 node
and reports that the node met MaxSup 0.8% with simulated attack 1 at 0.84%. This script runs the
same computation as ``bench/bench_lola.py`` (``NodeEvaluator`` at the Table 5 node, k = 4,
MaxSup 0.8%, the adversary model as default, attack 1) on the real release files, read where
they lie (``dbt_deid.longitudinal.hhp_release``: each released label becomes a value that the
Table 5 node generalizes back to it), and prints the high-risk share, attack 1, each reading of
the adversary's knowledge, and the repetition figures (``dbt_deid.longitudinal.repetition``)
that the synthetic generator can be calibrated to. Only aggregate figures are printed: the HHP
data terms do not allow redistribution, so never commit the files or a row of them.

The released claims are both D1 and D2 (the truncated claims were not published): attack 1
draws its knowledge from the released claims. p_ih is computed on the released values.

    nice -n 10 .venv/bin/python bench/bench_lola_hhp.py --members PATH/Members.csv \\
        --claims PATH/Claims.csv --dih-y2 PATH/DaysInHospital_Y2.csv \\
        --dih-y3 PATH/DaysInHospital_Y3.csv
    nice -n 10 .venv/bin/python bench/bench_lola_hhp.py --release-zip PATH/HHP_release3.zip
    nice -n 10 .venv/bin/python bench/bench_lola_hhp.py --synthetic 113000   # round-trip check

``--synthetic N`` writes N calibrated synthetic patients in the release's layout under a
temporary directory in /tmp, reads them back the same way and runs the same figures: the check
of the reader on data whose ``bench_lola.py`` figures are known.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from dbt_deid.longitudinal import calibration as cal
from dbt_deid.longitudinal.adversary import reconstructed
from dbt_deid.longitudinal.attack import simulate_attack1
from dbt_deid.longitudinal.bootstrap import (
    NodeEvaluator,
    k_for_sample,
    max_sup_from_risk_exposure,
    power_matrix,
)
from dbt_deid.longitudinal.encoding import DEFAULT_DEMOGRAPHIC_QIS, encode
from dbt_deid.longitudinal.hhp_release import as_preprocessed, read_release, to_hhp_layout
from dbt_deid.longitudinal.hierarchies import default_hierarchies
from dbt_deid.longitudinal.preprocess import preprocess
from dbt_deid.longitudinal.repetition import repetition_stats
from dbt_deid.tools.longitudinal_demo import Prepared
from dbt_deid.tools.synthetic.claims import generate_hhp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lola import common_options, emit, readings, versus  # noqa: E402

FILES = ("Members", "Claims", "DaysInHospital_Y2", "DaysInHospital_Y3")


def _read_zip(path: str) -> dict[str, pd.DataFrame]:
    with zipfile.ZipFile(path) as zf:
        names = {Path(n).stem: n for n in zf.namelist()}
        missing = [f for f in FILES if f not in names]
        if missing:
            raise SystemExit(f"--release-zip: {missing} not in the archive")
        return {f: pd.read_csv(zf.open(names[f]), low_memory=False) for f in FILES}


def _synthetic(n: int, seed: int, tmp: Path) -> dict[str, pd.DataFrame]:
    pre = preprocess(generate_hhp(n, seed), key_env="K", environ={"K": secrets.token_hex(32)})
    frames = to_hhp_layout(pre)
    for name, frame in frames.items():
        frame.to_csv(tmp / f"{name}.csv", index=False)
    return {f: pd.read_csv(tmp / f"{f}.csv", low_memory=False) for f in FILES}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--members")
    ap.add_argument("--claims")
    ap.add_argument("--dih-y2")
    ap.add_argument("--dih-y3")
    ap.add_argument("--release-zip", help="HHP_release3.zip holding the four files")
    ap.add_argument("--synthetic", type=int, metavar="N",
                    help="round-trip check on N synthetic patients written in the layout")
    common_options(ap)
    args = ap.parse_args(argv)
    cal.USUAL_VISIT_SHARE = args.usual_visit_share
    t_all = time.perf_counter()
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="bench_lola_hhp_", dir="/tmp") as tmp:
        if args.synthetic:
            frames = _synthetic(args.synthetic, args.seed, Path(tmp))
            out["source"] = f"synthetic, {args.synthetic} patients, seed {args.seed}"
        elif args.release_zip:
            frames = _read_zip(args.release_zip)
            out["source"] = "release zip (user's copy)"
        else:
            paths = dict(zip(FILES, (args.members, args.claims, args.dih_y2, args.dih_y3),
                             strict=True))
            if not all(paths.values()):
                ap.error("give --members, --claims, --dih-y2 and --dih-y3, or --release-zip,"
                         " or --synthetic N")
            frames = {f: pd.read_csv(p, low_memory=False) for f, p in paths.items()}
            out["source"] = "release files (user's copy)"
    t = time.perf_counter()
    release = read_release(*(frames[f] for f in FILES))
    del frames
    pre = as_preprocessed(release)
    model = reconstructed(DEFAULT_DEMOGRAPHIC_QIS)
    d = encode(pre.patients, pre.claims, default_hierarchies())
    power = power_matrix(d, None, pre.claims, 5, model.power_function)
    prep = Prepared(pre, d, d, power, power, {"read_and_encode": time.perf_counter() - t})
    per = np.diff(d.offsets)
    out["data"] = {"patients": d.n_patients,
                   "claims": versus(d.n_claims, cal.PAPER_CLAIMS),
                   "median_claims": versus(float(np.median(per)), cal.PAPER_MEDIAN_CLAIMS),
                   "max_claims": versus(int(per.max()), cal.PAPER_MAX_CLAIMS)}
    k = k_for_sample(args.tau, args.alpha)
    ms = max_sup_from_risk_exposure(args.tau)
    node = tuple(cal.TABLE5_LEVELS[dim] for dim in d.spec.dimension_names)
    known = model.known(d.spec.demographic_qis)
    out["settings"] = {"tau": args.tau, "alpha": round(args.alpha, 4), "k": k, "max_sup": ms,
                       "p_max": 5, "pool_size": args.pool_size, "paper_node": list(node),
                       "adversary": {"known_demographic_qis": list(known),
                                     "power_function": model.power_function,
                                     "matching": model.matching}}
    ev = NodeEvaluator(d, power, k=k, max_sup=ms, pool_size=args.pool_size, seed=args.seed,
                       model=model)
    res = ev.evaluate(node)
    att = simulate_attack1(d, d, node, power, alpha=args.alpha,
                           iterations=args.attack_iterations, seed=args.seed, model=model)
    out["paper_node"] = {
        "high_risk_share": {**versus(res.mean, cal.PAPER_MAX_SUP),
                            "ci95": [round(res.ci_low, 6), round(res.ci_high, 6)],
                            "passes_max_sup": res.candidate},
        "demographics_alone": round(ev.demographic_share(node), 6),
        "attack1": {**versus(att.success_rate, cal.PAPER_ATTACK1),
                    "expected_rate": round(att.expected_rate, 6),
                    "median_matching_set": att.median_matching_set},
    }
    out["repetition_at_paper_node"] = repetition_stats(d, node, known=known, k=k)
    if not args.no_readings:
        out["readings"] = readings(prep, node, k, ms, args)
    return emit(out, t_all)


if __name__ == "__main__":
    raise SystemExit(main())
