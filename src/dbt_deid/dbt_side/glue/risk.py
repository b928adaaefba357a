"""Frames for the thin dbt Python models of the risk-measurement suite (issue 6).

Each function takes the engine relations the Python model read (converted with
:func:`dbt_deid.dbt_side.glue.frames.to_pandas`) and the release (var ``deid_release`` as a dict),
calls the
core and returns a frame with stable column types. Nothing here imports dbt. Logging is counts
only (no quasi-identifier values).

* :func:`population_risk_frame`: journalist risk 1/F_j and marketer risk sum_j f_j/F_j
  (El Emam et al. 2011 equations 2-3) per combination.
* :func:`uniqueness_frame`: sample uniqueness and the Zayatz / Pitman population-uniqueness
  estimates with the Dankar et al. (2012) selection rule, per combination.
* :func:`small_areas_frame`: El Emam et al. 2010's logistic models (equations 1-4) per area and
level.
* :func:`release_preset`: the release context (threshold preset) the release names, which the
  report states (no table of its own: the report and the release plan's settings rows record it).
* :func:`release_assessments`: one :class:`~dbt_deid.risk.RiskAssessment` per protected
  combination, for the HTML report.

:func:`deid_population_risk`, :func:`deid_uniqueness` and :func:`deid_small_areas` are the
bodies of the dbt Python models of those names: they take the model's refs (any engine
relation) and its config ``deid_release_json``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.arrow_frames import standard_dtypes
from dbt_deid.config import ReleaseConfig, parse_release
from dbt_deid.dbt_side.dbt_logger import dbt_logger
from dbt_deid.dbt_side.glue.frames import string_columns, to_pandas
from dbt_deid.errors import ConfigError, DataError
from dbt_deid.progress import Logger, get_logger
from dbt_deid.risk.assessment import RiskAssessment, assess_release
from dbt_deid.risk.geography import AreaAssessment, assess_areas
from dbt_deid.risk.population import population_risk
from dbt_deid.risk.thresholds import ThresholdPreset, threshold_preset
from dbt_deid.risk.uniqueness import estimate_uniqueness

SMALL_AREA_COLUMNS = [
    "area_level", "area", "population", "records", "maxcombs", "m_scaled", "s_scaled", "p_05",
    "p_20", "flag_05", "flag_20", "threshold", "flagged", "in_fitted_range",
]


def released_frames(
    suppressed: pd.DataFrame, cfg: ReleaseConfig
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(published, true values) from ``deid_suppressed``: the released ``<qi>`` columns (None =
    suppressed) and the true values at the released level ``<qi>__generalized`` renamed to
    ``<qi>``, one row per record, or one row per pattern with its count ``n`` when the input is
    ``deid_suppressed_patterns`` (the same GROUP BY done in the warehouse)."""
    frame = string_columns(suppressed)
    qi = cfg.qi_names
    # Column dtypes are kept (no per-cell object conversion: seconds on a million patterns);
    # nulls are whatever null the dtype has, and every check treats them as suppressed.
    # No .copy(): pandas copies on write, so these share the columns with ``frame`` (which may
    # be zero-copy Arrow columns, to_pandas_for_codes) without ever changing it.
    published = frame[qi]
    truth = frame[[f"{q}__generalized" for q in qi]]
    truth.columns = qi
    if "n" in frame.columns:
        published["n"] = pd.to_numeric(frame["n"]).astype("int64").to_numpy()
    return published, truth


def _counts(published: pd.DataFrame) -> str | None:
    """The count column of a pattern-table input (``n``), None for record-level rows."""
    return "n" if "n" in published.columns else None


def _population_args(
    release: Mapping[str, Any], population: pd.DataFrame | None
) -> dict[str, Any]:
    args: dict[str, Any] = {
        "sampling_fraction": release.get("sampling_fraction"),
        "population_size": release.get("population_size"),
        "population": None,
        "estimator": release.get("population_estimator") or "scaling",
    }
    if population is not None and len(population) > 0:
        args["population"] = string_columns(population)
        args["sampling_fraction"] = args["population_size"] = None
    return args


