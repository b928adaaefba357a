"""``python -m dbt_deid suppress``: the combinations suppression algorithm on a CSV file."""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from dbt_deid.config import DEFAULT_MISSING_LABEL
from dbt_deid.errors import ConfigError
from dbt_deid.io import mark_missing, read_table
from dbt_deid.suppression import run_suppression, verify_result


def _weights(items: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in items:
        col, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--weight expects column=weight, got {item!r}")
        try:
            out[col] = float(value)
        except ValueError as exc:
            raise ConfigError(f"--weight {item!r}: weight must be a number in [0, 1]") from exc
    return out


def run(args: argparse.Namespace) -> int:
    frame = read_table(args.input, args.delimiter)
    combos = [[c.strip() for c in combo.split(",") if c.strip()] for combo in args.combination]
    used = list(dict.fromkeys(c for combo in combos for c in combo))
    unknown = [c for c in used if c not in frame.columns]
    if unknown:
        raise ConfigError(
            f"--combination names unknown column(s) {unknown}; {args.input} has"
            f" {list(frame.columns)}"
        )
    work = mark_missing(frame, used, args.missing_label)
    result = run_suppression(
        work, args.k, combos, _weights(args.weight),
        algorithm="complete" if args.complete else "combinations", count_column=None,
    )
    out = frame.copy()
    # one input row per record: row i of the input is the table row whose origin is i
    order = np.argsort(result.table.origin, kind="stable")
    published = result.published().iloc[order].reset_index(drop=True)
    for c in used:
        values = published[c].to_numpy(dtype=object)
        out[c] = [("" if v is None else v) for v in values]
    out.to_csv(args.output, index=False, sep=args.delimiter)
    checks = verify_result(result)
    summary = {
        "k": args.k,
        "algorithm": "complete" if args.complete else "combinations",
        "records": int(len(frame)),
        "cells_suppressed": result.stats.cells,
        "phase1_cells": result.stats.phase1_cells,
        "phase2_cells": result.stats.phase2_cells,
        "records_moved_to_fully_suppressed_class": result.stats.growth_records,
        "records_with_suppression": int(
            sum(1 for _, r in published[used].iterrows() if r.isna().any())
        ),
        "passes": result.stats.passes,
        "combinations": [
            {"columns": list(c.combination), "smallest_class": c.smallest_class,
             "min_consistent": c.min_consistent, "ok": c.ok}
            for c in checks
        ],
    }
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0 if all(c.ok for c in checks) else 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "suppress",
        help="combinations cell suppression (seed 000) on a CSV file",
        description="Suppress cells so that every combination's classes reach k. The output has"
        " the input's rows and columns; an empty cell is a suppressed value, a missing input"
        " value is written as the missing label.",
    )
    p.add_argument("--input", required=True, help="CSV file, one record per row, with a header")
    p.add_argument("--output", required=True, help="where to write the suppressed CSV")
    p.add_argument("--k", type=int, required=True, help="minimum class size (k >= 2)")
    p.add_argument("--combination", action="append", required=True,
                   help="comma-separated QI columns; repeat for each combination")
    p.add_argument("--weight", action="append", default=[], help="column=weight in [0, 1]")
    p.add_argument("--complete", action="store_true",
                   help="one combination of all QIs (the paper's 'complete' algorithm)")
    p.add_argument("--delimiter", default=",", help="field delimiter (default ',')")
    p.add_argument("--missing-label", default=DEFAULT_MISSING_LABEL,
                   help="how a missing input value is written in the output")
    p.set_defaults(func=run)
