"""A seeded generator of HHP-like longitudinal claims data (seed 001, Tables 2 and 3).

Two tables linked by ``member_id``:

* patients (one row per patient): ``member_id``, ``age`` (years at the first claim), ``age_group``
  (the HHP release's 10-year group), ``sex`` (missing for a few), ``dih_y2`` / ``dih_y3`` (days
  in hospital in years 2 and 3), ``pcp_id``;
* claims (many per patient): ``claim_id``, ``member_id``, ``year`` (1-3), ``provider_id``,
  ``vendor_id``, ``pcp_id``, ``specialty``, ``place_of_service``, ``procedure_group``, ``los``
  (length of stay, 0 outside inpatient stays), ``dsfc`` (days since the patient's first claim
  of that year), ``diagnosis_code``, ``primary_condition_group`` (the 45 HHP groups),
  ``pay_delay``, ``charlson_index``.

The numbers of claims per patient are log-normal with median 11 and mean 23.6 (2,668,990 claims
for 113,000 patients, the paper's figures; "Results"), rounded and adjusted so the total is
exactly ``round(n_patients * 2,668,990 / 113,000)``. Patients have favourite condition groups,
specialties and a PCP, so values repeat within a patient (the diversity that drives the
adversary power of seed 001). A small share of patients carries a stigmatized diagnosis code
(:data:`STIGMATIZED_CODES`, illustrative only) for the removal step. Identifiers are raw
random integers, as direct identifiers to be pseudonymized. All values are synthetic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError

FULL_SCALE_PATIENTS = 113_000
FULL_SCALE_CLAIMS = 2_668_990
DEFAULT_PATIENTS = 2_000

PRIMARY_CONDITION_GROUPS = (
    "AMI", "APPCHOL", "ARTHSPIN", "CANCRA", "CANCRB", "CANCRM", "CATAST", "CHF", "COPD",
    "FLaELEC", "FXDISLC", "GIBLEED", "GIOBSENT", "GYNEC1", "GYNECA", "HEART2", "HEART4", "HEMTOL",
    "HIPFX", "INFEC4", "LIVERDZ", "METAB1", "METAB3", "MISCHRT", "MISCL1", "MISCL5", "MSC2a3",
    "NEUMENT", "ODaBNCA", "PERINTL", "PERVALV", "PNCRDZ", "PNEUM", "PRGNCY", "RENAL1", "RENAL2",
    "RENAL3", "RESPR4", "ROAMI", "SEIZURE", "SEPSIS", "SKNAUT", "STROKE", "TRAUMA", "UTI",
)
SPECIALTIES = (
    "Anesthesiology", "Diagnostic Imaging", "Emergency", "General Practice", "Internal",
    "Laboratory", "Obstetrics and Gynecology", "Other", "Pathology", "Pediatrics",
    "Rehabilitation", "Surgery",
)
PLACES_OF_SERVICE = (
    "Ambulance", "Home", "Independent Lab", "Inpatient Hospital", "Office", "Other",
    "Outpatient Hospital", "Urgent Care",
)
PROCEDURE_GROUPS = (
    "ANES", "EM", "MED", "PL", "RAD", "SAS", "SCS", "SDS", "SEOA", "SGS", "SIS", "SMCD", "SMS",
    "SNS", "SO", "SRS", "SUS",
)
CHARLSON = ("0", "1-2", "3-4", "5+")
CODES_PER_GROUP = 6
N_VISIT_TYPES = 40
#: Illustrative stigmatized diagnosis codes (HIV, asymptomatic HIV, induced abortion); the real
#: list is in seed 001's Multimedia Appendix 1, which we do not have.
STIGMATIZED_CODES = ("042", "V08", "635")
_STIGMA_GROUP = {"042": "INFEC4", "V08": "INFEC4", "635": "PRGNCY"}


@dataclass(frozen=True)
class HHPData:
    """The two generated tables."""

    patients: pd.DataFrame
    claims: pd.DataFrame


def _zipf_weights(n: int, s: float, rng: np.random.Generator) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1) ** s
    return rng.permutation(w / w.sum())


def _pick(weights: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    return np.searchsorted(np.cumsum(weights), rng.random(size) * weights.sum()).clip(
        0, len(weights) - 1
    )


def _pick_rows(cum: np.ndarray, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per element from the categorical distribution in row ``rows`` of ``cum``
    (row-wise cumulative weights ending at 1)."""
    u = rng.random(len(rows))
    return (cum[rows] < u[:, None]).sum(axis=1).clip(0, cum.shape[1] - 1)


def _claim_counts(n: int, total: int, rng: np.random.Generator) -> np.ndarray:
    counts = np.maximum(1, np.rint(rng.lognormal(np.log(11.0), 1.235, n))).astype(np.int64)
    counts = np.minimum(counts, 2_000)
    diff = total - int(counts.sum())
    while diff != 0:
        if diff > 0:
            idx = rng.integers(0, n, diff)
            np.add.at(counts, idx, 1)
        else:
            idx = rng.choice(np.flatnonzero(counts > 1), min(-diff, int((counts > 1).sum())))
            np.subtract.at(counts, idx, 1)
            counts = np.maximum(counts, 1)
        diff = total - int(counts.sum())
    return counts


