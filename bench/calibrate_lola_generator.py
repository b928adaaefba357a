"""Check (and fit) the synthetic HHP-like claims against what they are calibrated to; not a test.

Generates ``--patients`` patients (default the paper's 113,000), truncates claims per patient and
year at the 95th percentile as seed 001 did (:func:`dbt_deid.longitudinal.preprocess.
truncate_claims`), and prints every figure of :mod:`dbt_deid.longitudinal.calibration` beside the
generated one, scaled to the number of patients, with their ratio.

``--solve-dsfs`` refits ``EPISODE_MONTH_WEIGHTS`` (the month an episode of claims starts in) so
that days since first claim by 30-day month matches the public release (HHP counts), by fixed-point
iteration on generated data, and prints the weights to paste into ``calibration.py``.

    nice -n 10 .venv/bin/python bench/calibrate_lola_generator.py [--patients 113000] [--seed 0]
        [--solve-dsfs]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
import pandas as pd

from dbt_deid.longitudinal import calibration as cal
from dbt_deid.longitudinal.preprocess import truncate_claims
from dbt_deid.tools.synthetic.claims import generate_hhp


def dsfs_shares(claims: pd.DataFrame) -> np.ndarray:
    """Share of claims by 30-day month of days since first claim (months 11+ together)."""
    month = np.minimum(claims["dsfc"].to_numpy() // 30, 11)
    return np.bincount(month, minlength=12) / len(month)


def solve_dsfs(n: int, seed: int, rounds: int = 6) -> tuple[float, ...]:
    """Fixed-point fit of the episode month weights to the HHP DSFS shares (before truncation,
    where the generator's frequencies are set)."""
    target = np.asarray(cal.DSFS_MONTH_COUNTS, dtype=np.float64)
    target /= target.sum()
    w = np.asarray(cal.EPISODE_MONTH_WEIGHTS, dtype=np.float64)
    for r in range(rounds):
        cal.EPISODE_MONTH_WEIGHTS = tuple(float(x) for x in w)
        got = dsfs_shares(generate_hhp(n, seed).claims)
        ratio = np.where(got > 0, target / np.maximum(got, 1e-9), 1.0)
        w[1:12] *= ratio[1:12]          # month 0 also holds the first episodes: left at 1
        w = w / w[0]
        print(f"round {r}: max abs error {np.abs(got - target).max():.4f}", file=sys.stderr)
    return tuple(round(float(x), 3) for x in w)


def _shares_of(col: pd.Series) -> dict[object, float]:
    s = col.astype(object).where(col.notna(), None).value_counts(normalize=True, dropna=False)
    return {(None if k is None or (isinstance(k, float) and np.isnan(k)) else k): float(v)
            for k, v in s.items()}


def report(n: int, seed: int) -> dict[str, object]:
    t = time.perf_counter()
    data = generate_hhp(n, seed)
    seconds = time.perf_counter() - t
    claims, patients = data.claims, data.patients
    kept, rep = truncate_claims(claims, 95.0, partition=("year",))
    scale = n / cal.PAPER_PATIENTS
    per = kept.groupby("member_id").size()

    def row(ours: float, theirs: float, source: str) -> dict[str, object]:
        return {"ours": round(float(ours), 4), "target": round(float(theirs), 4),
                "ratio": round(float(ours) / theirs, 3) if theirs else None, "source": source}

    out: dict[str, object] = {"patients": n, "seed": seed, "generate_s": round(seconds, 1)}
    figures = {
        "claims_released": row(len(kept), cal.PAPER_CLAIMS * scale, "seed 001"),
        "median_claims": row(per.median(), cal.PAPER_MEDIAN_CLAIMS, "seed 001"),
        "max_claims": row(per.max(), cal.PAPER_MAX_CLAIMS, "seed 001 (HHP counts: 130)"),
        "patients_truncated": row(rep.changed["patients_truncated"],
                                  cal.PAPER_TRUNCATED_PATIENTS * scale, "seed 001"),
        "y1_members_truncated": row(_y1_truncated(claims), cal.HHP_Y1_TRUNCATED_MEMBERS * scale,
                                    "HHP rows"),
    }
    for y, c in cal.HHP_CLAIMS_BY_YEAR.items():
        figures[f"claims_y{y}"] = row(int((kept["year"] == y).sum()), c * scale, "HHP counts")
    for y, c in cal.HHP_MEMBERS_WITH_CLAIMS.items():
        figures[f"members_y{y}"] = row(claims.loc[claims["year"] == y, "member_id"].nunique(),
                                       c * scale, "HHP rows")
    inp = float((kept["place_of_service"] == "Inpatient Hospital").mean())
    _, p_place = cal.shares(cal.PLACE_OF_SERVICE_COUNTS)
    figures["inpatient_share"] = row(inp, p_place[list(cal.PLACE_OF_SERVICE_COUNTS).index(
        "Inpatient Hospital")], "HHP counts")
    los = kept["los"].dropna().astype(int)
    figures["los_one_day_share"] = row((los == 1).mean(), cal.LOS_BAND_COUNTS[(1, 1)]
                                       / sum(cal.LOS_BAND_COUNTS.values()), "HHP counts")
    out["figures"] = figures
    freq: dict[str, dict[str, object]] = {}
    for col, counts in (("place_of_service", cal.PLACE_OF_SERVICE_COUNTS),
                        ("specialty", cal.SPECIALTY_COUNTS),
                        ("procedure_group", cal.PROCEDURE_GROUP_COUNTS),
                        ("primary_condition_group", cal.PRIMARY_CONDITION_GROUP_COUNTS),
                        ("charlson_index", cal.CHARLSON_COUNTS)):
        values, target = cal.shares(counts)
        pre, post = _shares_of(claims[col]), _shares_of(kept[col])
        big = [i for i, v in enumerate(values) if target[i] >= 0.005]
        freq[col] = {
            "max_rel_error_before_truncation": round(max(
                abs(pre.get(values[i], 0.0) / target[i] - 1) for i in big), 3),
            "max_rel_error_released": round(max(
                abs(post.get(values[i], 0.0) / target[i] - 1) for i in big), 3),
        }
    target = np.asarray(cal.DSFS_MONTH_COUNTS, dtype=np.float64)
    freq["dsfs_month"] = {"max_abs_error_before_truncation": round(float(np.abs(
        dsfs_shares(claims) - target / target.sum()).max()), 4)}
    out["frequencies"] = freq
    dih = {}
    for y in ("dih_y2", "dih_y3"):
        v = patients[y].dropna().astype(int)
        dih[y] = {"reported": len(v), "share_above_0": round(float((v > 0).mean()), 4),
                  "share_15": round(float((v == cal.DIH_CAP).mean()), 4),
                  "p99": int(np.percentile(v, 99, method="inverted_cdf")), "max": int(v.max())}
    out["days_in_hospital"] = dih
    return out


def _y1_truncated(claims: pd.DataFrame) -> int:
    y1 = claims.loc[claims["year"] == 1].groupby("member_id").size()
    cap = int(np.percentile(y1.to_numpy(), 95, method="inverted_cdf"))
    return int((y1 > cap).sum())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--patients", type=int, default=cal.PAPER_PATIENTS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--solve-dsfs", action="store_true")
    args = ap.parse_args(argv)
    if args.solve_dsfs:
        print(json.dumps({"EPISODE_MONTH_WEIGHTS": solve_dsfs(min(args.patients, 30_000),
                                                               args.seed)}))
        return 0
    json.dump(report(args.patients, args.seed), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
