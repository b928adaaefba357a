"""The synthetic discharge abstracts' shape against El Emam et al. 2011 Table 2: not a test.

For the demo's population (``demo_rows`` records, ``demo_seed``) or any size: the number of
categories present per quasi-identifier at the demo's release levels (the rules of
demo/dbt_project.yml: 5-year age groups top-coded at 90; LOS in days up to a week then weeks,
top-coded at 182 days; LOS in weeks top-coded at 182 days; the region of the province), next to
Table 2's count, and the shares the generator is calibrated on. Table 2 counts categories in the
2,375,331-record DAD population, so a smaller population shows fewer of the rare codes.

    .venv/bin/python bench/seed000_shape.py [--rows 480000] [--seed 42]
"""

from __future__ import annotations

import argparse

import numpy as np

from dbt_deid.tools.synthetic.discharge import REGION, diagnosis_hierarchy, generate_discharges

LOS_DAY_BREAKS = [0, 1, 2, 3, 4, 5, 6, 7, *range(14, 182, 7)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=480_000)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    d = generate_discharges(args.rows, seed=args.seed)
    h = diagnosis_hierarchy().set_index("mrdx")
    los = d["los_days"].to_numpy()
    top = los >= 182
    los_days = np.where(top, -1, np.digitize(los, LOS_DAY_BREAKS))
    los_weeks = np.where(top, -1, los // 7)
    age = d["age"].to_numpy()
    age_group = np.where(age >= 90, -1, age // 5)
    rows = [
        ("PROV_ALL", 10, d["province"].nunique()),
        ("PROV_REGION", 4, d["province"].map(REGION).nunique()),
        ("TOTAL_LOS_DAYS", 31, len(set(los_days))),
        ("TOTAL_LOS_WEEKS", 25, len(set(los_weeks))),
        ("AGE_GROUP", 20, len(set(age_group))),
        ("GENDER_CODE", 5, d["gender"].nunique()),
        ("MRDx", 8967, d["mrdx"].nunique()),
        ("DIAG3", 1435, h.loc[d["mrdx"].unique(), "diag3"].nunique()),
        ("DIAG_BLOCK", 195, h.loc[d["mrdx"].unique(), "diag_block"].nunique()),
        ("DIAG_CHAPTER", 23, h.loc[d["mrdx"].unique(), "diag_chapter"].nunique()),
        ("CMG_CODE", 545, d["cmg"].nunique()),
        ("CCI_CODE", 8780, d["cci_code"].nunique()),
        ("SHORT_CCI", 569, d["cci_code"].dropna().str[:7].nunique()),
    ]
    print(f"{args.rows} records, seed {args.seed}")
    print("| quasi-identifier | Table 2 categories | present here |")
    print("|---|---|---|")
    for name, paper, here in rows:
        print(f"| {name} | {paper} | {here} |")
    print()
    print(f"records with no intervention: {100 * d['cci_code'].isna().mean():.1f}%"
          " (Table 2: about 46%)")
    print(f"stays under a week: {100 * (los < 7).mean():.1f}%; newborns (age 0):"
          f" {100 * (age == 0).mean():.1f}%")


if __name__ == "__main__":
    main()