def _population_size(pop: pd.DataFrame) -> float:
    return float(pd.to_numeric(pop["n"]).sum())


def population_risk_frame(
    suppressed: pd.DataFrame, population: pd.DataFrame | None, release: Mapping[str, Any],
    *, logger: Logger | None = None,
) -> pd.DataFrame:
    """Journalist and marketer risk per protected combination (El Emam et al. 2011, discharge
    PUMF, equations 2-3).

    ``suppressed`` is ``deid_suppressed_patterns`` (released and true values with their count
    ``n``; record-level rows of ``deid_suppressed`` give the same figures): both measures
    depend on the records only through the released class sizes f_j, as sums over classes
    (sum_j f_j / F_j, max 1/F_j). ``population`` is ``deid_population_patterns`` (QI tuples at
    the released levels with counts ``n``); when empty, F_j is estimated as f_j / alpha from
    the release's ``sampling_fraction`` or ``population_size``. A suppressed released cell
    matches every population value.
    """
    log = logger or get_logger()
    cfg = parse_release(release)
    published, _ = released_frames(suppressed, cfg)
    args = _population_args(release, population)
    rows = []
    for combo in cfg.verified_combinations():
        pr = population_risk(
            published, list(combo), cfg.tau, count_column=_counts(published),
            population=args["population"], population_count_column="n",
            sampling_fraction=args["sampling_fraction"],
            population_size=args["population_size"], estimator=args["estimator"], logger=log,
        )
        rows.append({"combination": "+".join(combo), "tau": cfg.tau, "k": cfg.k,
                     "records": pr.n_records, **pr.to_dict()})
        log.info(f"dbt_deid: deid_population_risk: {'+'.join(combo)}: journalist max risk"
                 f" {pr.journalist.max_risk:.4g}, marketer risk {pr.marketer_risk:.4g}")
    out = pd.DataFrame(rows)
    for c in ("population_classes", "marketer_bound_q_alpha"):
        out[c] = pd.to_numeric(out[c], errors="coerce").astype("float64")
    return out


def uniqueness_frame(
    suppressed: pd.DataFrame, population: pd.DataFrame | None, release: Mapping[str, Any],
    *, logger: Logger | None = None,
) -> pd.DataFrame:
    """Sample and population uniqueness per protected combination (El Emam et al. 2010, small
    areas, "Estimating Uniqueness": Zayatz 1991; Pitman sampling formula, Hoshino 2001;
    selection rule of Dankar et al. 2012). N is the population relation's size, else
    ``population_size`` or n / alpha. ``suppressed`` is ``deid_suppressed_patterns``: the
    estimators read only the frequencies of the released class sizes, which the pattern counts
    give (record-level rows give the same figures)."""
    log = logger or get_logger()
    cfg = parse_release(release)
    published, _ = released_frames(suppressed, cfg)
    args = _population_args(release, population)
    size = args["population_size"]
    if args["population"] is not None:
        size = _population_size(args["population"])
    rows = []
    for i, combo in enumerate(cfg.verified_combinations(), start=1):
        log.info(f"dbt_deid: deid_uniqueness: combination {i} of"
                 f" {len(cfg.verified_combinations())} ({len(published)} patterns)")
        est = estimate_uniqueness(published, list(combo), count_column=_counts(published),
                                  sampling_fraction=None if size is not None
                                  else args["sampling_fraction"],
                                  population_size=size)
        rows.append({"combination": "+".join(combo), **est.to_dict()})
    out = pd.DataFrame(rows)
    for c in ("pitman_population_uniques", "pitman_population_uniqueness", "pitman_theta",
              "pitman_alpha"):
        out[c] = pd.to_numeric(out[c], errors="coerce").astype("float64")
    return out


