"""End-to-end LOLA run on synthetic HHP-like data: generate, preprocess, search, attack.

Used by ``python -m dbt_deid lola-demo`` and the benches. The pseudonym key comes from the
environment variable named by ``key_env``; with ``key_env=None`` a random in-memory key is used
(synthetic data only; it is never printed or stored). Defaults are El Emam et al. 2012's settings:
tau 0.05, alpha = 113,000 / 700,000 (k = 4), MaxSup 0.0004 / tau = 0.8%, p_max 5, truncation per
member and year; attack 2 against the illustrative population of
:func:`dbt_deid.longitudinal.calibration.illustrative_population`.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.longitudinal.adversary import AdversaryModel, reconstructed
from dbt_deid.longitudinal.attack import population_marketer_risk, simulate_attack1
from dbt_deid.longitudinal.bootstrap import (
    DEFAULT_POOL,
    NodeEvaluator,
    k_for_sample,
    max_sup_from_risk_exposure,
    power_matrix,
)
from dbt_deid.longitudinal.calibration import SAMPLING_FRACTION, illustrative_population
from dbt_deid.longitudinal.encoding import DEFAULT_DEMOGRAPHIC_QIS, EncodedData, encode
from dbt_deid.longitudinal.hierarchies import default_hierarchies, generalize
from dbt_deid.longitudinal.preprocess import Preprocessed, preprocess
from dbt_deid.longitudinal.search import lola_search, relax_message
from dbt_deid.progress import Logger, get_logger
from dbt_deid.tools.synthetic.claims import generate_hhp


def attack2(patients: pd.DataFrame, node: tuple[int, ...], spec_levels: dict[str, int]) -> dict:
    """Attack 2 of the released age and sex against the illustrative population."""
    h = default_hierarchies()
    released = pd.DataFrame({
        "age": generalize(patients["age"], h["age"], spec_levels["age"]),
        "sex": patients["sex"],
    })
    res = population_marketer_risk(released, illustrative_population(), ["age", "sex"],
                                   hierarchies=h, levels=spec_levels)
    return res.as_dict()


@dataclass
class Prepared:
    """Generated and preprocessed data, encoded: D1 (every claim) and D2 (released claims) with
    the adversary power computed on each."""

    pre: Preprocessed
    d1: EncodedData
    d2: EncodedData
    power_d1: np.ndarray
    power_d2: np.ndarray
    timings: dict[str, float]


def prepare(n_patients: int, seed: int = 0, *, p_max: int = 5, key_env: str | None = None,
            logger: Logger | None = None, power_function: str = "reconstructed") -> Prepared:
    """Generate ``n_patients`` HHP-like patients, preprocess them as El Emam et al. 2012 (truncation
    per member and year) and encode D1 and D2 with the power p_ih (``p_max``,
    ``power_function``)."""
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
    power_d2 = power_matrix(d2, None, pre.claims, p_max, power_function)
    power_d1 = power_matrix(d1, None, pre.claims_all, p_max, power_function)
    timings["encode_and_power"] = time.perf_counter() - t
    return Prepared(pre, d1, d2, power_d1, power_d2, timings)


def run_demo(
    n_patients: int = 2_000,
    seed: int = 0,
    *,
    n_bootstrap: int = 10_000,
    n_iterations: int = 1_000,
    pool_size: int = DEFAULT_POOL,
    scheme: str = "pooled",
    tau: float = 0.05,
    alpha: float = SAMPLING_FRACTION,
    p_max: int = 5,
    max_sup: float | None = None,
    attack_iterations: int = 10_000,
    key_env: str | None = None,
    logger: Logger | None = None,
    model: AdversaryModel | None = None,
) -> dict[str, Any]:
    """Run the pipeline and return a JSON-able summary (counts, chosen node or the relax
    message, estimated high-risk share and 95% interval, simulated attack 1 rate, attack 2
    marketer risk, timings). ``model``: the adversary's knowledge model (default the
    reconstruction, :func:`dbt_deid.longitudinal.adversary.reconstructed`)."""
    log = logger or get_logger("dbt_deid.longitudinal")
    model = model or reconstructed(DEFAULT_DEMOGRAPHIC_QIS)
    prep = prepare(n_patients, seed, p_max=p_max, key_env=key_env, logger=log,
                   power_function=model.power_function)
    pre, d1, d2, power_d1, power_d2 = prep.pre, prep.d1, prep.d2, prep.power_d1, prep.power_d2
    timings = dict(prep.timings)
    k = k_for_sample(tau, alpha)
    ms = max_sup_from_risk_exposure(tau) if max_sup is None else max_sup
    t = time.perf_counter()
    ev = NodeEvaluator(d2, power_d2, k=k, max_sup=ms, n_bootstrap=n_bootstrap,
                       n_iterations=n_iterations, pool_size=pool_size, scheme=scheme,
                       seed=seed, model=model, logger=log)
    timings["draw_pool"] = time.perf_counter() - t
    result = lola_search(d2, ev, logger=log)
    timings["search"] = result.seconds
    top = tuple(d2.dimension_heights())
    node = result.chosen or top
    message = None
    if result.chosen is None:
        t = time.perf_counter()
        message = relax_message(ev, top, d2.spec.dimension_names, alpha=alpha, p_max=p_max)
        timings["relax_message"] = time.perf_counter() - t
    t = time.perf_counter()
    attack = simulate_attack1(d1, d2, node, power_d1, alpha=alpha,
                              iterations=attack_iterations, seed=seed, model=model)
    timings["attack1"] = time.perf_counter() - t
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
        "adversary": {"known_demographic_qis": list(model.known(d2.spec.demographic_qis)),
                      "power_function": model.power_function, "matching": model.matching},
        "lola": result.as_dict(),
        "top_node": ev.evaluate(top).as_dict(),
        "message": message,
        "attack_node": list(node),
        "attack1": attack.as_dict(),
        "attack2": attack2(pre.patients, node, d2.spec.levels(node)),
        "timings_s": {k2: round(v, 3) for k2, v in timings.items()},
    }
    return out
