"""Benchmark: mask_cover against the combinations algorithm at scale, not a test.

On the synthetic discharge abstracts (:mod:`dbt_deid.tools.synthetic.discharge`, El Emam et al. 2011
Table 2 shape) generalized as the paper's recommended release (``bench/bench_seed000.py``'s
headline: region, LOS weeks, 5-year age group and gender as demographics; the diagnosis family
MRDx / CMG / block / chapter with the adversary at CMG, the intervention family CCI / short CCI
with the adversary at short CCI; every level released, suppression propagated), both
algorithms run on the same pattern table in the same process, one after the other:
``combinations`` (the reference, El Emam et al. 2011 "Combinations Suppression Algorithm") and
``mask_cover`` (:mod:`dbt_deid.mask_cover`). Printed per size: patterns, CPU seconds of each
and their ratio (mask_cover / combinations), suppressed cells of each and their ratio, and
both gates on every verified combination (smallest own-category class, records below k under
the exact consistent-set check).

    .venv/bin/python bench/bench_mask_cover_scale.py [--rows 240000 2400000] [--k 5]

The machine may be shared: compare the ratios of one run, not seconds across runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "bench") not in sys.path:
    sys.path.insert(0, str(REPO / "bench"))

from bench_seed000 import HEADLINE_DEMOGRAPHICS, core_release  # noqa: E402

from dbt_deid.config import parse_release  # noqa: E402
from dbt_deid.patterns import SUPPRESSED  # noqa: E402
from dbt_deid.suppression import run_suppression, verify_result  # noqa: E402
from dbt_deid.tools.synthetic.discharge import diagnosis_hierarchy, generate_discharges  # noqa: E402

SEED = 42


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class _Quiet:
    def info(self, msg: str) -> None:
        pass


def generalized(rows: int) -> pd.DataFrame:
    """The records generalized as bench_seed000.py's SQL does (same labels), in pandas."""
    d = generate_discharges(rows, seed=SEED)
    hier = diagnosis_hierarchy().set_index("mrdx")
    region = {"ON": "Central", "TERR": "North", "NS": "East", "NB": "East", "NL": "East",
              "PE": "East"}
    los = d["los_days"].to_numpy()
    weeks = np.where(los >= 182, "182+", (los // 7).astype(str))
    age = d["age"].to_numpy()
    lo = (age // 5) * 5
    age_group = np.where(age >= 90, "90+",
                         pd.Series(lo).astype(str) + "-" + pd.Series(lo + 4).astype(str))
    cci = d["cci_code"]
    return pd.DataFrame({
        "region": d["province"].map(lambda p: region.get(p, "West")),
        "los_weeks": weeks, "age_group": age_group, "gender": d["gender"],
        "mrdx": d["mrdx"], "cmg": d["cmg"],
        "diag_block": d["mrdx"].map(hier["diag_block"]),
        "diag_chapter": d["mrdx"].map(hier["diag_chapter"]),
        "cci_code": cci.fillna("<missing>"),
        "short_cci": cci.str.slice(0, 7).fillna("<missing>"),
    })


def run(frame: pd.DataFrame, release: dict[str, Any], k: int, algorithm: str):
    cfg = parse_release(release, partial=True)
    t = time.process_time()
    result = run_suppression(
        frame, k, cfg.combinations, cfg.weights, algorithm=algorithm, count_column="n",
        logger=_Quiet(), propagation=cfg.propagation(), columns=cfg.qi_names,
        verify_combinations=cfg.verified_combinations(), families=cfg.families,
    )
    return result, time.process_time() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[240_000, 2_400_000])
    ap.add_argument("--k", type=int, default=5)
    args = ap.parse_args(argv)
    release = core_release(HEADLINE_DEMOGRAPHICS, 1.0 / args.k)
    print(f"discharge release (bench_seed000 headline), k = {args.k}")
    print(f"{'records':>9} {'patterns':>8} {'algorithm':<13} {'CPU s':>8} {'cells':>9}"
          f" {'min class':>9} {'below k':>7} {'CPU ratio':>9} {'cell ratio':>10}")
    per_column: dict[str, dict[str, int]] = {}
    for rows in args.rows:
        log(f"generating {rows} records")
        records = generalized(rows)
        patterns = records.value_counts().reset_index(name="n")
        del records
        base: tuple[float, int] | None = None
        for algorithm in ("combinations", "mask_cover"):
            log(f"{rows} records, {len(patterns)} patterns: {algorithm}")
            result, cpu = run(patterns, release, args.k, algorithm)
            log(f"  {cpu:.1f} CPU s; checking both gates")
            checks = verify_result(result)
            smallest = min(c.smallest_class for c in checks)
            below = sum(c.records_below_k_exact for c in checks)
            cells = result.stats.cells
            base = base or (cpu, cells)
            sup = result.table.codes == SUPPRESSED
            per_column[algorithm] = {c: int((sup[:, j] * result.table.counts).sum())
                                     for j, c in enumerate(result.table.columns)}
            print(f"{rows:>9} {len(patterns):>8} {algorithm:<13} {cpu:>8.1f} {cells:>9}"
                  f" {smallest:>9} {below:>7} {cpu / base[0]:>9.2f} {cells / base[1]:>10.3f}",
                  flush=True)
    print("\ncells per released column at the largest size (what the choice changes):")
    for algorithm, cols in per_column.items():
        print(f"  {algorithm:<13} " + ", ".join(f"{c} {n}" for c, n in cols.items()))
    print("CPU ratio and cell ratio: mask_cover / combinations, same run; min class: smallest"
          " own-category class over the verified combinations; below k: records consistent"
          " with fewer than k released records (exact check), summed over them")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
