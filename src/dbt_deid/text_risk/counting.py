"""Counting over the per-annotation outcome table: every function is a SQL group-by.

The input is the outcome table of :func:`~dbt_deid.text_risk.matching.annotation_outcomes`
(``doc_id, annotation_id, type, kind, value, tokens, tokens_masked, caught, caught_typed``).
The risk model (equations 10-22) needs only two small aggregate tables, which a dbt SQL model
can build with the group-bys written in each docstring:

* :func:`direct_counts` -> one row per direct-identifier type: ``type, s, s_caught``.
* :func:`quasi_counts` -> one row: ``instances, caught, values, s_q``.

plus ``n``, the number of documents. :func:`direct_measures` and :func:`quasi_measures` turn
those into the paper's ``w_i, r_i`` and ``r_q, m, n_q`` (Table 4).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from dbt_deid.errors import DataError

DIRECT_COUNT_COLUMNS: tuple[str, ...] = ("type", "s", "s_caught")
QUASI_COUNT_COLUMNS: tuple[str, ...] = ("instances", "caught", "values", "s_q")


def _select(
    outcomes: pd.DataFrame, kind: str | None = None, types: Iterable[str] | None = None
) -> pd.DataFrame:
    rows = outcomes
    if kind is not None:
        rows = rows[rows["kind"] == kind]
    if types is not None:
        rows = rows[rows["type"].isin(list(types))]
    return rows


def _ratio(num: float, den: float) -> float:
    return float(num) / float(den) if den else float("nan")


def micro_recall(
    outcomes: pd.DataFrame,
    *,
    kind: str | None = None,
    types: Iterable[str] | None = None,
    caught: str = "caught_typed",
) -> float:
    """Conventional micro-average recall ``r = tp / (tp + fn)`` (equation 1, section 2.1).

    Every instance weighs the same whatever its type. ``caught="caught_typed"`` (default) is the
    conventional evaluation (type must match); ``caught="caught"`` pools masked instances. NaN when
    nothing is selected. SQL: ``select avg(caught_typed::int) from outcomes [where kind = ...]``.
    """
    rows = _select(outcomes, kind, types)
    return _ratio(rows[caught].sum(), len(rows))


def masking_recall(
    outcomes: pd.DataFrame, *, kind: str | None = None, types: Iterable[str] | None = None
) -> float:
    """Token-level masking recall (section 2.3.2): masked tokens / gold tokens.

    A token counts as caught whatever type the tool gave it. SQL:
    ``select sum(tokens_masked) / sum(tokens) from outcomes [where ...]``.
    """
    rows = _select(outcomes, kind, types)
    return _ratio(rows["tokens_masked"].sum(), rows["tokens"].sum())


def document_type_counts(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Instances and caught instances per document and type.

    Columns ``doc_id, type, kind, instances, caught``. SQL: ``select doc_id, type, kind,
    count(*) as instances, sum(caught::int) as caught from outcomes group by 1, 2, 3``.
    """
    return (
        outcomes.groupby(["doc_id", "type", "kind"], sort=True)
        .agg(instances=("caught", "size"), caught=("caught", "sum"))
        .reset_index()
        .astype({"instances": "int64", "caught": "int64"})
    )


def all_or_nothing_recall(
    outcomes: pd.DataFrame, *, kind: str | None = None, types: Iterable[str] | None = None
) -> float:
    """All-or-nothing recall (section 2.3.1): share of documents whose instances are all caught.

    Over the selected instances pooled (one type gives ``r_i`` of Table 4; all direct types give
    the "DI" column of Table 1). Documents without a selected instance are not counted. SQL:
    ``select avg((min(caught::int) = 1)::int) ... group by doc_id`` (as a sub-query).
    """
    rows = _select(outcomes, kind, types)
    if len(rows) == 0:
        return float("nan")
    per_doc = rows.groupby("doc_id")["caught"].all()
    return float(per_doc.mean())


def direct_counts(outcomes: pd.DataFrame) -> pd.DataFrame:
    """The aggregate table of direct identifiers: one row per type, ``type, s, s_caught``.

    ``s`` = documents the type appears in (``s_i``, Table 4); ``s_caught`` = those in which every
    instance of the type is caught (all-or-nothing, section 2.3.1). SQL::

        select type, count(*) as s, sum((caught = instances)::int) as s_caught
        from document_type_counts where kind = 'direct' group by type
    """
    per = document_type_counts(outcomes)
    per = per[per["kind"] == "direct"]
    out = (
        per.assign(all_caught=per["caught"] == per["instances"])
        .groupby("type", sort=True)
        .agg(s=("doc_id", "size"), s_caught=("all_caught", "sum"))
        .reset_index()
    )
    return out.astype({"s": "int64", "s_caught": "int64"})[list(DIRECT_COUNT_COLUMNS)]


