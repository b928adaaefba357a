"""A seeded generator of HHP-like longitudinal claims (El Emam et al. 2012, Tables 2 and 3),
calibrated to the paper's and the public HHP release's figures
(:mod:`dbt_deid.longitudinal.calibration`, each figure with its source).

Two tables linked by ``member_id``:

* patients (one row per patient): ``member_id``, ``age`` (years at the first claim; missing for
  a few), ``age_group`` (the HHP dictionary's 10-year band, 80+), ``sex`` (F, M or missing),
  ``dih_y2`` / ``dih_y3`` (days in hospital in years 2 and 3, capped at 15 as the HHP dictionary;
  missing unless the member has claims in the year before, as the DaysInHospital tables),
  ``pcp_id``;
* claims (many per patient): ``claim_id``, ``member_id``, ``year`` (1-3), ``provider_id``,
  ``vendor_id``, ``pcp_id``, ``specialty``, ``place_of_service``, ``procedure_group``, ``los``
  (length of stay in days, on inpatient claims only, missing elsewhere), ``dsfc`` (days since
  the member's first claim of that year), ``diagnosis_code``, ``primary_condition_group``,
  ``pay_delay``, ``charlson_index``.

The claims are the *original* data, before El Emam et al. 2012's preprocessing: truncation at the
95th percentile of claims per member and year
(:func:`dbt_deid.longitudinal.preprocess.truncate_claims` with ``partition=("year",)``) brings
113,000 patients to the paper's released 2.67 million claims. Category frequencies are fixed
constants (the public release's), never drawn per seed; patients repeat their usual visit types,
condition groups and Charlson class, and claims come in episodes, so a patient's values are less
diverse than independent draws (the diversity that drives the adversary power of El Emam et al.
2012). Not generated: the 2% of claims without DSFS in the public file (days since first claim is
never missing here). A small share of patients carries a stigmatized diagnosis code
(:data:`STIGMATIZED_CODES`, illustrative only) for the removal step. Identifiers are raw random
integers, direct identifiers to be pseudonymized. All values are synthetic.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError
from dbt_deid.longitudinal import calibration as cal
from dbt_deid.longitudinal.preprocess import STIGMATIZED_CODES, HHPData

FULL_SCALE_PATIENTS = cal.PAPER_PATIENTS
FULL_SCALE_CLAIMS = cal.PAPER_CLAIMS
DEFAULT_PATIENTS = 2_000
PRIMARY_CONDITION_GROUPS = cal.PRIMARY_CONDITION_GROUPS
SPECIALTIES = cal.SPECIALTIES
PLACES_OF_SERVICE = cal.PLACES
PROCEDURE_GROUPS = cal.PROCEDURE_GROUPS
CHARLSON = cal.CHARLSON
CODES_PER_GROUP = 6
_STIGMA_GROUP = {"042": "INFEC4", "V08": "INFEC4", "635": "PRGNCY"}
_INPATIENT = cal.PLACES.index("Inpatient Hospital")


def _draw(p: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of indices from the probabilities ``p``."""
    cum = np.cumsum(p)
    return np.minimum(np.searchsorted(cum, rng.random(size) * cum[-1], side="right"), len(p) - 1)