def small_area_assessments(
    inputs: pd.DataFrame, *, cutoff: float = 0.5, logger: Logger | None = None,
) -> dict[int, AreaAssessment]:
    """El Emam et al. 2010 equations 1-4 on ``deid_small_area_inputs``, one assessment per area
    level."""
    log = logger or get_logger()
    frame = string_columns(inputs)
    out: dict[int, AreaAssessment] = {}
    if len(frame) == 0:
        return out
    maxcombs = int(pd.to_numeric(frame["maxcombs"]).max())
    missing = int(pd.to_numeric(frame["source_areas_without_population"]).max())
    if missing:
        warn = getattr(log, "warning", log.info)
        warn(f"dbt_deid geography: {missing} area code(s) of the source have no population in"
             " the areas relation; they are left out of the area populations")
    for level, part in frame.groupby("area_level", sort=True):
        out[int(level)] = assess_areas(
            part.reset_index(drop=True), maxcombs, area_column="area",
            population_column="population", records_column="records", cutoff=cutoff,
            logger=log,
        )
    return out


def small_areas_frame(
    inputs: pd.DataFrame, release: Mapping[str, Any], *, logger: Logger | None = None,
) -> pd.DataFrame:
    """Areas at the released level of the geography and above, with El Emam et al. 2010's predicted
    probabilities of uniqueness above 5% / 20% (equations 3-4) and ``flagged`` at the release's
    threshold. Empty (with the columns) when the release declares no ``small_areas``."""
    sa = release.get("small_areas") or {}
    if not sa:
        return pd.DataFrame({c: pd.Series([], dtype=t) for c, t in [
            ("area_level", "int64"), ("area", "string"), ("population", "float64"),
            ("records", "int64"), ("maxcombs", "int64"), ("m_scaled", "float64"),
            ("s_scaled", "float64"), ("p_05", "float64"), ("p_20", "float64"),
            ("flag_05", "bool"), ("flag_20", "bool"), ("threshold", "float64"),
            ("flagged", "bool"), ("in_fitted_range", "bool")]})
    threshold = float(sa.get("threshold", 0.05))
    if threshold not in (0.05, 0.2):
        raise ConfigError(f"small_areas.threshold must be 0.05 or 0.2, got {threshold!r}")
    flag = "flag_05" if threshold == 0.05 else "flag_20"
    parts = []
    for level, a in small_area_assessments(
        inputs, cutoff=float(sa.get("cutoff", 0.5)), logger=logger
    ).items():
        t = a.table.copy()
        t.insert(0, "area_level", level)
        t["threshold"] = threshold
        t["flagged"] = t[flag].astype(bool)
        parts.append(t)
    out = pd.concat(parts, ignore_index=True)[SMALL_AREA_COLUMNS]
    out["area"] = out["area"].astype("string")
    out["records"] = out["records"].astype("int64")
    out["maxcombs"] = out["maxcombs"].astype("int64")
    (logger or get_logger()).info(
        f"dbt_deid: deid_small_areas: {int(out['flagged'].sum())} of {len(out)} areas flagged"
        f" at {threshold:.0%} uniqueness"
    )
    return out


def release_preset(release: Mapping[str, Any]) -> ThresholdPreset | None:
    """The preset the release names (``preset``), with the release's tau as an override when
    it differs from the preset's."""
    name = release.get("preset")
    if name is None:
        return None
    cfg = parse_release(release)
    base = threshold_preset(str(name))
    tau = None if abs(base.tau - cfg.tau) < 1e-9 else cfg.tau
    return threshold_preset(str(name), tau=tau)