def quasi_counts(outcomes: pd.DataFrame) -> pd.DataFrame:
    """The aggregate table of quasi-identifiers: one row ``instances, caught, values, s_q``.

    ``values`` counts distinct ``(doc_id, type, lower(trim(value)))``; ``s_q`` the documents with
    at least one quasi-identifier (Table 4). SQL::

        select count(*) as instances, sum(caught::int) as caught,
               count(distinct (doc_id, type, lower(trim(value)))) as "values",
               count(distinct doc_id) as s_q
        from outcomes where kind = 'quasi'
    """
    rows = outcomes[outcomes["kind"] == "quasi"]
    norm = rows["value"].astype(str).str.strip().str.casefold()
    values = pd.DataFrame({"d": rows["doc_id"], "t": rows["type"], "v": norm}).drop_duplicates()
    return pd.DataFrame([{
        "instances": int(len(rows)),
        "caught": int(rows["caught"].sum()),
        "values": int(len(values)),
        "s_q": int(rows["doc_id"].nunique()),
    }])[list(QUASI_COUNT_COLUMNS)]


def _check_columns(frame: pd.DataFrame, name: str, columns: tuple[str, ...]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"table {name!r} lacks column(s) {missing}; it has {list(frame.columns)}")


def direct_measures(counts: pd.DataFrame, n: int) -> pd.DataFrame:
    """Adds ``w = s / n`` and ``r = s_caught / s`` to :func:`direct_counts` (equation 10).

    ``w_i = s_i / n`` is the probability that type ``i`` appears in a document and ``r_i`` its
    all-or-nothing recall (Table 4). Raises DataError on inconsistent counts.
    """
    _check_columns(counts, "direct_counts", DIRECT_COUNT_COLUMNS)
    if n <= 0:
        raise DataError(f"number of documents n must be positive, got {n}")
    out = counts[list(DIRECT_COUNT_COLUMNS)].copy()
    out["s"] = out["s"].astype("int64")
    out["s_caught"] = out["s_caught"].astype("int64")
    bad = (out["s"] <= 0) | (out["s"] > n) | (out["s_caught"] < 0) | (out["s_caught"] > out["s"])
    if bad.any():
        r = out[bad].iloc[0]
        raise DataError(
            f"table 'direct_counts': type {r['type']!r} has s={int(r['s'])},"
            f" s_caught={int(r['s_caught'])} with n={n} (need 0 < s <= n, 0 <= s_caught <= s)"
        )
    out["w"] = out["s"] / n
    out["r"] = out["s_caught"] / out["s"]
    return out.reset_index(drop=True)


@dataclass(frozen=True)
class QuasiMeasures:
    """The quasi-identifier parameters of equation 12 (Table 4).

    ``r_q`` micro-average (masking) recall over all quasi-identifier instances; ``m`` instances
    per distinct value; ``n_q`` distinct values per document (averaged over all ``n`` documents);
    ``s_q`` documents with a quasi-identifier. ``present`` is False when there is none (then the
    quasi-identifier risk is 0).
    """

    r_q: float
    m: float
    n_q: float
    s_q: int
    present: bool


def quasi_measures(counts: pd.DataFrame, n: int) -> QuasiMeasures:
    """``r_q = caught / instances``, ``m = instances / values``, ``n_q = values / n`` (eq. 12)."""
    _check_columns(counts, "quasi_counts", QUASI_COUNT_COLUMNS)
    if len(counts) != 1:
        raise DataError(f"table 'quasi_counts' must have one row, has {len(counts)}")
    if n <= 0:
        raise DataError(f"number of documents n must be positive, got {n}")
    row = counts.iloc[0]
    instances, caught = int(row["instances"]), int(row["caught"])
    values, s_q = int(row["values"]), int(row["s_q"])
    if instances == 0:
        return QuasiMeasures(r_q=1.0, m=0.0, n_q=0.0, s_q=0, present=False)
    if not (0 <= caught <= instances and 0 < values <= instances and 0 < s_q <= min(n, values)):
        raise DataError(
            f"table 'quasi_counts': inconsistent counts instances={instances}, caught={caught},"
            f" values={values}, s_q={s_q} with n={n}"
        )
    return QuasiMeasures(
        r_q=caught / instances, m=instances / values, n_q=values / n, s_q=s_q, present=True
    )
