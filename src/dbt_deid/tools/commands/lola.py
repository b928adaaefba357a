"""``python -m dbt_deid lola-demo``: LOLA (El Emam et al. 2012) end to end on synthetic HHP-like
claims."""

from __future__ import annotations

import argparse
import json
import sys

from dbt_deid.errors import ConfigError
from dbt_deid.longitudinal.bootstrap import DEFAULT_POOL, SCHEMES
from dbt_deid.longitudinal.calibration import SAMPLING_FRACTION
from dbt_deid.tools.longitudinal_demo import run_demo


def _positive(name: str, value: int) -> int:
    if value < 1:
        raise ConfigError(f"--{name} must be a positive integer, got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    summary = run_demo(
        _positive("patients", args.patients),
        args.seed,
        n_bootstrap=_positive("bootstrap", args.bootstrap),
        n_iterations=_positive("iterations", args.iterations),
        pool_size=_positive("pool-size", args.pool_size),
        scheme=args.scheme,
        tau=args.tau,
        alpha=args.alpha,
        p_max=_positive("p-max", args.p_max),
        max_sup=args.max_sup,
        attack_iterations=_positive("attack-iterations", args.attack_iterations),
        key_env=args.key_env,
    )
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "lola-demo",
        help="LOLA on synthetic longitudinal claims (El Emam et al. 2012), printed as JSON",
        description="Generate HHP-like patients and claims, preprocess them (pseudonyms,"
        " stigmatized-patient removal, top-coding, provider suppression, truncation), run LOLA"
        " with bootstrap node evaluation and simulate attack 1 on the chosen node.",
    )
    p.add_argument("--patients", type=int, default=2_000, help="number of patients (2000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (0)")
    p.add_argument("--bootstrap", type=int, default=10_000,
                   help="patients sampled per bootstrap iteration, B (10000)")
    p.add_argument("--iterations", type=int, default=1_000,
                   help="bootstrap iterations, I (1000)")
    p.add_argument("--tau", type=float, default=0.05, help="risk threshold tau (0.05)")
    p.add_argument("--pool-size", type=int, default=DEFAULT_POOL,
                   help=f"knowledge draws of the pooled bootstrap ({DEFAULT_POOL})")
    p.add_argument("--scheme", choices=SCHEMES, default="pooled",
                   help="bootstrap scheme: pooled, or independent (the paper's I x B draws)")
    p.add_argument("--alpha", type=float, default=SAMPLING_FRACTION,
                   help="sampling fraction alpha; k = alpha * ceil(1/tau) (113,000 / 700,000)")
    p.add_argument("--p-max", type=int, default=5, help="maximum adversary power (5)")
    p.add_argument("--max-sup", type=float, default=None,
                   help="MaxSup (default: Safe Harbor risk exposure, 0.0004 / tau)")
    p.add_argument("--attack-iterations", type=int, default=10_000,
                   help="attack 1 iterations (10000)")
    p.add_argument("--key-env", default=None,
                   help="environment variable holding the pseudonym key (default: a random"
                   " in-memory key, fine for synthetic data)")
    p.set_defaults(func=run)
