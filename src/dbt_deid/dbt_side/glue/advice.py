"""The advice in the dbt release: frames in, frames out, computed by the Python model
``deid_suppression_map`` (issue 35; the model ``deid_release_advice`` before session 13, issue
33 item 3) and stored in its table as rows of their own (:func:`map_with_advice`).

Reads the pattern table the build already has (``deid_patterns``, the QI values at the
configured levels with their counts), the hierarchies (``deid_hierarchy``) and the suppression
map the model has just computed, so the figures at the configured levels are not
computed again (a passing release reads only the map and the pattern table's counts:
:func:`passing_advice`); when MaxSup or a column cap fails, the core
(:func:`dbt_deid.advice.advise`)
searches the coarser levels for the nearest that pass (El Emam et al. 2009, prescription
records, "Apply Generalization and Suppression"). The publish step, the report and ``python -m
dbt_deid advise`` read the advice rows of the map's table (:func:`advice_rows`; the macro
``release_advice_message``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from dbt_deid.advice import (
    advice_frame,
    advise,
    describe_level,
    shares_from_map,
    typed_advice_frame,
)
from dbt_deid.advice.search import Advice
from dbt_deid.advice.text import ADVICE_COLUMNS, ADVICE_PREFIX, advice_in_map
from dbt_deid.config import parse_release
from dbt_deid.dbt_side.dbt_logger import dbt_logger
from dbt_deid.dbt_side.glue.frames import (
    _is_duckdb,
    relation_columns,
    string_values,
    to_pandas,
    to_pandas_columns,
)
from dbt_deid.dbt_side.glue.ola import ola_hierarchies
from dbt_deid.dbt_side.glue.release import current_patterns
from dbt_deid.errors import ConfigError, DataError
from dbt_deid.ola.settings import ola_settings
from dbt_deid.progress import Logger


def level_meanings(hierarchy: pd.DataFrame, release: Mapping[str, Any]
                   ) -> dict[str, dict[int, str]]:
    """Per QI, the meaning of each level of its hierarchy (:func:`describe_level`)."""
    cfg = parse_release(dict(release), partial=True)
    out: dict[str, dict[int, str]] = {}
    if hierarchy is None or not len(hierarchy):
        return {q: {0: "original values"} for q in cfg.qi_names}
    for q in cfg.qi_names:
        rows = hierarchy[hierarchy["qi_name"].astype(str) == q]
        levels = sorted({int(v) for v in rows["level"]}) if len(rows) else [0]
        out[q] = {lvl: describe_level(rows, lvl, missing_label=cfg.missing_label)
                  for lvl in sorted({0, *levels})}
    return out


def passing_advice(counts: pd.DataFrame, suppression_map: pd.DataFrame,
                   release: Mapping[str, Any]) -> Advice | None:
    """The advice of a release whose own suppression (the build's suppression map) passes
    MaxSup and every column cap, or None when one fails (then :func:`release_advice`).

    A passing release's rows (:func:`dbt_deid.advice.advice_frame`) are its figures at the
    configured levels: MaxSup's share, each column's and each combination's share of records
    with a suppressed cell, read from the map, over the records the pattern table counts. No
    search runs, the shares in classes smaller than k are not computed and the reasons a QI's
    level would not be varied are not shown (:func:`dbt_deid.advice.advice_lines`), so only
    the pattern table's counts ``n`` are needed (``counts``), not its QI values nor the
    hierarchies (the search's inputs, El Emam et al. 2009, "Apply Generalization and
    Suppression": the levels above are searched only on a refusal). The same
    :class:`~dbt_deid.advice.search.Advice` :func:`release_advice` returns for it, but for
    ``held``, which no row of a passing release shows."""
    cfg = parse_release(dict(release), partial=True)
    combos = [tuple(c) for c in cfg.verified_combinations()]
    shares = shares_from_map(counts, suppression_map, cfg.released_qis(), combos, cfg.k,
                             small_classes=False)
    if shares.failing(cfg.max_suppression, cfg.caps):
        return None
    return Advice(release=cfg.name, k=cfg.k, max_suppression=cfg.max_suppression,
                  caps=cfg.caps, levels={q: cfg.quasi_identifiers[q].level
                                         for q in cfg.qi_names},
                  shares=shares, failing=())


def release_advice(
    patterns: pd.DataFrame, hierarchy: pd.DataFrame, suppression_map: pd.DataFrame | None,
    release: Mapping[str, Any], *, logger: Logger | None = None, **budget: Any,
) -> tuple[Advice, dict[str, dict[int, str]]]:
    """The release's advice and its QIs' level meanings (see the module docstring)."""
    cfg = parse_release(dict(release), partial=True)
    log = logger or dbt_logger()
    frame = string_values(patterns, cfg.qi_names)
    frame.columns = [str(c) for c in frame.columns]
    if any(c in frame.columns for c in cfg.sensitive):
        # attribute_disclosure.remedy's pattern table: the QI patterns regrouped
        frame = current_patterns(frame, cfg.qi_names)
    combos = [tuple(c) for c in cfg.verified_combinations()]
    shares = None
    if suppression_map is not None:
        # the shares in small classes only for a refused release (one GROUP BY per combination)
        shares = shares_from_map(frame, suppression_map, cfg.released_qis(), combos, cfg.k,
                                 small_classes=False)
        if shares.failing(cfg.max_suppression, cfg.caps):
            shares = shares_from_map(frame, suppression_map, cfg.released_qis(), combos, cfg.k)
    held: dict[str, str] = {}
    hierarchies: dict[str, pd.DataFrame] = {}
    if ola_settings(dict(release)) is not None:
        held = {q: "chosen by OLA (generalization.search: ola)" for q in cfg.qi_names}
    else:
        in_family = {lvl for f in cfg.families for lvl in f.levels}
        for q in cfg.qi_names:
            if q in in_family:
                continue
            try:
                hierarchies.update(ola_hierarchies(
                    hierarchy, frame, {q: cfg.quasi_identifiers[q].level}, cfg.missing_label))
            except ConfigError as exc:  # names settings only
                held[q] = str(exc)
            except DataError:  # its message may quote a hierarchy value: not repeated here
                held[q] = "its hierarchy is not a tree above the configured level"
    advice = advise(frame, hierarchies, release, shares=shares, held=held, logger=log, **budget)
    return advice, level_meanings(hierarchy, release)


def release_advice_rows(
    release_json: str, patterns: Any, hierarchy: Any, suppression_map: Any
) -> pd.DataFrame:
    """The release's advice, the rows of :func:`dbt_deid.advice.advice_frame` (figures at the
    configured levels per QI and per combination, and when MaxSup or a column cap fails, the
    nearest levels that pass and the text lines the publish step's failure message and the
    report show), for ``deid_suppression_map`` (:func:`map_with_advice`). Never raises: an
    error gives one line saying no advice could be computed (the gates decide what is
    published). An empty pattern table (only under ``dbt build --empty``) gives no row."""
    release = json.loads(release_json)
    log = dbt_logger()
    try:
        counts = to_pandas_columns(patterns, ["n"])
        if len(counts) == 0:
            return typed_advice_frame()
        # the map's counts and flags (shares_from_map), not its QI values; the names as the
        # relation spells them (what to_pandas would give)
        names = relation_columns(suppression_map)
        raw = getattr(suppression_map, "columns", None)
        smap = (to_pandas(suppression_map) if names is None else to_pandas_columns(
            suppression_map, [str(c) for c in raw
                              if str(c).lower() == "n" or str(c).lower().endswith("__suppressed")]))
        hier = to_pandas(hierarchy)
        # a passing release: its figures from the map and the counts (passing_advice), not the
        # pattern table's values nor the hierarchies the search on a refusal reads
        passing = passing_advice(counts, smap, release)
        if passing is not None:
            advice, meanings = passing, level_meanings(hier, release)
        else:
            advice, meanings = release_advice(to_pandas(patterns), hier, smap, release,
                                              logger=log)
    except Exception as exc:  # noqa: BLE001 - advice never blocks a release the gates pass
        # The gates decide what is published; a failure here must not fail the build (the
        # suppression map, which every later node reads, carries the advice).
        # (the exception's name only: its text may quote a value)
        log.warning(f"dbt_deid: deid_suppression_map: no advice ({type(exc).__name__})")
        return typed_advice_frame(pd.DataFrame([{
            "kind": "line", "item": 1, "subject": None, "figure": None, "limit_value": None,
            "small_share": None, "levels_json": None,
            "message": f"no advice could be computed ({type(exc).__name__})"}]))
    out = advice_frame(advice, meanings)
    if advice.refused:
        for line in out[out["kind"] == "line"]["message"]:
            log.info(f"dbt_deid: advice: {line}")
    return out


#: The advice's columns in the map's table, in order.
ADVICE_MAP_COLUMNS = [f"{ADVICE_PREFIX}{c}" for c in ADVICE_COLUMNS]


def map_with_advice(suppression_map: pd.DataFrame, advice: pd.DataFrame) -> pd.DataFrame:
    """The table of ``deid_suppression_map``: the map's rows, then the advice's (issue 33 item
    3: the advice is no node of its own). The map's rows have null advice columns; the advice
    rows are inert for every reader of the map: null keys (no record's pattern), ``n`` 0 and
    the empty rank range ``rank_from`` 1 to ``rank_to`` 0 (no record rank is in it, and the
    map's whole-pattern test ``rank_from = 1 and rank_to >= n`` holds), every ``<qi>__suppressed``
    flag false; the SQL readers of the map also leave them out by their ``n`` 0 (a map row is
    a pattern's, n >= 1: apply_suppression_sql, released_patterns_sql), and
    :func:`dbt_deid.advice.shares_from_map` counts nothing of them. ``advice__item`` is a float
    (null on the map's rows); :func:`advice_rows` gives the advice back with its own types."""
    n_adv = len(advice)
    inert = {"n": 0, "rank_from": 1, "rank_to": 0}
    part: dict[str, pd.Series] = {}
    for c in suppression_map.columns:
        dtype = suppression_map[c].dtype
        if c in inert:
            fill: Any = inert[c]
        elif str(c).endswith("__suppressed") and pd.api.types.is_bool_dtype(dtype):
            fill = False
        else:
            fill = pd.NA
        part[c] = pd.Series([fill] * n_adv, dtype=dtype)
    for c, dtype in ADVICE_COLUMNS.items():
        kind = "float64" if dtype == "int64" else dtype
        part[f"{ADVICE_PREFIX}{c}"] = advice[c].reset_index(drop=True).astype(kind)
    # one concatenation: pandas fills the advice columns of the map's rows with nulls of
    # their types without per-row Python (at 2.4M records the map has 937,058 rows: 0.07 s,
    # where reindexing the map took 1.8 s)
    return pd.concat([suppression_map.reset_index(drop=True), pd.DataFrame(part)],
                     ignore_index=True)


def advice_rows(suppression_map: Any) -> pd.DataFrame:
    """The advice rows of ``deid_suppression_map``'s table (any engine's relation, or pandas)
    as the frame :func:`release_advice_rows` gave (the columns and types of
    :data:`dbt_deid.advice.ADVICE_COLUMNS`), without reading the map's own rows where the
    engine can filter first (DuckDB, Spark, Snowpark). A table without advice columns (a map
    built before session 13) gives no row."""
    names = relation_columns(suppression_map)
    if names is not None and f"{ADVICE_PREFIX}kind" not in names:
        return typed_advice_frame()
    where = f"{ADVICE_PREFIX}kind is not null"
    if isinstance(suppression_map, pd.DataFrame):
        frame = suppression_map
    elif _is_duckdb(suppression_map):
        frame = to_pandas(suppression_map.filter(where).project(", ".join(ADVICE_MAP_COLUMNS)))
    elif callable(getattr(suppression_map, "filter", None)) and callable(
            getattr(suppression_map, "select", None)):
        frame = to_pandas(suppression_map.filter(where).select(*ADVICE_MAP_COLUMNS))
    else:
        frame = to_pandas(suppression_map)
    return advice_in_map(frame)