def release_assessments(
    suppressed: pd.DataFrame, population: pd.DataFrame | None, areas: pd.DataFrame | None,
    release: Mapping[str, Any], *, exact: pd.DataFrame | None = None,
    logger: Logger | None = None,
) -> list[RiskAssessment]:
    """One assessment per protected combination of the released records (prosecutor risk with
    the exact consistent-set variant, journalist/marketer risk and uniqueness when population
    information is configured, diagnostics); the small-area assessment at the released level
    goes with the first combination that contains the geography column.

    ``exact`` (:func:`exact_distribution`: combination, consistent, records) gives the exact
    variant as the warehouse computed it once for the build; without it the exact counts are
    computed here from the true values. A combination missing from ``exact``, or whose records
    do not add up to the release's, is an error (the table is from another build)."""
    log = logger or get_logger()
    cfg = parse_release(release)
    published, truth = released_frames(suppressed, cfg)
    args = _population_args(release, population)
    has_pop = any(args[k] is not None for k in args)
    sa = release.get("small_areas") or {}
    area_by_level = (small_area_assessments(areas, cutoff=float(sa.get("cutoff", 0.5)),
                                            logger=log)
                     if sa and areas is not None and len(areas) else {})
    released_level = int(cfg.quasi_identifiers[sa["geography_column"]].level) if sa else 0
    area = area_by_level.get(released_level)
    preset = release_preset(release)
    combos = cfg.verified_combinations()
    codes = ColumnCodes(published, truth)  # each column factorized once for all combinations
    out = []
    by_combination = _exact_by_combination(exact) if exact is not None else None
    for i, combo in enumerate(combos, start=1):
        if by_combination is None:
            pub_c, truth_c = combination_patterns(published, truth, list(combo), codes)
            distribution = None
        else:
            pub_c, truth_c = combination_patterns(published, None, list(combo), codes)
            label = "+".join(combo)
            if label not in by_combination:
                raise DataError(f"the exact check has no row for combination {label}:"
                                " it was computed for other settings; rebuild it")
            distribution = by_combination[label]
        log.info(f"dbt_deid: report: assessing combination {i} of {len(combos)}"
                 f" ({int(pub_c['n'].sum())} records in {len(pub_c)} patterns,"
                 f" {len(combo)} quasi-identifiers)")
        geo_here = area is not None and sa["geography_column"] in combo
        out.append(assess_release(
            pub_c, list(combo), cfg.tau, count_column="n", true_values=truth_c,
            exact_distribution=distribution,
            population=args["population"], population_count_column="n",
            sampling_fraction=args["sampling_fraction"] if has_pop else None,
            population_size=args["population_size"] if has_pop else None,
            population_estimator=args["estimator"],
            missing_values=("", cfg.missing_label), preset=preset,
            areas=area if geo_here else None, name=f"{cfg.name}: {'+'.join(combo)}",
            logger=log,
        ))
        if geo_here:
            area = None
    return out


#: The columns of the exact check in ``deid_suppressed_patterns`` (macros/risk/
#: exact_consistent_columns_sql.sql): the combinations (JSON) and one count per combination.
EXACT_COMBINATIONS = "deid_exact_combinations"
EXACT_CONSISTENT = "deid_consistent_"


def exact_distribution(patterns: pd.DataFrame, cfg: ReleaseConfig) -> pd.DataFrame | None:
    """The exact check's distribution (combination, consistent, records; El Emam et al. 2011,
    discharge PUMF, "Equivalence Classes") from the columns the warehouse computed once per
    build in ``deid_suppressed_patterns`` (``deid_consistent_<i>`` per verified combination i,
    ``deid_exact_combinations``): per combination, the records (sum of ``n``) per size of the
    consistent set. None when the frame has no such columns (a pattern table of another
    origin: the counts are then computed from the true values). Combinations other than the
    verified ones of ``cfg`` are an error (the table is from other settings)."""
    names = {str(c).lower(): c for c in patterns.columns}
    if EXACT_COMBINATIONS not in names:
        return None
    expected = [list(b) for b in cfg.verified_combinations()]
    held = {str(v) for v in patterns[names[EXACT_COMBINATIONS]].dropna().unique()}
    if any(json.loads(h) != expected for h in held):
        wanted = ", ".join("+".join(b) for b in expected)
        raise DataError("deid_suppressed_patterns' exact check was computed for other"
                        f" combinations than the verified ones ({wanted}): it is from other"
                        " settings; rebuild it")
    counts = pd.to_numeric(patterns[names["n"]]).to_numpy(dtype=np.int64)
    parts = []
    for i, combo in enumerate(expected, start=1):
        sizes = pd.to_numeric(patterns[names[f"{EXACT_CONSISTENT}{i}"]]).to_numpy(dtype=np.int64)
        by = pd.Series(counts).groupby(sizes).sum()
        parts.append(pd.DataFrame({"combination": "+".join(combo),
                                   "consistent": by.index.to_numpy(dtype=np.int64),
                                   "records": by.to_numpy(dtype=np.int64)}))
    if not parts:
        return pd.DataFrame({"combination": [], "consistent": [], "records": []})
    return pd.concat(parts, ignore_index=True)


