"""The claims release's settings (var ``deid_claims_release``) with their defaults.

El Emam et al. 2012 (HHP claims): tau, sampling_fraction alpha (k = alpha * ceil(1/tau),
equation 3), MaxSup (max_suppression, given or from the risk exposure), the adversary power
p_max, the bootstrap node evaluation and the simulated attacks. The Jinja macro
``claims_release_config`` validates the same names at parse time; :func:`claims_settings` fills
the defaults the Python models use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from dbt_deid.errors import ConfigError
from dbt_deid.longitudinal.adversary import (
    MATCHINGS,
    POWER_FUNCTIONS,
    AdversaryModel,
    reconstructed,
)
from dbt_deid.longitudinal.bootstrap import DEFAULT_POOL, SCHEMES, max_sup_from_risk_exposure
from dbt_deid.longitudinal.pseudonyms import DEFAULT_KEY_ENV
from dbt_deid.settings_check import check_section
from dbt_deid.settings_schema import SECTIONS

#: Every setting of var ``deid_claims_release``: the ``claims`` section of the one settings
#: definition (:mod:`dbt_deid.settings_schema`), which the Jinja macro ``claims_release_config``
#: reads too.
KNOWN_SETTINGS = frozenset(SECTIONS["claims"])


def _setting_error(name: str, message: str) -> ConfigError:
    return ConfigError(f"dbt_deid claims release setting '{name}': {message}")


def _positive_int(raw: Mapping[str, Any], name: str, default: int, minimum: int = 1) -> int:
    v = raw.get(name)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise _setting_error(name, f"must be an integer >= {minimum}, got {v!r}")
    return int(v)


def claims_settings(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The release settings with the defaults of the Jinja macro ``claims_release_config``
    (which validates every setting first); unknown names and bad values of the evaluation
    settings are rejected here too."""
    check_section("claims", "", raw, "claims", require=False)  # names and types
    member = raw.get("member_id") or "member_id"
    hier = dict(raw.get("hierarchies") or {})
    demo = list(raw.get("demographic_qis") or [])
    claim = list(raw.get("claim_qis") or [])
    dims_raw = raw.get("dimensions")
    if dims_raw:
        dims = [(str(d), tuple(cols)) for d, cols in dims_raw.items()]
    else:
        dims = [(q, (q,)) for q in [*demo, *claim] if q in hier]
    pseudo = dict(raw.get("pseudonymize") or {})
    tau = float(raw.get("tau") if raw.get("tau") is not None else 0.05)
    max_sup = raw.get("max_suppression")
    scheme = raw.get("bootstrap_scheme") or "pooled"
    if scheme not in SCHEMES:
        raise _setting_error("bootstrap_scheme", f"must be one of {list(SCHEMES)}, got {scheme!r}")
    part = raw.get("truncate_partition") or []
    if isinstance(part, str) or any(not isinstance(c, str) or not c for c in part):
        raise _setting_error("truncate_partition", "must be a list of claim column names")
    bad_part = [c for c in part if c in (*claim, member, raw.get("claim_id") or "claim_id")]
    if bad_part:
        raise _setting_error("truncate_partition", f"{bad_part[0]} is the member id, the claim id"
                             " or a claim quasi-identifier")
    a2 = list(raw.get("attack2_qis") or [])
    bad = [q for q in a2 if q not in demo]
    if bad:
        raise _setting_error("attack2_qis", f"{bad[0]} is not a demographic quasi-identifier")
    if (raw.get("attack2_population") is None) != (not a2):
        raise _setting_error("attack2_qis" if raw.get("attack2_population") is not None
                             else "attack2_population",
                             "attack2_population and attack2_qis go together")
    model = _adversary(raw, demo)
    a3 = [list(q) for q in raw.get("attack3_qi_sets") or []]
    bad3 = [q for qs in a3 for q in qs if q not in (*demo, *claim, "number_of_visits")]
    if bad3:
        raise _setting_error("attack3_qi_sets", f"{bad3[0]} is not a demographic or claim"
                             " quasi-identifier (or number_of_visits)")
    if (raw.get("attack3_population") is None) != (not a3):
        raise _setting_error("attack3_qi_sets" if raw.get("attack3_population") is not None
                             else "attack3_population",
                             "attack3_population and attack3_qi_sets go together")
    return {
        "member_id": member,
        "claim_id": raw.get("claim_id") or "claim_id",
        "demographic_qis": demo,
        "claim_qis": claim,
        "hierarchies": hier,
        "dimensions": dims,
        "pseudonymize": {t: list(pseudo.get(t) or [member]) for t in ("patients", "claims")},
        "key_env": raw.get("key_env") or DEFAULT_KEY_ENV,
        "truncate_partition": list(part),
        "tau": tau,
        "sampling_fraction": float(raw.get("sampling_fraction") or 1.0),
        "max_suppression": (float(max_sup) if max_sup is not None
                            else max_sup_from_risk_exposure(tau)),
        "p_max": _positive_int(raw, "p_max", 5),
        "power_scale": float(raw.get("power_scale") or 1.0),
        "bootstrap": _positive_int(raw, "bootstrap", 10_000),
        "iterations": _positive_int(raw, "iterations", 1_000),
        "bootstrap_scheme": scheme,
        "pool_size": _positive_int(raw, "pool_size", DEFAULT_POOL),
        "seed": _positive_int(raw, "seed", 0, minimum=0),
        "variant": raw.get("variant") or "values",
        "attack_iterations": _positive_int(raw, "attack_iterations", 10_000),
        "attack_tau": float(raw["attack_tau"]) if raw.get("attack_tau") is not None else tau,
        "attack2_qis": a2,
        "attack3_qi_sets": a3,
        "attack3_patient_column": raw.get("attack3_patient_column") or "patient_id",
        "attack3_year_column": raw.get("attack3_year_column") or "year",
        "attack3_visit_column": raw.get("attack3_visit_column") or "los",
        "adversary": model,
        "power_function": model.power_function,
    }


def _adversary(raw: Mapping[str, Any], demo: list[str]) -> AdversaryModel:
    """The knowledge model from ``known_demographic_qis``, ``power_function`` and
    ``knowledge_matching`` (default the reconstruction, :mod:`dbt_deid.longitudinal.adversary`)."""
    known = raw.get("known_demographic_qis")
    if known is not None:
        if isinstance(known, str) or not isinstance(known, (list, tuple)) or any(
                not isinstance(q, str) or not q for q in known):
            raise _setting_error("known_demographic_qis", "must be a list of demographic"
                                 f" quasi-identifiers, got {known!r}")
        bad = [q for q in known if q not in demo]
        if bad:
            raise _setting_error("known_demographic_qis", f"{bad[0]} is not a demographic"
                                 " quasi-identifier")
    fn = raw.get("power_function") or "reconstructed"
    if fn not in POWER_FUNCTIONS:
        raise _setting_error("power_function", f"must be one of {list(POWER_FUNCTIONS)}, got"
                             f" {fn!r}")
    matching = raw.get("knowledge_matching") or "multiset"
    if matching not in MATCHINGS:
        raise _setting_error("knowledge_matching", f"must be one of {list(MATCHINGS)}, got"
                             f" {matching!r}")
    if known is None:
        return replace(reconstructed(demo), power_function=fn, matching=matching)
    return AdversaryModel(tuple(known), fn, matching)