def _ids(n: int, rng: np.random.Generator, low: int = 10_000_000) -> np.ndarray:
    return low + rng.choice(90_000_000, size=n, replace=False).astype(np.int64)


def generate_hhp(
    n_patients: int = DEFAULT_PATIENTS,
    seed: int = 0,
    *,
    n_claims: int | None = None,
    stigmatized_share: float = 0.004,
) -> HHPData:
    """Generate HHP-like patients and claims; the same ``seed`` gives the same tables.

    ``n_claims`` defaults to the paper's claims-per-patient ratio (2,668,990 / 113,000);
    ``generate_hhp(FULL_SCALE_PATIENTS)`` gives the full-scale 113,000 / 2,668,990 tables.
    """
    if isinstance(n_patients, bool) or not isinstance(n_patients, int) or n_patients < 1:
        raise ConfigError(f"n_patients must be a positive integer, got {n_patients!r}")
    if not 0 <= stigmatized_share < 1:
        raise ConfigError(f"stigmatized_share must be in [0, 1), got {stigmatized_share!r}")
    rng = np.random.default_rng(seed)
    if n_claims is None:
        n_claims = round(n_patients * FULL_SCALE_CLAIMS / FULL_SCALE_PATIENTS)
    if n_claims < n_patients:
        raise ConfigError(f"n_claims ({n_claims}) must be at least n_patients ({n_patients})")
    n = n_patients
    counts = _claim_counts(n, n_claims, rng)
    pid = np.repeat(np.arange(n), counts)
    m = len(pid)

    # --- patients ---------------------------------------------------------------------------
    young = rng.random(n) < 0.25
    age = np.where(young, rng.integers(0, 40, n), np.rint(rng.normal(62, 15, n)).clip(18, 100))
    age = age.astype(np.int64)
    sex = np.where(rng.random(n) < 0.54, "F", "M").astype(object)
    sex[rng.random(n) < 0.03] = None
    n_pcp = max(10, n // 80)
    pcp_of = _ids(n_pcp, rng)[_pick(_zipf_weights(n_pcp, 0.8, rng), n, rng)]

    # --- claims: condition groups and codes ---------------------------------------------------
    g_pcg = _zipf_weights(len(PRIMARY_CONDITION_GROUPS), 2.0, rng)
    fav1, fav2 = _pick(g_pcg, n, rng), _pick(g_pcg, n, rng)
    u = rng.random(m)
    pcg = np.where(u < 0.5, fav1[pid], np.where(u < 0.6, fav2[pid], _pick(g_pcg, m, rng)))
    code_j = np.minimum(rng.geometric(0.45, m) - 1, CODES_PER_GROUP - 1)
    pcg_names = np.array(PRIMARY_CONDITION_GROUPS, dtype=object)
    diag = np.char.add(np.char.add(pcg_names[pcg].astype(str), "-"), code_j.astype(str))
    diag = diag.astype(object)

    # --- specialty, place, procedure ---------------------------------------------------------
    # claims follow a few common visit types (specialty, place, procedure go together)
    g_spec = _zipf_weights(len(SPECIALTIES), 2.0, rng)
    place_w = rng.dirichlet(np.full(len(PLACES_OF_SERVICE), 0.2), len(SPECIALTIES))
    inpatient = PLACES_OF_SERVICE.index("Inpatient Hospital")
    place_w[:, inpatient] = place_w[:, inpatient] * 0.15 + 0.01
    place_w /= place_w.sum(axis=1, keepdims=True)
    proc_w = rng.dirichlet(np.full(len(PROCEDURE_GROUPS), 0.15), len(SPECIALTIES))
    t_spec = _pick(g_spec, N_VISIT_TYPES, rng)
    t_place = _pick_rows(np.cumsum(place_w, axis=1), t_spec, rng)
    t_proc = _pick_rows(np.cumsum(proc_w, axis=1), t_spec, rng)
    vtype = _pick(_zipf_weights(N_VISIT_TYPES, 1.6, rng), m, rng)
    spec, place, proc = t_spec[vtype], t_place[vtype], t_proc[vtype]
    noise = rng.random(m) < 0.05
    spec[noise] = _pick(g_spec, int(noise.sum()), rng)
    place[noise] = _pick_rows(np.cumsum(place_w, axis=1), spec[noise], rng)
    proc[noise] = _pick_rows(np.cumsum(proc_w, axis=1), spec[noise], rng)

    # --- time: year, days since first claim of the year --------------------------------------
    year_w = rng.dirichlet(np.ones(3), n)
    year = 1 + _pick_rows(np.cumsum(year_w, axis=1), pid, rng)
    # visits come in episodes: most of a year's claims fall within days of the first one
    day = np.where(rng.random(m) < 0.7, np.minimum(rng.geometric(0.15, m) - 1, 364),
                   rng.integers(0, 365, m))
    order = np.lexsort((day, year, pid))
    pid, year, day = pid[order], year[order], day[order]
    pcg, diag, spec, place, proc = pcg[order], diag[order], spec[order], place[order], proc[order]
    key = pid * 4 + year
    first = np.r_[True, key[1:] != key[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(m), 0))
    dsfc = day - day[start]

    # --- LOS, pay delay, Charlson ----------------------------------------------------------
    is_in = place == inpatient
    los = np.zeros(m, dtype=np.int64)
    los[is_in] = np.minimum(1 + np.rint(rng.lognormal(np.log(3.0), 1.0, int(is_in.sum()))), 365)
    pay_delay = np.rint(rng.lognormal(np.log(30.0), 0.7, m)).clip(0, 1_000).astype(np.int64)
    base_ch = _pick(np.array([0.6, 0.28, 0.09, 0.03]), n, rng)
    charlson = np.where(rng.random(m) < 0.7, base_ch[pid], _pick(np.array([0.6, 0.28, 0.09, 0.03]),
                                                                 m, rng))

    # --- providers, vendors, PCP -------------------------------------------------------------
    n_prov = max(30, n // 8)
    prov_ids = _ids(n_prov, rng)
    prov_spec = _pick(g_spec, n_prov, rng)
    provider = np.empty(m, dtype=np.int64)
    for s in range(len(SPECIALTIES)):
        pool = prov_ids[prov_spec == s]
        if len(pool) == 0:
            pool = prov_ids
        rows = np.flatnonzero(spec == s)
        provider[rows] = pool[(len(pool) * rng.random(len(rows)) ** 3).astype(np.int64)]
    n_vendor = max(20, n // 20)
    vendor = _ids(n_vendor, rng)[(n_vendor * rng.random(m) ** 2).astype(np.int64)]
    pcp = np.where(rng.random(m) < 0.95, pcp_of[pid], pcp_of[rng.integers(0, n, m)])

    # --- stigmatized codes ---------------------------------------------------------------------
    if stigmatized_share > 0:
        offsets = np.r_[0, np.cumsum(counts)]
        who = np.flatnonzero(rng.random(n) < stigmatized_share)
        rows = offsets[who] + (rng.random(len(who)) * counts[who]).astype(np.int64)
        codes = np.array(STIGMATIZED_CODES, dtype=object)[rng.integers(0, len(STIGMATIZED_CODES),
                                                                       len(rows))]
        diag[rows] = codes
        pcg[rows] = [PRIMARY_CONDITION_GROUPS.index(_STIGMA_GROUP[c]) for c in codes]

    # --- days in hospital (years 2 and 3) from the inpatient stays ---------------------------
    dih = {}
    for y in (2, 3):
        sel = year == y
        days = np.bincount(pid[sel], weights=los[sel], minlength=n)
        extra = np.where(rng.random(n) < 0.05, rng.geometric(0.3, n), 0)
        dih[y] = np.minimum(days + extra, 365).astype(np.int64)

    member_ids = _ids(n, rng)
    ten = np.minimum(age // 10 * 10, 80)
    age_group = np.where(ten >= 80, "80+", [f"{a}-{a + 9}" for a in ten])
    patients = pd.DataFrame({
        "member_id": member_ids,
        "age": age,
        "age_group": age_group,
        "sex": pd.array(sex, dtype="string"),
        "dih_y2": dih[2],
        "dih_y3": dih[3],
        "pcp_id": pcp_of,
    })

    def cat(idx: np.ndarray, labels: tuple[str, ...]) -> pd.Categorical:
        return pd.Categorical.from_codes(idx, categories=list(labels))

    claims = pd.DataFrame({
        "claim_id": np.arange(1, m + 1, dtype=np.int64),
        "member_id": member_ids[pid],
        "year": year.astype(np.int64),
        "provider_id": provider,
        "vendor_id": vendor,
        "pcp_id": pcp,
        "specialty": cat(spec, SPECIALTIES),
        "place_of_service": cat(place, PLACES_OF_SERVICE),
        "procedure_group": cat(proc, PROCEDURE_GROUPS),
        "los": los,
        "dsfc": dsfc.astype(np.int64),
        "diagnosis_code": pd.Categorical(diag),
        "primary_condition_group": cat(pcg, PRIMARY_CONDITION_GROUPS),
        "pay_delay": pay_delay,
        "charlson_index": cat(charlson, CHARLSON),
    })
    return HHPData(patients=patients, claims=claims)


def diagnosis_hierarchy() -> pd.DataFrame:
    """Diagnosis code -> primary condition group (level_0 -> level_1), for the generator's
    synthetic codes and the stigmatized ones."""
    rows = [(f"{g}-{j}", g) for g in PRIMARY_CONDITION_GROUPS for j in range(CODES_PER_GROUP)]
    rows += [(c, g) for c, g in _STIGMA_GROUP.items()]
    return pd.DataFrame(rows, columns=["level_0", "level_1"])