def _exact_by_combination(exact: pd.DataFrame) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The exact check's distribution (:func:`exact_distribution`) as {combination: (set
    sizes, records)}."""
    missing = [c for c in ("combination", "consistent", "records") if c not in exact.columns]
    if missing:
        raise DataError(f"the exact check's distribution lacks column(s) {', '.join(missing)}")
    out = {}
    for label, rows in exact.groupby(exact["combination"].astype(str), sort=True):
        out[str(label)] = (pd.to_numeric(rows["consistent"]).to_numpy(dtype=np.int64),
                           pd.to_numeric(rows["records"]).to_numpy(dtype=np.int64))
    return out


class ColumnCodes:
    """Integer codes of the published and true columns, factorized on first use and kept
    (int32, -1 = null), so that combinations sharing a column factorize it once: at 24 million
    records the report's three combinations factorized 36 text columns of 8.2 million rows for
    16 distinct ones (issue 18)."""

    def __init__(self, published: pd.DataFrame, truth: pd.DataFrame | None) -> None:
        self._frames = {"p": published, "t": truth}
        self._codes: dict[tuple[str, str], tuple[np.ndarray, int]] = {}

    def get(self, side: str, column: str) -> tuple[np.ndarray, int]:
        """(codes, number of distinct non-null values) of ``column`` on ``side`` ('p' for
        published, 't' for true values)."""
        key = (side, column)
        if key not in self._codes:
            from dbt_deid.coded import factorize_columns

            (codes,), (card,) = factorize_columns([self._frames[side]], [column])
            self._codes[key] = (codes[:, 0].astype(np.int32), card)
        return self._codes[key]


def combination_patterns(
    published: pd.DataFrame, truth: pd.DataFrame | None, combination: list[str],
    codes: ColumnCodes | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """(published, true values) on ``combination``'s columns only: one row per distinct pair
    of a released tuple and a true tuple, with its record count ``n``.

    Every measure of a combination (El Emam et al. 2011, discharge PUMF, equations 1-3: class
    sizes, the consistent sets of the exact variant, the risk distributions, the suppression and
    loss per column) depends only on how many records have each such pair, so it is the same on
    this table as on the full pattern table; the table is several times smaller (at 24 million
    records 1.7-2.8 million rows instead of 8.2 million). ``published`` holds ``n`` when it is
    a pattern table, else each row is one record. Rows are grouped on integer codes
    (:mod:`dbt_deid.coded`; a suppressed cell is its own code), and each group keeps the values
    of its first row; text read as zero-copy Arrow columns (``to_pandas_for_codes``) comes back
    as ``to_pandas`` gives it (:func:`dbt_deid.arrow_frames.standard_dtypes`). ``codes``: the
    columns' codes shared between calls on the same two frames (:class:`ColumnCodes`).
    ``truth`` None: the released tuples only (one row per released tuple), and None for the
    true values (the exact counts then come from the warehouse, :func:`exact_distribution`).
    """
    from dbt_deid.coded import row_keys

    n = (published["n"].to_numpy(dtype="int64") if "n" in published.columns
         else np.ones(len(published), dtype="int64"))
    codes = codes or ColumnCodes(published, truth)
    sides = ("p", "t") if truth is not None else ("p",)
    pairs = [codes.get(side, c) for side in sides for c in combination]
    matrix = np.stack([p[0] for p in pairs], axis=1) if pairs else np.zeros((len(n), 0), np.int32)
    _uniq, first, inverse = np.unique(row_keys(matrix, [p[1] for p in pairs]),
                                      return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # groups in order of first appearance
    sums = np.bincount(inverse.reshape(-1), weights=n, minlength=len(first)).astype("int64")
    rows = first[order]
    pub = standard_dtypes(published[combination].iloc[rows].reset_index(drop=True))
    pub["n"] = sums[order]
    if truth is None:
        return pub, None
    true = standard_dtypes(truth[combination].iloc[rows].reset_index(drop=True))
    return pub, true


def breakdown_frames(
    suppressed: pd.DataFrame, release: Mapping[str, Any]
) -> dict[str, pd.DataFrame]:
    """Suppression of every QI by each ``report.by`` column (categories < k pooled)."""
    from dbt_deid.risk.diagnostics import suppression_by

    cfg = parse_release(release)
    by = (release.get("report") or {}).get("by") or []
    by = [by] if isinstance(by, str) else list(by)
    if not by:
        return {}
    published, _ = released_frames(suppressed, cfg)
    published = standard_dtypes(published)
    counts = "n" if "n" in published.columns else None
    return {
        b: suppression_by(published, cfg.qi_names, b, cfg.k, count_column=counts,
                          missing_values=("", cfg.missing_label))
        for b in by
    }


__all__ = [
    "breakdown_frames", "population_risk_frame", "release_assessments", "release_preset",
    "released_frames", "small_area_assessments", "small_areas_frame",
    "uniqueness_frame",
]



def deid_population_risk(
    release_json: str, suppressed_patterns: Any, population_patterns: Any
) -> pd.DataFrame:
    """The dbt Python model ``deid_population_risk``: journalist and marketer risk of the
    published release (El Emam et al. 2011, discharge PUMF, equations 2-3): journalist risk
    1/F_j (F_j the population size of a released class, a suppressed cell matching every
    value) and marketer risk sum_j f_j / F_j (bound |Q| alpha), per protected combination,
    from the population relation (``deid_population_patterns``) or, when the release gives
    none, F_j = f_j / alpha from ``sampling_fraction`` / ``population_size``. Reads the pattern
    table ``deid_suppressed_patterns`` (the measures need only the class sizes f_j), never the
    records (:func:`population_risk_frame`). Built only when the release gives one of these."""
    release = json.loads(release_json)
    return population_risk_frame(to_pandas(suppressed_patterns), to_pandas(population_patterns),
                                 release, logger=dbt_logger())


def deid_uniqueness(
    release_json: str, suppressed_patterns: Any, population_patterns: Any
) -> pd.DataFrame:
    """The dbt Python model ``deid_uniqueness``: sample and population uniqueness of the
    published release (El Emam et al. 2010, small areas, "Estimating Uniqueness"): the Zayatz
    (1991) estimate and the Pitman sampling formula (maximum-likelihood theta, alpha; expected
    population uniques, Hoshino 2001), chosen by the Dankar et al. (2012) rule, per protected
    combination (:func:`uniqueness_frame`). Reads the pattern table
    ``deid_suppressed_patterns`` (the estimators need only the class sizes), never the records.
    Built only when the release gives a sampling fraction, population size or population
    relation."""
    release = json.loads(release_json)
    return uniqueness_frame(to_pandas(suppressed_patterns), to_pandas(population_patterns),
                            release, logger=dbt_logger())


def deid_small_areas(release_json: str, small_area_inputs: Any) -> pd.DataFrame:
    """The dbt Python model ``deid_small_areas``: El Emam et al. 2010's small-area models on the
    release's areas. ``small_area_inputs`` is ``deid_small_area_inputs`` (areas at the released
    level of the geography and above, with population, source records and MaxCombs); equations
    1-4 (centred/scaled MaxCombs and population, logistic models of uniqueness above 5% and 20%,
    flag when the predicted probability exceeds 0.5) are applied by :func:`small_areas_frame`.
    Inputs outside the fitted range (MaxCombs 6-718,848, populations 200-78,457) are logged as
    warnings. Empty when the release declares no ``small_areas``."""
    release = json.loads(release_json)
    return small_areas_frame(to_pandas(small_area_inputs), release, logger=dbt_logger())