def _draw_rows(cum: np.ndarray, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per element from row ``rows`` of ``cum`` (row-wise cumulative probabilities)."""
    u = rng.random(len(rows)) * cum[rows, -1]
    return (cum[rows] <= u[:, None]).sum(axis=1).clip(0, cum.shape[1] - 1)


def _ids(n: int, rng: np.random.Generator, low: int = 10_000_000) -> np.ndarray:
    return low + rng.choice(90_000_000, size=n, replace=False).astype(np.int64)


def _popular(n: int, rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` draws from 0..n-1 where low numbers are popular (a few providers, vendors and
    PCPs see most patients)."""
    return np.minimum((n * rng.random(size) ** 2).astype(np.int64), n - 1)


def _heavy_probability(band: np.ndarray, years: np.ndarray) -> np.ndarray:
    """P(heavy user) by age band and number of years with claims; its expectation over the
    fixed age and year-pattern shares is HEAVY_SHARE (a constant, not fitted per sample)."""
    w_age = np.asarray(cal.AGE_HEAVY_WEIGHT)
    pats = np.array(list(cal.YEAR_PATTERNS))
    k = np.array([bin(int(p)).count("1") for p in pats])
    w_years = np.asarray(list(cal.YEAR_PATTERNS.values())) @ (cal.HEAVY_YEARS_RATIO ** (k - 2.0))
    mean = float(np.asarray(cal.AGE_BAND_SHARES) @ w_age) * float(w_years)
    raw = w_age[band] * cal.HEAVY_YEARS_RATIO ** (years - 2.0)
    return np.minimum(cal.HEAVY_SHARE * raw / mean, 1.0)


def _members(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    band = _draw(np.asarray(cal.AGE_BAND_SHARES), n, rng)
    lo = np.array([b[0] if b else 0 for b in cal.AGE_BANDS])
    hi = np.array([b[1] if b else 0 for b in cal.AGE_BANDS])
    age = lo[band] + np.floor(rng.random(n) * (hi[band] - lo[band] + 1)).astype(np.int64)
    sexes, p_sex = list(cal.SEX_SHARES), np.asarray(list(cal.SEX_SHARES.values()))
    sex = _draw(p_sex, n, rng)
    pats = np.array(list(cal.YEAR_PATTERNS))
    pat = pats[_draw(np.asarray(list(cal.YEAR_PATTERNS.values())), n, rng)]
    active = np.stack([(pat >> y) & 1 for y in range(3)], axis=1).astype(bool)
    heavy = rng.random(n) < _heavy_probability(band, active.sum(axis=1))
    return {"band": band, "age": age, "sex": sex, "sex_labels": np.array(sexes, dtype=object),
            "active": active, "heavy": heavy}


def _claims_per_year(m: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """(n, 3) claims per member and year before truncation (0 in years without claims)."""
    n = len(m["heavy"])
    heavy = m["heavy"]
    g = np.where(heavy, rng.gamma(cal.HEAVY_SHAPE, 1 / cal.HEAVY_SHAPE, n),
                 rng.gamma(cal.LIGHT_SHAPE, 1 / cal.LIGHT_SHAPE, n))
    counts = np.zeros((n, 3), dtype=np.int64)
    for y in range(3):
        year = np.where(heavy, rng.gamma(cal.HEAVY_YEAR_SHAPE, 1 / cal.HEAVY_YEAR_SHAPE, n),
                        rng.gamma(cal.LIGHT_YEAR_SHAPE, 1 / cal.LIGHT_YEAR_SHAPE, n))
        mean = np.where(heavy, cal.HEAVY_MEAN, cal.LIGHT_MEAN) * cal.YEAR_FACTOR[y] * g * year
        counts[:, y] = np.where(m["active"][:, y], 1 + rng.poisson(mean), 0)
    return counts


def _hospital(m: dict[str, np.ndarray], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(n, 3) days in hospital (0 without a stay; capped at 15) and inpatient claims."""
    n = len(m["heavy"])
    rate = np.where(m["heavy"], cal.HOSPITAL_RATE["heavy"], cal.HOSPITAL_RATE["light"])
    days_values = np.array(list(cal.HOSPITAL_DAYS_SHARES))
    days_p = np.asarray(list(cal.HOSPITAL_DAYS_SHARES.values()))
    days = np.zeros((n, 3), dtype=np.int64)
    inpatient = np.zeros((n, 3), dtype=np.int64)
    for y in range(3):
        stay = m["active"][:, y] & (rng.random(n) < rate)
        k = int(stay.sum())
        days[stay, y] = np.minimum(days_values[_draw(days_p, k, rng)], cal.DIH_CAP)
        inpatient[stay, y] = 1 + rng.poisson(cal.INPATIENT_EXTRA, k)
    return days, inpatient


def _visit_tables() -> tuple[np.ndarray, np.ndarray, tuple[int, int, int]]:
    """Cumulative outpatient and inpatient (place, specialty, procedure) shares, flattened."""
    joint = cal.visit_joint()
    out = joint.copy()
    out[_INPATIENT] = 0.0
    inp = np.zeros_like(joint)
    inp[_INPATIENT] = joint[_INPATIENT]
    return out.ravel() / out.sum(), inp.ravel() / inp.sum(), joint.shape


def _condition_tables() -> np.ndarray:
    """(3, G) condition-group shares by sex (F, M, missing): the female-only groups are never
    drawn for men and drawn more often for the others, so the overall shares are kept."""
    _, p = cal.shares(cal.present(cal.PRIMARY_CONDITION_GROUP_COUNTS))
    female = np.isin(np.array(cal.PRIMARY_CONDITION_GROUPS), cal.FEMALE_ONLY_GROUPS)
    p_m = np.where(female, 0.0, p)
    p_m /= p_m.sum()
    share_m = cal.SEX_SHARES["M"]
    p_other = (p - share_m * p_m) / (1 - share_m)
    sexes = list(cal.SEX_SHARES)
    return np.stack([p_m if s == "M" else p_other for s in sexes])


def _day_of_episodes(
    window: np.ndarray, n_episodes: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Start day (since the first claim) of every episode; episode 0 of a member-year is day 0,
    the others fall in 30-day months weighted by EPISODE_MONTH_WEIGHTS within the year."""
    total = int(n_episodes.sum())
    owner = np.repeat(np.arange(len(window)), n_episodes)
    first = np.cumsum(n_episodes) - n_episodes
    local = np.arange(total) - first[owner]
    w = np.asarray(cal.EPISODE_MONTH_WEIGHTS, dtype=np.float64)
    cum = np.cumsum(w)
    last_month = np.minimum((window[owner] - 1) // 30, len(w) - 1)
    month = np.searchsorted(cum, rng.random(total) * cum[last_month], side="right")
    day = month * 30 + np.floor(rng.random(total) * 30).astype(np.int64)
    day = np.minimum(day, window[owner] - 1)
    return np.where(local == 0, 0, day)


def generate_hhp(
    n_patients: int = DEFAULT_PATIENTS,
    seed: int = 0,
    *,
    stigmatized_share: float = 0.004,
) -> HHPData:
    """Generate HHP-like patients and claims; the same ``seed`` gives the same tables.

    ``generate_hhp(FULL_SCALE_PATIENTS)`` gives about 2.81 million claims, 2.66 million after
    El Emam et al. 2012's truncation (see the module docstring)."""
    if isinstance(n_patients, bool) or not isinstance(n_patients, int) or n_patients < 1:
        raise ConfigError(f"n_patients must be a positive integer, got {n_patients!r}")
    if not 0 <= stigmatized_share < 1:
        raise ConfigError(f"stigmatized_share must be in [0, 1), got {stigmatized_share!r}")
    rng = np.random.default_rng(seed)
    n = n_patients
    mem = _members(n, rng)
    regular = _claims_per_year(mem, rng)
    days, inpatient = _hospital(mem, rng)

    # --- member-years and their claims ---------------------------------------------------------
    my_pid, my_year = np.nonzero(mem["active"])               # member-years, by member then year
    n_reg = regular[my_pid, my_year]
    n_inp = inpatient[my_pid, my_year]
    n_my = n_reg + n_inp
    my_of = np.repeat(np.arange(len(my_pid)), n_my)
    m = len(my_of)
    pid = my_pid[my_of]
    year = my_year[my_of] + 1
    rank = np.arange(m) - (np.cumsum(n_my) - n_my)[my_of]
    is_inp = rank >= n_reg[my_of]                             # inpatient claims come last

    # --- place, specialty, procedure: usual visit types of the member, else the population ----
    out_p, inp_p, shape = _visit_tables()
    usual = _draw(out_p, 2 * n, rng).reshape(n, 2)
    vt = _draw(out_p, m, rng)
    use_usual = (~is_inp) & (rng.random(m) < cal.USUAL_VISIT_SHARE)
    which = (rng.random(m) < 0.5).astype(np.int64)
    vt = np.where(use_usual, usual[pid, which], vt)
    vt[is_inp] = _draw(inp_p, int(is_inp.sum()), rng)
    place, spec, proc = np.unravel_index(vt, shape)

    # --- condition group and Charlson class: the member's own, else the population ------------
    sex = mem["sex"]
    cum_pcg = np.cumsum(_condition_tables(), axis=1)
    n_own = 1 + _draw(np.array([0.4, 0.35, 0.25]), n, rng)
    own = _draw_rows(cum_pcg, np.repeat(sex, 3), rng).reshape(n, 3)
    pick = np.floor(rng.random(m) * n_own[pid]).astype(np.int64)
    pcg = np.where(rng.random(m) < cal.OWN_CONDITION_SHARE, own[pid, pick],
                   _draw_rows(cum_pcg, sex[pid], rng))
    _, p_ch = cal.shares(cal.CHARLSON_COUNTS)
    base_ch = _draw(p_ch, n, rng)
    charlson = np.where(rng.random(m) < cal.OWN_CHARLSON_SHARE, base_ch[pid], _draw(p_ch, m, rng))

    # --- length of stay on inpatient claims ----------------------------------------------------
    bands = list(cal.LOS_BAND_COUNTS)
    _, p_los = cal.shares(cal.LOS_BAND_COUNTS)
    b = _draw(p_los, int(is_inp.sum()), rng)
    lo = np.array([x[0] for x in bands])[b]
    hi = np.array([x[1] for x in bands])[b]
    los = np.full(m, -1, dtype=np.int64)
    los[is_inp] = lo + np.floor(rng.random(len(b)) * (hi - lo + 1)).astype(np.int64)

    # --- days since the first claim of the year: episodes ------------------------------------
    first_day = cal.FIRST_CLAIM_WINDOW * rng.random(len(my_pid)) ** cal.FIRST_CLAIM_POWER
    window = 365 - np.floor(first_day).astype(np.int64)
    n_ep = 1 + rng.binomial(np.maximum(n_reg - 1, 0), cal.EPISODE_RATE) + (n_inp > 0)
    ep_day = _day_of_episodes(window, n_ep, rng)
    ep_first = np.cumsum(n_ep) - n_ep
    n_reg_ep = n_ep - (n_inp > 0)
    local = np.where(rank == 0, 0,
                     np.floor(rng.random(m) * n_reg_ep[my_of]).astype(np.int64))
    local = np.where(is_inp, n_ep[my_of] - 1, local)          # the stay is the last episode
    offset = np.where(rng.random(m) < cal.SAME_DAY_SHARE, 0, rng.integers(1, 15, m))
    offset = np.where(is_inp, rng.integers(0, 3, m), offset)
    offset[rank == 0] = 0
    dsfc = np.minimum(ep_day[ep_first[my_of] + local] + offset, window[my_of] - 1)
    pay_delay = np.rint(rng.lognormal(np.log(cal.PAY_DELAY_MEDIAN), cal.PAY_DELAY_SIGMA, m))

    # --- providers, vendors, PCP (HHP counts: distinct ids at 113,000 patients) --------------
    scale = n / cal.PAPER_PATIENTS
    n_prov = max(40, round(cal.HHP_DISTINCT_IDS["provider_id"] * scale))
    n_vendor = max(20, round(cal.HHP_DISTINCT_IDS["vendor_id"] * scale))
    n_pcp = max(10, round(cal.HHP_DISTINCT_IDS["pcp_id"] * scale))
    prov_ids, vendor_ids, pcp_ids = _ids(n_prov, rng), _ids(n_vendor, rng), _ids(n_pcp, rng)
    _, p_spec = cal.shares(cal.present(cal.SPECIALTY_COUNTS))
    pool_of = np.minimum((np.cumsum(p_spec) - p_spec) * n_prov, n_prov - 1).astype(np.int64)
    pool_len = np.maximum(np.round(p_spec * n_prov).astype(np.int64), 1)
    pool_len = np.minimum(pool_len, n_prov - pool_of)
    usual_spec = np.unravel_index(usual, shape)[1]
    usual_prov = pool_of[usual_spec] + np.minimum(
        (pool_len[usual_spec] * rng.random((n, 2)) ** 2).astype(np.int64), pool_len[usual_spec] - 1)
    any_prov = pool_of[spec] + np.minimum(
        (pool_len[spec] * rng.random(m) ** 2).astype(np.int64), pool_len[spec] - 1)
    provider = np.where(use_usual, usual_prov[pid, which], any_prov)
    # other outpatient visits of a specialty mostly go back to the member's own doctor of that
    # specialty (fitted to HHP providers: distinct providers per member); drawn from a stream of
    # their own, so that every other value is what it was without this step
    own_rng = np.random.default_rng([seed, 1])
    own_prov = pool_of[None, :] + np.minimum(
        (pool_len[None, :] * own_rng.random((n, len(p_spec))) ** 2).astype(np.int64),
        pool_len[None, :] - 1)
    back = ~use_usual & ~is_inp & (own_rng.random(m) < cal.OWN_DOCTOR_SHARE)
    provider = np.where(back, own_prov[pid, spec], provider)
    vendor_of = _popular(n_vendor, rng, n_prov)
    pcp_of = _popular(n_pcp, rng, n)
    pcp = np.where(rng.random(m) < 0.95, pcp_of[pid], pcp_of[rng.integers(0, n, m)])

    # --- diagnosis codes, stigmatized codes ----------------------------------------------------
    names = np.array(cal.PRIMARY_CONDITION_GROUPS, dtype=object)
    code_j = np.minimum(rng.geometric(0.45, m) - 1, CODES_PER_GROUP - 1)
    diag = (names[pcg].astype(str) + "-" + code_j.astype(str)).astype(object)
    pcg_name = names[pcg].copy()
    if stigmatized_share > 0:
        offsets = np.r_[0, np.cumsum(np.bincount(pid, minlength=n))]
        counts = np.diff(offsets)
        who = np.flatnonzero((rng.random(n) < stigmatized_share) & (counts > 0))
        rows = offsets[who] + (rng.random(len(who)) * counts[who]).astype(np.int64)
        codes = np.array(STIGMATIZED_CODES, dtype=object)[
            rng.integers(0, len(STIGMATIZED_CODES), len(rows))]
        male = mem["sex_labels"][sex[who]] == "M"
        female_code = np.array([cal.PRIMARY_CONDITION_GROUPS.index(_STIGMA_GROUP[c])
                                for c in codes]) if len(codes) else np.zeros(0, np.int64)
        swap = male & np.isin(np.array(cal.PRIMARY_CONDITION_GROUPS)[female_code],
                              cal.FEMALE_ONLY_GROUPS)
        codes[swap] = STIGMATIZED_CODES[0]
        diag[rows] = codes
        pcg_name[rows] = [_STIGMA_GROUP[c] for c in codes]

    # --- missing values (HHP counts: blank place, specialty, procedure, condition group) ------
    def with_missing(values: np.ndarray, counts: dict) -> np.ndarray:
        out = values.astype(object)
        out[rng.random(len(out)) < cal.missing_share(counts)] = None
        return out

    place_v = with_missing(np.array(cal.PLACES, dtype=object)[place], cal.PLACE_OF_SERVICE_COUNTS)
    spec_v = with_missing(np.array(cal.SPECIALTIES, dtype=object)[spec], cal.SPECIALTY_COUNTS)
    proc_v = with_missing(np.array(cal.PROCEDURE_GROUPS, dtype=object)[proc],
                          cal.PROCEDURE_GROUP_COUNTS)
    gone = rng.random(m) < cal.missing_share(cal.PRIMARY_CONDITION_GROUP_COUNTS)
    pcg_name[gone] = None
    diag[gone] = None

    # --- tables ---------------------------------------------------------------------------------
    order = np.lexsort((rng.random(m), dsfc, year, pid))
    member_ids = _ids(n, rng)
    age = pd.array(mem["age"], dtype="Int64")
    no_age = np.array([b is None for b in cal.AGE_BANDS])[mem["band"]]
    age[no_age] = pd.NA
    ten = np.minimum(mem["age"] // 10 * 10, 80)
    age_group = np.where(ten >= 80, "80+", [f"{a}-{a + 9}" for a in ten]).astype(object)
    age_group[no_age] = None
    dih = {}
    for y in (2, 3):
        v = pd.array(days[:, y - 1], dtype="Int64")
        v[~mem["active"][:, y - 2]] = pd.NA          # reported for members with claims in y - 1
        dih[y] = v
    patients = pd.DataFrame({
        "member_id": member_ids,
        "age": age,
        "age_group": pd.array(age_group, dtype="string"),
        "sex": pd.array(mem["sex_labels"][sex], dtype="string"),
        "dih_y2": dih[2],
        "dih_y3": dih[3],
        "pcp_id": pcp_ids[pcp_of],
    })

    def cat(values: np.ndarray, labels: tuple[str, ...]) -> pd.Categorical:
        return pd.Categorical(values[order], categories=list(labels))

    los_col = pd.array(los[order], dtype="Int64")
    los_col[los[order] < 0] = pd.NA
    claims = pd.DataFrame({
        "claim_id": np.arange(1, m + 1, dtype=np.int64),
        "member_id": member_ids[pid[order]],
        "year": year[order].astype(np.int64),
        "provider_id": prov_ids[provider[order]],
        "vendor_id": vendor_ids[vendor_of[provider[order]]],
        "pcp_id": pcp_ids[pcp[order]],
        "specialty": cat(spec_v, cal.SPECIALTIES),
        "place_of_service": cat(place_v, cal.PLACES),
        "procedure_group": cat(proc_v, cal.PROCEDURE_GROUPS),
        "los": los_col,
        "dsfc": dsfc[order].astype(np.int64),
        "diagnosis_code": pd.Categorical(diag[order]),
        "primary_condition_group": cat(pcg_name, cal.PRIMARY_CONDITION_GROUPS),
        "pay_delay": pay_delay[order].astype(np.int64),
        "charlson_index": cat(np.array(cal.CHARLSON, dtype=object)[charlson], cal.CHARLSON),
    })
    return HHPData(patients=patients, claims=claims)


def diagnosis_hierarchy() -> pd.DataFrame:
    """Diagnosis code -> primary condition group (level_0 -> level_1), for the generator's
    synthetic codes and the stigmatized ones."""
    rows = [(f"{g}-{j}", g) for g in PRIMARY_CONDITION_GROUPS for j in range(CODES_PER_GROUP)]
    rows += [(c, g) for c, g in _STIGMA_GROUP.items()]
    return pd.DataFrame(rows, columns=["level_0", "level_1"])


#: The columns of :func:`generate_sid_visits`.
SID_COLUMNS = ("patient_id", "year", "age", "sex", "los", "primary_condition_group",
               "procedure_group")


def generate_sid_visits(n_patients: int, seed: int = 0, *, others: int = 0) -> pd.DataFrame:
    """A seeded State-Inpatient-Database-like table for attack 3 (El Emam et al. 2012, "Attack
    3": the SID covers every discharge of the state, "the HHP would be a sample from the SID",
    with all of a patient's visits): one row per inpatient visit (a claim with a length of stay)
    of the ``n_patients`` patients of ``generate_hhp(n_patients, seed)`` (the release's source,
    so its patients are in the population with all their visits) and of ``others`` further
    patients (``generate_hhp(others, seed + 1)``: people outside the release). Columns
    :data:`SID_COLUMNS`: ``patient_id`` (the SID's own patient key: a fresh seeded id, never the
    member id), the visit's ``year``, the patient's ``age`` and ``sex``, the visit's ``los``,
    ``primary_condition_group`` and ``procedure_group``, coded as the release's input (original
    values). The real SID is purchased data; this one is synthetic."""
    if isinstance(others, bool) or not isinstance(others, int) or others < 0:
        raise ConfigError(f"others must be an integer >= 0, got {others!r}")
    parts = [generate_hhp(n_patients, seed)]
    if others:
        parts.append(generate_hhp(others, seed + 1))
    rng = np.random.default_rng([seed, 34])
    frames = []
    for data in parts:
        visits = data.claims.loc[data.claims["los"].notna()]
        visits = visits.merge(data.patients[["member_id", "age", "sex"]], on="member_id",
                              how="left", validate="many_to_one")
        frames.append(visits)
    out = pd.concat(frames, ignore_index=True)
    keys = out["member_id"].astype(str) + "/" + np.repeat(
        np.arange(len(frames)), [len(f) for f in frames]).astype(str)
    codes, uniques = pd.factorize(keys, sort=True)
    fresh = _ids(len(uniques), rng)
    out["patient_id"] = fresh[codes]
    for c in ("primary_condition_group", "procedure_group", "sex"):
        out[c] = out[c].astype("string")
    out = out.sort_values(["patient_id", "year", "claim_id"], kind="stable")
    return out[list(SID_COLUMNS)].reset_index(drop=True)
