"""``python -m dbt_deid risk``: re-identification risk measures of a CSV file, as JSON.

The input has one record per row; an empty cell is a missing original value (a category of its
own). With ``--published`` (the ``suppress`` command's output, aligned row by row with the input)
the measures are taken on the published file, whose empty cells are suppressed values, and the
exact prosecutor risk uses the input as the true values.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

import pandas as pd

from dbt_deid.config import DEFAULT_MISSING_LABEL
from dbt_deid.errors import ConfigError, DataError
from dbt_deid.risk.assessment import RiskAssessment, assess_release
from dbt_deid.risk.thresholds import PRESETS, threshold_preset
from dbt_deid.tools.io import mark_missing, read_table


def parse_columns(text: str, option: str = "--qi") -> list[str]:
    cols = [c.strip() for c in text.split(",") if c.strip()]
    if not cols:
        raise ConfigError(f"{option} must list at least one column")
    if len(set(cols)) != len(cols):
        raise ConfigError(f"{option} repeats a column: {cols}")
    return cols


def _require(frame: pd.DataFrame, cols: list[str], option: str, path: str) -> None:
    unknown = [c for c in cols if c not in frame.columns]
    if unknown:
        raise ConfigError(f"{option} names unknown column(s) {unknown}; {path} has"
                          f" {list(frame.columns)}")


def build_assessment(args: argparse.Namespace) -> RiskAssessment:
    """Read the files named by the shared options and measure the release."""
    qi = parse_columns(args.qi)
    preset = None
    if args.preset is not None:
        preset = threshold_preset(args.preset, tau=args.tau)
    tau = args.tau if args.tau is not None else (preset.tau if preset else None)
    if tau is None:
        raise ConfigError("give --tau (or --preset to take tau from a release context)")
    if math.isnan(tau):
        raise ConfigError("--tau must be a number in (0, 1]")
    source = read_table(args.input, args.delimiter)
    _require(source, qi, "--qi", args.input)
    by = getattr(args, "by", None)
    if by is not None:
        _require(source, [by], "--by", args.input)
    extra = [by] if by is not None and by not in qi else []
    truth = mark_missing(source, qi + extra, args.missing_label)
    true_values = None
    if args.published:
        pub = read_table(args.published, args.delimiter)
        _require(pub, qi + extra, "--qi/--by", args.published)
        if len(pub) != len(source):
            raise DataError(f"{args.published} has {len(pub)} rows but {args.input} has"
                            f" {len(source)}; the published file must be aligned row by row")
        published = pub[qi + extra].astype(object)
        for c in qi:
            published[c] = published[c].where(published[c] != "", None)
        for c in extra:
            published[c] = published[c].where(published[c] != "", args.missing_label)
        true_values = truth[qi]
    else:
        published = truth[qi + extra]
    population = None
    if args.population:
        population = read_table(args.population, args.delimiter)
        _require(population, qi, "--qi", args.population)
        population = mark_missing(population, qi, args.missing_label)
        if args.population_count:
            _require(population, [args.population_count], "--population-count",
                     args.population)
    return assess_release(
        published, qi, tau, count_column=None, true_values=true_values,
        population=population, population_count_column=args.population_count,
        sampling_fraction=args.sampling_fraction, population_size=args.population_size,
        by=by, missing_values=("", args.missing_label), preset=preset,
        name=args.name or str(args.published or args.input),
    )


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item"):  # numpy scalars
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def run(args: argparse.Namespace) -> int:
    assessment = build_assessment(args)
    json.dump(_jsonable(assessment.to_dict()), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def add_common_arguments(p: argparse.ArgumentParser) -> None:
    """Options shared by ``risk`` and ``report``."""
    p.add_argument("--input", required=True,
                   help="CSV file, one record per row, with a header (empty cell = missing)")
    p.add_argument("--qi", required=True, help="comma-separated quasi-identifier columns")
    p.add_argument("--tau", type=float, default=None,
                   help="maximum acceptable re-identification probability (k = ceil(1/tau))")
    p.add_argument("--preset", choices=sorted(PRESETS), default=None,
                   help="release context giving tau and a uniqueness threshold with its"
                   " justification (--tau overrides its tau)")
    p.add_argument("--published", default=None,
                   help="the published CSV (suppress output, same rows as --input; empty"
                   " cell = suppressed); measures are taken on it")
    p.add_argument("--sampling-fraction", type=float, default=None,
                   help="share of the population in the file (journalist/marketer risk,"
                   " population uniqueness)")
    p.add_argument("--population-size", type=float, default=None,
                   help="population size N (alternative to --sampling-fraction)")
    p.add_argument("--population", default=None,
                   help="census-like CSV with the QI columns giving population class sizes")
    p.add_argument("--population-count", default=None,
                   help="column of --population holding counts (default: one row per person)")
    p.add_argument("--delimiter", default=",", help="field delimiter (default ',')")
    p.add_argument("--missing-label", default=DEFAULT_MISSING_LABEL,
                   help="label of a missing input value (an empty input cell)")
    p.add_argument("--name", default=None, help="release name shown in the output")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "risk",
        help="re-identification risk measures of a CSV file (JSON)",
        description="Prosecutor risk (max, mean, share above tau; exact variant with"
        " --published), journalist and marketer risk and population uniqueness (with"
        " --sampling-fraction, --population-size or --population), risk distribution and"
        " suppression diagnostics. Prints aggregate figures only, as JSON.",
    )
    add_common_arguments(p)
    p.set_defaults(func=run)
