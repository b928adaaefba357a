"""``python -m dbt_deid text-risk`` and ``text-demo``: re-identification risk of de-identified text.

``text-risk`` compares gold annotations with a tool's detections (three CSV files) and prints the
measures, the 95% intervals of equations 20-21 and the two gates of section 2.3.9 as JSON; exit
code 1 when a gate fails. ``text-demo`` writes a synthetic annotated corpus and the detections of
a rule-based detector with a chosen miss rate.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.text_risk.assessment import Settings, assess_corpus
from dbt_deid.text_risk.distributions import DEFAULT_ITERATIONS, Triangular
from dbt_deid.text_risk.inputs import KINDS
from dbt_deid.text_risk.probabilities import DEFAULT_H, DIRECT_CUTOFF, QUASI_CUTOFF
from dbt_deid.text_risk.thresholds import DEFAULT_TAU, tau_from_cell_size
from dbt_deid.tools.synthetic.text import DEMO_TYPES, demo_corpus, rule_detector


def _read_csv(path: str) -> pd.DataFrame:
    """All columns as strings; a header-only file is an empty table."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"input file {str(p)!r} does not exist")
    try:
        return pd.read_csv(p, dtype=str, keep_default_na=False, na_filter=False)
    except pd.errors.EmptyDataError as exc:
        raise DataError(f"input file {str(p)!r} is empty (no header)") from exc


def _attempt(text: str | None) -> Triangular | None:
    if text is None:
        return None
    parts = text.split(",")
    try:
        a, b, c = (float(x) for x in parts)
    except ValueError as exc:
        raise ConfigError(f"--attempt expects low,mode,high (three numbers), got {text!r}") from exc
    return Triangular(a, b, c)


def _types(items: list[str]) -> dict[str, str] | None:
    if not items:
        return None
    out: dict[str, str] = {}
    for item in items:
        name, sep, kind = item.partition("=")
        if not sep or not name.strip() or kind.strip().lower() not in KINDS:
            raise ConfigError(f"--type expects TYPE=direct or TYPE=quasi, got {item!r}")
        out[name.strip()] = kind.strip().lower()
    return out


def run_risk(args: argparse.Namespace) -> int:
    tau = DEFAULT_TAU if args.tau is None else args.tau
    if args.cell_size is not None:
        if args.tau is not None:
            raise ConfigError("give either --tau or --cell-size, not both")
        tau = tau_from_cell_size(args.cell_size)
    settings = Settings(
        h=args.h, tau=tau, direct_cutoff=args.direct_cutoff, quasi_cutoff=args.quasi_cutoff,
        attempt=_attempt(args.attempt), iterations=args.iterations, seed=args.seed,
    )
    result = assess_corpus(
        _read_csv(args.documents), _read_csv(args.annotations), _read_csv(args.detections),
        settings, types=_types(args.type), allow_unannotated=args.allow_unannotated,
    )
    json.dump(result.as_dict(), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0 if result.passed else 1


def _miss_rates(default: float, items: list[str]) -> float | dict[str, float]:
    if not items:
        return default
    rates = dict.fromkeys(DEMO_TYPES, default)
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or name not in DEMO_TYPES:
            raise ConfigError(
                f"--type-miss-rate expects TYPE=RATE with TYPE in {sorted(DEMO_TYPES)}, got"
                f" {item!r}"
            )
        try:
            rates[name] = float(value)
        except ValueError as exc:
            raise ConfigError(f"--type-miss-rate {item!r}: rate must be a number") from exc
    return rates


def run_demo(args: argparse.Namespace) -> int:
    documents, annotations = demo_corpus(args.docs, args.seed)
    detections = rule_detector(
        documents, miss_rate=_miss_rates(args.miss_rate, args.type_miss_rate),
        confusion=args.confusion, seed=args.seed,
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "documents": out / "documents.csv",
        "annotations": out / "annotations.csv",
        "detections": out / "detections.csv",
    }
    documents.to_csv(paths["documents"], index=False)
    annotations.to_csv(paths["annotations"], index=False)
    detections.to_csv(paths["detections"], index=False)
    summary = {
        "documents": int(len(documents)), "annotations": int(len(annotations)),
        "detections": int(len(detections)), "files": {k: str(v) for k, v in paths.items()},
    }
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "text-risk",
        help="re-identification risk of de-identified text (Scaiano et al. 2016) from CSV files",
        description="Compare gold annotations with a tool's detections and print the measures,"
        " 95%% intervals (equations 20-21) and verdicts (section 2.3.9) as JSON. Exit 1 when a"
        " gate fails.",
    )
    p.add_argument("--documents", required=True, help="CSV with doc_id,text")
    p.add_argument("--annotations", required=True,
                   help="CSV with doc_id,annotation_id,type,kind,value,start,end (gold standard)")
    p.add_argument("--detections", required=True,
                   help="CSV with doc_id,start,end,detected_type (the tool's output)")
    p.add_argument("--tau", type=float, default=None,
                   help=f"quasi-identifier threshold (default {DEFAULT_TAU})")
    p.add_argument("--cell-size", type=int, default=None,
                   help="set tau = 1 / cell size instead of --tau (e.g. 5 -> 0.2)")
    p.add_argument("--h", type=float, default=DEFAULT_H,
                   help=f"HIPS factor of re-synthesis (default {DEFAULT_H}; 1 = redaction)")
    p.add_argument("--direct-cutoff", type=float, default=DIRECT_CUTOFF,
                   help=f"strict recall for h on direct identifiers (default {DIRECT_CUTOFF})")
    p.add_argument("--quasi-cutoff", type=float, default=QUASI_CUTOFF,
                   help=f"strict recall for h on quasi-identifiers (default {QUASI_CUTOFF})")
    p.add_argument("--attempt", default=None, metavar="LOW,MODE,HIGH",
                   help="Pr(attempt) as a triangular distribution (non-public release);"
                   " omitted = public release (1)")
    p.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS,
                   help=f"Monte Carlo iterations (default {DEFAULT_ITERATIONS})")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--type", action="append", default=[], metavar="TYPE=KIND",
                   help="declare every type (repeat); annotated or detected types not declared"
                   " are errors. Default: the annotated types")
    p.add_argument("--allow-unannotated", action="store_true",
                   help="accept documents without gold annotations (they count in n)")
    p.set_defaults(func=run_risk)

    d = sub.add_parser(
        "text-demo",
        help="write a synthetic annotated corpus and rule-based detections (three CSVs)",
        description="Write documents.csv, annotations.csv and detections.csv of a seeded"
        " synthetic corpus for text-risk.",
    )
    d.add_argument("--out", required=True, help="output directory")
    d.add_argument("--docs", type=int, default=300, help="number of notes (default 300)")
    d.add_argument("--miss-rate", type=float, default=0.05,
                   help="probability the detector misses a match (default 0.05)")
    d.add_argument("--type-miss-rate", action="append", default=[], metavar="TYPE=RATE",
                   help="per-type miss rate overriding --miss-rate (repeat)")
    d.add_argument("--confusion", type=float, default=0.05,
                   help="probability a detected name gets the other name type (default 0.05)")
    d.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    d.set_defaults(func=run_demo)
