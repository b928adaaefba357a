"""Preprocessing of the claims data before any risk measurement (El Emam et al. 2012, "Preprocessing
of Claims Data").

Each step is a pure function on DataFrames that returns the new frame(s) and a
:class:`StepReport` of counts (what was removed or changed; never silent). Every step except the
pseudonyms maps to one SQL model; the equivalent SQL is given in each docstring (DuckDB
dialect). Percentiles are *discrete* (``percentile_disc`` in SQL, numpy's ``inverted_cdf``) so
the Python and SQL versions agree exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.longitudinal.pseudonyms import DEFAULT_ID_COLUMNS, DEFAULT_KEY_ENV, pseudonymize
from dbt_deid.longitudinal.report import StepReport
from dbt_deid.progress import Logger, get_logger

#: Illustrative stigmatized diagnosis codes (HIV, asymptomatic HIV, induced abortion); the real
#: list is in El Emam et al. 2012 (HHP claims), Multimedia Appendix 1, which we do not have.
STIGMATIZED_CODES = ("042", "V08", "635")


@dataclass(frozen=True)
class HHPData:
    """Patients and claims of an HHP-like release (El Emam et al. 2012, Tables 2 and 3): the
    input of :func:`preprocess`, and what :func:`dbt_deid.tools.synthetic.claims.generate_hhp`
    generates."""

    patients: pd.DataFrame
    claims: pd.DataFrame


DEFAULT_CLAIM_QIS = (
    "specialty", "place_of_service", "procedure_group", "primary_condition_group", "los", "dsfc",
)
DEFAULT_PATTERN = ("place_of_service", "specialty", "procedure_group", "primary_condition_group")
DEFAULT_SUPPRESSED_IDS = ("provider_id", "vendor_id", "pcp_id")


def _need(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"{what}: column(s) {missing} not found; frame has {list(frame.columns)}")


def _percentile(name: str, percentile: float) -> float:
    if isinstance(percentile, bool) or not isinstance(percentile, (int, float)) or not (
        0 < percentile <= 100
    ):
        raise ConfigError(f"{name} must be a percentile in (0, 100], got {percentile!r}")
    return float(percentile)


def percentile_disc(values: np.ndarray, percentile: float) -> float:
    """SQL ``percentile_disc(percentile/100)``: the smallest value whose cumulative share is
    >= percentile/100."""
    return float(np.percentile(values, percentile, method="inverted_cdf"))


def top_code(
    frame: pd.DataFrame, column: str, percentile: float = 99.0
) -> tuple[pd.DataFrame, StepReport]:
    """Top-code ``column`` at its ``percentile`` (El Emam et al. 2012, "Top-Coding": PayDelay and
    DaysInHospital at the 99th percentile): values above the threshold become the threshold.

    SQL: ``least(col, (select percentile_disc(0.99) within group (order by col) from t))``.
    """
    _need(frame, [column], "top_code")
    percentile = _percentile("top-coding percentile", percentile)
    values = pd.to_numeric(frame[column], errors="raise")
    present = values.dropna().to_numpy()
    if len(present) == 0:
        raise DataError(f"top_code: column {column!r} has no values")
    threshold = percentile_disc(present, percentile)
    above = (values > threshold).fillna(False).to_numpy(dtype=bool)  # missing stays missing
    out = frame.copy()
    out[column] = values.where(~above, threshold).astype(frame[column].dtype)
    n = int(above.sum())
    return out, StepReport(f"top_code:{column}", len(frame), len(frame), {"values_top_coded": n},
                           {"threshold": threshold, "percentile": percentile})


def claim_scores(claims: pd.DataFrame, qis: Sequence[str] = DEFAULT_CLAIM_QIS) -> pd.Series:
    """The identifying score of each claim used to choose which claims to truncate.

    The paper's scoring is in its appendix (not available); we use the claim's *self-information*
    score = sum over claim QIs h of -log2(share of all claims with this claim's value of h),
    so a claim made of rare values (the most identifying) scores highest. Missing values count
    as a value of their own.

    SQL: one ``count(*) over (partition by h)`` per QI, then
    ``sum(-log2(cnt_h / count(*) over ()))``.
    """
    _need(claims, qis, "claim_scores")
    n = len(claims)
    score = np.zeros(n)
    for q in qis:
        codes, _ = pd.factorize(claims[q], use_na_sentinel=False)
        freq = np.bincount(codes)
        score += -np.log2(freq[codes] / n)
    return pd.Series(score, index=claims.index, name="claim_score")


def truncate_claims(
    claims: pd.DataFrame,
    percentile: float = 95.0,
    *,
    qis: Sequence[str] = DEFAULT_CLAIM_QIS,
    member: str = "member_id",
    order_by: str | None = "claim_id",
    partition: Sequence[str] = (),
) -> tuple[pd.DataFrame, StepReport]:
    """Truncate the number of claims per patient at the ``percentile`` of claims per patient
    (El Emam et al. 2012, "Truncation of Claims": 95th), removing each patient's highest-scoring
    claims (:func:`claim_scores`) first; ties go to the later claim (``order_by``).

    ``partition`` (e.g. ``("year",)``) truncates per patient *and* partition value, with a cap
    per partition value (the percentile of the claims per patient in that partition). The HHP
    release truncated per member and year: its DaysInHospital tables flag ClaimsTruncated per
    year, and the paper's 9,556 truncated patients (8.5%) exceed the 5% that one cap on the
    three-year totals could truncate.

    SQL: ``qualify row_number() over (partition by member_id[, year] order by claim_score,
    claim_id) <= cap[year]``, the caps ``percentile_disc(0.95) within group (order by n)`` over
    the per-patient (per partition) counts.
    """
    partition = list(partition)
    _need(claims, [member, *qis, *partition] + ([order_by] if order_by else []),
          "truncate_claims")
    percentile = _percentile("truncation percentile", percentile)
    member_codes, _ = pd.factorize(claims[member])
    if partition:
        part_codes = claims[partition].astype(object).fillna("\x00").groupby(
            partition, sort=True, observed=True).ngroup().to_numpy()
    else:
        part_codes = np.zeros(len(claims), dtype=np.int64)
    n_parts = int(part_codes.max()) + 1 if len(claims) else 0
    group = member_codes.astype(np.int64) * max(n_parts, 1) + part_codes
    g_codes = np.unique(group, return_inverse=True)[1]
    per_group = np.bincount(g_codes)
    group_part = np.zeros(len(per_group), dtype=np.int64)
    group_part[g_codes] = part_codes
    caps = np.array([int(percentile_disc(per_group[group_part == p], percentile))
                     for p in range(n_parts)], dtype=np.int64)
    cap_of = caps[part_codes] if n_parts else np.zeros(0, dtype=np.int64)
    score = claim_scores(claims, qis).to_numpy()
    tie = claims[order_by].to_numpy() if order_by else np.arange(len(claims))
    order = np.lexsort((tie, score, g_codes))
    sorted_groups = g_codes[order]
    starts = np.r_[0, np.flatnonzero(sorted_groups[1:] != sorted_groups[:-1]) + 1]
    rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    keep = np.zeros(len(claims), dtype=bool)
    keep[order] = rank < cap_of[order]
    out = claims.loc[keep]
    over = per_group > caps[group_part]
    group_member = np.zeros(len(per_group), dtype=np.int64)
    group_member[g_codes] = member_codes
    return out, StepReport(
        "truncate_claims", len(claims), len(out),
        {"claims_removed": int((~keep).sum()),
         "patients_truncated": int(len(np.unique(group_member[over]))),
         "groups_truncated": int(over.sum())},
        {"cap": int(caps.max()) if len(caps) else 0,
         "cap_min": int(caps.min()) if len(caps) else 0, "percentile": percentile},
    )


def remove_stigmatized(
    patients: pd.DataFrame,
    claims: pd.DataFrame,
    codes: Sequence[str] = STIGMATIZED_CODES,
    *,
    code_column: str = "diagnosis_code",
    member: str = "member_id",
) -> tuple[pd.DataFrame, pd.DataFrame, StepReport]:
    """Remove every patient with at least one claim coded in ``codes`` (El Emam et al. 2012,
    "Removal of High-Risk Patients and Claims"), with all their claims.

    SQL: ``where member_id not in (select member_id from claims where diagnosis_code in
    (select code from stigmatized_codes))`` on both tables.
    """
    _need(claims, [member, code_column], "remove_stigmatized")
    _need(patients, [member], "remove_stigmatized")
    if isinstance(codes, str):
        raise ConfigError("stigmatized codes must be a list of codes, not one string")
    flagged = claims[code_column].astype("string").isin([str(c) for c in codes]).to_numpy()
    bad = pd.unique(claims.loc[flagged, member])
    p_out = patients.loc[~patients[member].isin(bad)]
    c_out = claims.loc[~claims[member].isin(bad)]
    return p_out, c_out, StepReport(
        "remove_stigmatized", len(patients), len(p_out),
        {"patients_removed": len(patients) - len(p_out),
         "claims_removed": len(claims) - len(c_out),
         "flagged_claims": int(flagged.sum())},
        {"n_codes": len(codes)},
    )


def suppress_rare_provider_patterns(
    claims: pd.DataFrame,
    id_columns: Sequence[str] = DEFAULT_SUPPRESSED_IDS,
    pattern: Sequence[str] = DEFAULT_PATTERN,
    min_providers: int = 20,
) -> tuple[pd.DataFrame, StepReport]:
    """Suppress (set missing) an id where fewer than ``min_providers`` distinct ids share the
    claim's treatment pattern (El Emam et al. 2012, "Suppression of Provider, Vendor, and PCP
    Identifiers": place of service, specialty, procedure and diagnosis; threshold 20), for each id
    column.

    The paper estimated the number of providers with the pattern in the whole HPN system; we
    count them in the data, which can only be smaller (conservative).

    SQL: ``case when count(distinct provider_id) over (partition by place_of_service, specialty,
    procedure_group, primary_condition_group) < 20 then null else provider_id end``.
    """
    _need(claims, [*id_columns, *pattern], "suppress_rare_provider_patterns")
    if isinstance(min_providers, bool) or not isinstance(min_providers, int) or min_providers < 1:
        raise ConfigError(f"min_providers must be a positive integer, got {min_providers!r}")
    keys = claims[list(pattern)].astype(object).fillna("\x00")
    group = keys.groupby(list(pattern), sort=False, observed=True).ngroup().to_numpy()
    out = claims.copy()
    changed: dict[str, int] = {}
    details: dict[str, Any] = {"min_providers": min_providers}
    for col in id_columns:
        ids = out[col]
        distinct = pd.Series(ids.to_numpy()).groupby(group).nunique()
        rare = distinct.to_numpy()[group] < min_providers
        suppress = rare & ids.notna().to_numpy()
        out[col] = ids.where(~suppress)
        changed[f"{col}_suppressed"] = int(suppress.sum())
        details[f"{col}_rare_patterns"] = int((distinct < min_providers).sum())
    return out, StepReport("suppress_rare_provider_patterns", len(claims), len(out), changed,
                           details)


@dataclass
class Preprocessed:
    """The preprocessed tables: ``claims_all`` (D1, every claim) and ``claims`` (D2, truncated,
    the release), with one report per step."""

    patients: pd.DataFrame
    claims_all: pd.DataFrame
    claims: pd.DataFrame
    reports: list[StepReport]


def preprocess(
    data: HHPData,
    *,
    key_env: str = DEFAULT_KEY_ENV,
    stigmatized_codes: Sequence[str] = STIGMATIZED_CODES,
    top_code_percentile: float = 99.0,
    truncate_percentile: float = 95.0,
    truncate_partition: Sequence[str] = ("year",),
    min_providers: int = 20,
    claim_qis: Sequence[str] = DEFAULT_CLAIM_QIS,
    environ: Mapping[str, str] | None = None,
    logger: Logger | None = None,
) -> Preprocessed:
    """All preprocessing steps in order: pseudonyms, removal of stigmatized patients, top-coding
    (pay delay on claims; days in hospital Y2 and Y3 on patients), provider/vendor/PCP
    suppression, then truncation (last, so D1 and D2 differ only by the truncated claims), per
    patient and year by default (``truncate_partition``; see :func:`truncate_claims`).

    ``environ`` replaces ``os.environ`` when looking up ``key_env`` (tests, ephemeral keys)."""
    log = logger or get_logger("dbt_deid.longitudinal")
    reports: list[StepReport] = []
    patients, r = pseudonymize(data.patients, ("member_id", "pcp_id"), key_env=key_env,
                               domains={"pcp_id": "pcp"}, environ=environ)
    reports.append(r)
    claims, r2 = pseudonymize(data.claims, DEFAULT_ID_COLUMNS, key_env=key_env,
                              domains={"pcp_id": "pcp"}, environ=environ)
    reports.append(r2)
    patients, claims, rep = remove_stigmatized(patients, claims, stigmatized_codes)
    reports.append(rep)
    claims, rep = top_code(claims, "pay_delay", top_code_percentile)
    reports.append(rep)
    for col in ("dih_y2", "dih_y3"):
        patients, rep = top_code(patients, col, top_code_percentile)
        reports.append(rep)
    claims, rep = suppress_rare_provider_patterns(claims, min_providers=min_providers)
    reports.append(rep)
    claims_all = claims.reset_index(drop=True)
    claims, rep = truncate_claims(claims_all, truncate_percentile, qis=claim_qis,
                                  partition=truncate_partition)
    reports.append(rep)
    log.info(f"preprocessing: {len(patients)} patients, {len(claims_all)} claims,"
             f" {len(claims)} after truncation")
    return Preprocessed(patients.reset_index(drop=True), claims_all,
                        claims.reset_index(drop=True), reports)
