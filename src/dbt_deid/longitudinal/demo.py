"""End-to-end LOLA run on synthetic HHP-like data: generate, preprocess, search, attack.

Used by ``python -m dbt_deid lola-demo`` and ``bench/bench_lola.py``. The pseudonym key comes
from the environment variable named by ``key_env``; with ``key_env=None`` a random in-memory key
is used (synthetic data only; it is never printed or stored).
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.longitudinal.attack import expected_marketer_risk, simulate_attack1
from dbt_deid.longitudinal.bootstrap import (
    NodeEvaluator,
    k_for_sample,
    max_sup_from_risk_exposure,
    power_matrix,
)
from dbt_deid.longitudinal.encoding import encode
from dbt_deid.longitudinal.generator import generate_hhp
from dbt_deid.longitudinal.hierarchies import default_hierarchies
from dbt_deid.longitudinal.preprocess import preprocess
from dbt_deid.longitudinal.search import lola_search
from dbt_deid.progress import Logger, get_logger


def run_demo(
    n_patients: int = 2_000,
    seed: int = 0,
    *,
    n_bootstrap: int = 10_000,
    n_iterations: int = 1_000,
    tau: float = 0.05,
    alpha: float = 0.2,
    p_max: int = 5,
    max_sup: float | None = None,
    attack_iterations: int = 10_000,
    key_env: str | None = None,
    logger: Logger | None = None,
) -> dict[str, Any]:
    """Run the pipeline and return a JSON-able summary (counts, chosen node, bootstrap mean and
    95% interval, simulated attack 1 rate, closed-form attack 2 risk, timings)."""
    log = logger or get_logger("dbt_deid.longitudinal")
    timings: dict[str, float] = {}
    t = time.perf_counter()
    data = generate_hhp(n_patients, seed)
    timings["generate"] = time.perf_counter() - t
    environ = None
    if key_env is None:
        key_env = "DBT_DEID_DEMO_KEY"
        environ = {key_env: secrets.token_hex(32)}
    t = time.perf_counter()
    pre = preprocess(data, key_env=key_env, environ=environ, logger=log)
    environ = None
    timings["preprocess"] = time.perf_counter() - t
    t = time.perf_counter()
    d1 = encode(pre.patients, pre.claims_all, default_hierarchies())
    d2 = d1.subset_claims(np.isin(d1.claim_ids, pre.claims["claim_id"].to_numpy()))
    power_d2 = power_matrix(d2, None, pre.claims, p_max)
    power_d1 = power_matrix(d1, None, pre.claims_all, p_max)
    timings["encode_and_power"] = time.perf_counter() - t
    k = k_for_sample(tau, alpha)
    ms = max_sup_from_risk_exposure(tau) if max_sup is None else max_sup
    t = time.perf_counter()
    ev = NodeEvaluator(d2, power_d2, k=k, max_sup=ms, n_bootstrap=n_bootstrap,
                       n_iterations=n_iterations, seed=seed, logger=log)
    timings["draw_pool"] = time.perf_counter() - t
    result = lola_search(d2, ev, logger=log)
    timings["search"] = result.seconds
    node = result.chosen or tuple(d2.dimension_heights())
    t = time.perf_counter()
    attack = simulate_attack1(d1, d2, node, power_d1, alpha=alpha,
                              iterations=attack_iterations, seed=seed)
    timings["attack1"] = time.perf_counter() - t
    demo = pre.patients.assign(sex=pre.patients["sex"].fillna("<missing>"))
    classes = demo.groupby(["age_group", "sex"], observed=True).size()
    population = (classes / alpha).round().astype(np.int64)
    out: dict[str, Any] = {
        "patients": int(d2.n_patients),
        "claims_d1": int(d1.n_claims),
        "claims_released": int(d2.n_claims),
        "preprocessing": [r.as_dict() for r in pre.reports],
        "tau": tau,
        "alpha": alpha,
        "k": k,
        "max_sup": ms,
        "p_max": p_max,
        "lola": result.as_dict(),
        "top_node": ev.evaluate(tuple(d2.dimension_heights())).as_dict(),
        "attack_node": list(node),
        "attack1": attack.as_dict(),
        "attack2_marketer_risk": expected_marketer_risk(pd.Series(population)),
        "timings_s": {k2: round(v, 3) for k2, v in timings.items()},
    }
    return out
