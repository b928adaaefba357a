"""How often a patient's claim values repeat, and how rare they are among look-alike patients.

El Emam et al. 2012 (seed 001, "Adversary Knowledge and Power") draws the adversary's knowledge
from a patient's own claim values; whether a patient stands out depends on how many of the
patients the adversary cannot tell apart (the same known demographics) share the drawn values.
The figures here are aggregates that describe that structure at one lattice node, per claim
quasi-identifier, to compare a synthetic data set with a real release (the public HHP release
read by :mod:`dbt_deid.longitudinal.hhp_release`): no value and no patient is ever reported.

Per claim QI (values at the node's level; a missing value is a value of its own):

* ``distinct_mean`` / ``distinct_median`` / ``distinct_p90``: distinct values per patient with
  claims;
* ``claims_per_value``: claims per (patient, distinct value) pair, overall;
* ``claims_unique_in_class`` / ``claims_below_k_in_class``: share of claims whose value no other
  patient of the same known-demographics class has / fewer than ``k`` patients of that class
  have (the patient included);
* ``patients_unique_in_class`` / ``patients_below_k_in_class``: share of patients with claims
  holding at least one such value.

``any_qi``: the share of patients with claims holding a value below k in its class in at least
one claim QI (the near-unique tail).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dbt_deid.errors import ConfigError
from dbt_deid.longitudinal.encoding import EncodedData


def _classes(data: EncodedData, known: Sequence[str], levels: dict[str, int]) -> np.ndarray:
    """One class id per patient: the combination of the known demographics at ``levels``."""
    cls = np.zeros(data.n_patients, dtype=np.int64)
    for q in known:
        if q not in data.demo_codes:
            raise ConfigError(f"known demographic {q!r} is not a demographic QI of the data"
                              f" ({list(data.demo_codes)})")
        lvl = levels[q]
        cls = cls * data.demo_cards[q][lvl] + data.demo_codes[q][lvl]
    return np.unique(cls, return_inverse=True)[1].astype(np.int64)


def repetition_stats(data: EncodedData, node: Sequence[int], *, known: Sequence[str] = ("age",
                     "sex"), k: int = 4) -> dict[str, object]:
    """The module's figures for ``data`` at ``node``, the adversary knowing ``known`` exactly."""
    if k < 2:
        raise ConfigError(f"k must be at least 2, got {k}")
    levels = data.spec.levels(node)
    cls = _classes(data, known, levels)
    pat = data.claim_patient.astype(np.int64)
    has = data.claims_per_patient > 0
    n_with = int(has.sum())
    tail = np.zeros(data.n_patients, dtype=bool)
    out: dict[str, object] = {"patients_with_claims": n_with, "claims": data.n_claims,
                              "known": list(known), "k": k, "node": list(node)}
    for q in data.spec.claim_qis:
        lvl = levels[q]
        codes = data.claim_codes[q][lvl].astype(np.int64)
        card = int(data.claim_cards[q][lvl])
        pairs, inv = np.unique(pat * card + codes, return_inverse=True)
        pp, pv = pairs // card, pairs % card
        distinct = np.bincount(pp, minlength=data.n_patients)[has]
        _, inv_cv, holders = np.unique(cls[pp] * card + pv, return_inverse=True,
                                       return_counts=True)
        n_holders = holders[inv_cv]                 # patients of the class holding the value
        claim_holders = n_holders[inv]
        below = np.zeros(data.n_patients, dtype=bool)
        below[pp[n_holders < k]] = True
        unique = np.zeros(data.n_patients, dtype=bool)
        unique[pp[n_holders == 1]] = True
        tail |= below
        n = max(data.n_claims, 1)
        out[q] = {
            "distinct_mean": round(float(distinct.mean()), 3) if n_with else 0.0,
            "distinct_median": float(np.median(distinct)) if n_with else 0.0,
            "distinct_p90": float(np.percentile(distinct, 90)) if n_with else 0.0,
            "claims_per_value": round(data.n_claims / max(len(pairs), 1), 3),
            "claims_unique_in_class": round(float((claim_holders == 1).sum() / n), 6),
            "claims_below_k_in_class": round(float((claim_holders < k).sum() / n), 6),
            "patients_unique_in_class": round(float(unique.sum() / max(n_with, 1)), 6),
            "patients_below_k_in_class": round(float(below.sum() / max(n_with, 1)), 6),
        }
    out["any_qi_patients_below_k_in_class"] = round(float(tail.sum() / max(n_with, 1)), 6)
    return out
