"""The advice as lines of text (failure message, CLI, report) and as a table (the advice rows
of the build's ``deid_suppression_map``, ``deid_release_advice`` before session 13, read by the
publish step, the report and ``advise``). Figures, limits, QI and
combination names and levels only: never a quasi-identifier value."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pandas as pd

from dbt_deid.advice.search import Advice, LevelOption


def _pct(v: float) -> str:
    return f"{100.0 * v:.1f}%"


def _combo(c: tuple[str, ...]) -> str:
    return "+".join(c)


def option_text(o: LevelOption, meanings: Mapping[str, Mapping[int, str]] | None = None) -> str:
    """``age 1 -> 2 (in bands of 10); zip 0 -> 1 (...)``: MaxSup and the highest column share."""
    parts = []
    for q, (a, b) in sorted(o.changes.items()):
        meaning = (meanings or {}).get(q, {}).get(b)
        parts.append(f"{q} level {a} -> {b}" + (f" ({meaning})" if meaning else ""))
    top = max(o.shares.column_shares.items(), key=lambda kv: (kv[1], kv[0]), default=None)
    tail = f"MaxSup {_pct(o.shares.share)}"
    if top is not None:
        tail += f", most suppressed column {top[0]} {_pct(top[1])}"
    return "; ".join(parts) + f": {tail}"


def settings_text(o: LevelOption) -> str:
    """The settings to change, as YAML flow keys."""
    return ", ".join(f"quasi_identifiers.{q}.level: {b}" for q, (_, b) in sorted(o.changes.items()))


def advice_lines(advice: Advice, meanings: Mapping[str, Mapping[int, str]] | None = None
                 ) -> list[str]:
    """The advice, one finding per line (see the module docstring)."""
    s = advice.shares
    lines = []
    state = "refused" if advice.refused else "passes"
    lines.append(f"release {advice.release} {state}: MaxSup {_pct(s.share)} of {s.records:,}"
                 f" records have a suppressed quasi-identifier (limit"
                 f" {_pct(advice.max_suppression)}), k = {advice.k}")
    cols = sorted(s.column_shares.items(), key=lambda kv: (-kv[1], kv[0]))
    lines.append("suppressed cells by quasi-identifier: " + ", ".join(
        f"{q} {_pct(v)}" + (f" (cap {_pct(advice.caps[q])})" if q in advice.caps else "")
        for q, v in cols))
    order = sorted(s.combination_shares, key=lambda c: (-s.combination_shares[c], c))
    if s.small_shares:
        lines.append(f"by combination (records in classes smaller than k = {advice.k} before"
                     " suppression / with a suppressed cell after): " + ", ".join(
                         f"{_combo(c)} {_pct(s.small_shares.get(c, 0.0))} /"
                         f" {_pct(s.combination_shares.get(c, 0.0))}" for c in order))
    else:
        lines.append("by combination (records with a suppressed cell): " + ", ".join(
            f"{_combo(c)} {_pct(s.combination_shares.get(c, 0.0))}" for c in order))
    if not advice.refused:
        return lines
    if advice.options:
        for i, o in enumerate(advice.options, start=1):
            lines.append(f"nearest levels that pass ({i}): {option_text(o, meanings)}; set"
                         f" {settings_text(o)}")
    elif advice.searched:
        why = advice.stopped or (
            "no quasi-identifier has a coarser level to try"
            if set(advice.held) >= set(advice.levels)
            else "no coarser node of the varied quasi-identifiers passes")
        lines.append(f"no coarser levels found that pass ({why})")
    if "max_suppression" in advice.failing:
        lines.append(f"at the configured levels, max_suppression >= {_pct(s.share)} would pass"
                     " MaxSup; a limit is the custodian's policy (El Emam et al. 2012 used 5%"
                     " and 10%), not a setting to tune until a release passes")
    for q, cap in sorted(advice.caps.items()):
        v = s.column_shares.get(q, 0.0)
        if v > cap:
            lines.append(f"column {q}: {_pct(v)} of its cells suppressed > cap {_pct(cap)}")
    for q, why in sorted(advice.held.items()):
        lines.append(f"{q}: level not varied ({why})")
    return lines


def advice_frame(advice: Advice, meanings: Mapping[str, Mapping[int, str]] | None = None
                 ) -> pd.DataFrame:
    """The advice as its rows (the advice rows of ``deid_suppression_map``, columns prefixed
    ``advice__``; the model ``deid_release_advice`` before session 13): ``kind`` (``status``,
    ``column``, ``combination``, ``level`` (each QI's configured level, ``message`` its meaning),
    ``option``, ``line``), ``item`` (order within the kind), ``subject`` (a
    QI, a combination, or the option's settings), ``figure``, ``limit_value``, ``small_share``
    (combinations: records in classes smaller than k before suppression), ``levels_json``
    (options: every varied QI's level) and ``message``."""
    s = advice.shares
    rows: list[dict[str, object]] = [{
        "kind": "status", "item": 1, "subject": "max_suppression", "figure": s.share,
        "limit_value": advice.max_suppression, "small_share": None, "levels_json": json.dumps(
            dict(advice.levels), sort_keys=True),
        "message": ", ".join(advice.failing) or "passes"}]
    for i, (q, v) in enumerate(sorted(s.column_shares.items()), start=1):
        rows.append({"kind": "column", "item": i, "subject": q, "figure": v,
                     "limit_value": advice.caps.get(q), "small_share": None,
                     "levels_json": None, "message": None})
    for i, c in enumerate(sorted(s.combination_shares), start=1):
        rows.append({"kind": "combination", "item": i, "subject": _combo(c),
                     "figure": s.combination_shares[c], "limit_value": None,
                     "small_share": s.small_shares.get(c), "levels_json": None,
                     "message": None})
    for i, (q, lvl) in enumerate(sorted(advice.levels.items()), start=1):
        rows.append({"kind": "level", "item": i, "subject": q, "figure": float(lvl),
                     "limit_value": None, "small_share": None, "levels_json": None,
                     "message": (meanings or {}).get(q, {}).get(lvl, f"level {lvl}")})
    for i, o in enumerate(advice.options, start=1):
        rows.append({"kind": "option", "item": i, "subject": settings_text(o),
                     "figure": o.shares.share, "limit_value": advice.max_suppression,
                     "small_share": None,
                     "levels_json": json.dumps(dict(o.levels), sort_keys=True),
                     "message": option_text(o, meanings)})
    for i, line in enumerate(advice_lines(advice, meanings), start=1):
        rows.append({"kind": "line", "item": i, "subject": None, "figure": None,
                     "limit_value": None, "small_share": None, "levels_json": None,
                     "message": line})
    return typed_advice_frame(pd.DataFrame(rows))


ADVICE_COLUMNS = {"kind": "string", "item": "int64", "subject": "string", "figure": "float64",
                  "limit_value": "float64", "small_share": "float64", "levels_json": "string",
                  "message": "string"}


#: The prefix of the advice's columns in the table of ``deid_suppression_map``, which holds
#: the advice rows after the map's since session 13 (``advice__kind``, ...: no QI name can
#: collide with them, a QI's flag being ``<qi>__suppressed``).
ADVICE_PREFIX = "advice__"


def advice_in_map(frame: pd.DataFrame) -> pd.DataFrame:
    """The advice rows of ``deid_suppression_map``'s table read as pandas (any column case),
    as :func:`typed_advice_frame` gives them (the columns of :data:`ADVICE_COLUMNS`, without
    the prefix); no row when the table has no advice column (a map built before session 13)."""
    frame = frame.rename(columns={c: str(c).lower() for c in frame.columns})
    kind = f"{ADVICE_PREFIX}kind"
    if kind not in frame.columns:
        return typed_advice_frame()
    rows = frame[frame[kind].notna()][[f"{ADVICE_PREFIX}{c}" for c in ADVICE_COLUMNS]]
    return typed_advice_frame(rows.rename(columns={f"{ADVICE_PREFIX}{c}": c
                                                   for c in ADVICE_COLUMNS}))


def typed_advice_frame(frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """``frame`` (or no row) with the columns and types of the advice (:data:`ADVICE_COLUMNS`;
    the table ``deid_release_advice``'s before session 13)."""
    frame = frame if frame is not None else pd.DataFrame(columns=list(ADVICE_COLUMNS))
    return frame[list(ADVICE_COLUMNS)].astype(ADVICE_COLUMNS).reset_index(drop=True)
