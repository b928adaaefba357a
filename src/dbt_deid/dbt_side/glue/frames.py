"""Engine relations to pandas, and the small frame conversions every glue module shares."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import pandas as pd

from dbt_deid.errors import DataError


def _is_duckdb(relation: Any) -> bool:
    """A DuckDB relation (fetched as Arrow here)."""
    return type(relation).__module__.split(".")[0] in {"duckdb", "_duckdb"} and callable(
        getattr(relation, "arrow", None))


def to_pandas(relation: Any) -> pd.DataFrame:
    """A dbt Python model's ``dbt.ref()`` result as pandas, whatever the engine.

    DuckDB relations are fetched as Arrow (:mod:`dbt_deid.arrow_frames`: same column types as
    ``df()``, several times faster on text columns), Snowpark has ``to_pandas()``, Spark
    ``toPandas()``.
    """
    if isinstance(relation, pd.DataFrame):
        return relation
    if _is_duckdb(relation):
        from dbt_deid.arrow_frames import arrow_to_pandas

        return arrow_to_pandas(relation.arrow())
    for method in ("df", "to_pandas", "toPandas"):
        fn = getattr(relation, method, None)
        if callable(fn):
            return fn()
    raise TypeError(f"cannot convert {type(relation).__name__} to pandas")


def to_pandas_columns(relation: Any, columns: Sequence[str]) -> pd.DataFrame:
    """:func:`to_pandas` of only ``columns`` of ``relation``: a DuckDB relation is projected
    before it is fetched, a Spark or Snowpark one selected; others are converted whole."""
    cols = list(columns)
    if isinstance(relation, pd.DataFrame):
        return relation[cols]
    if _is_duckdb(relation):
        quoted = ", ".join('"' + c.replace('"', '""') + '"' for c in cols)
        return to_pandas(relation.project(quoted))
    select = getattr(relation, "select", None)
    if callable(select) and any(callable(getattr(relation, m, None))
                                for m in ("toPandas", "to_pandas")):
        return to_pandas(select(*cols))
    return to_pandas(relation)[cols]


def relation_columns(relation: Any) -> list[str] | None:
    """The column names of a dbt Python model's ``dbt.ref()`` result (a DuckDB, Spark or Snowpark
    relation, or pandas), lower case, without reading its rows; None when the engine's relation
    does not list them."""
    columns = getattr(relation, "columns", None)
    if columns is None or callable(columns):
        return None
    try:
        return [str(c).strip('"').lower() for c in columns]
    except TypeError:
        return None


def to_pandas_for_codes(relation: Any) -> pd.DataFrame:
    """:func:`to_pandas` for code that only turns the text columns into integer codes: a DuckDB
    relation's text stays in its Arrow buffers (:func:`dbt_deid.arrow_frames.arrow_backed_frame`,
    zero-copy ``pd.ArrowDtype`` columns) instead of being copied into pandas strings; other
    engines' relations are converted by :func:`to_pandas`."""
    if isinstance(relation, pd.DataFrame):
        return relation
    if _is_duckdb(relation):
        from dbt_deid.arrow_frames import arrow_backed_frame

        return arrow_backed_frame(relation.arrow())
    return to_pandas(relation)


def string_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its column names as ``str`` (engines may hand back other types). A shallow
    copy: pandas copies on write, so the caller's frame is never changed."""
    frame = frame.copy(deep=False)
    frame.columns = [str(c) for c in frame.columns]
    return frame


def string_values(relation: Any, columns: Sequence[str]) -> pd.DataFrame:
    """:func:`to_pandas` of ``relation`` with ``str`` column names and ``columns`` as text."""
    frame = string_columns(to_pandas(relation))
    for c in columns:
        frame[c] = frame[c].astype(object).astype(str)
    return frame


def settings_md5(release_json: str) -> str:
    """The md5 of a release's settings as the publish step computes it (macro
    ``kind_settings_md5``: ``local_md5(tojson(var, sort_keys=true))``): the settings JSON the
    model was given, re-serialized with sorted keys (``json.dumps`` with dbt's defaults)."""
    text = json.dumps(json.loads(release_json), sort_keys=True)
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def bind_verdict(
    frame: pd.DataFrame, release_json: str, verdict_inputs: Any, *, model: str
) -> pd.DataFrame:
    """Review 9, G1: the verdict ``frame`` of a claims or text verdict model with the two
    columns that bind it to what it assessed (macros/gates/verdict_binding.sql):
    ``settings_md5`` (:func:`settings_md5` of the settings it ran with) and
    ``inputs_invocation_id``, the build that fingerprinted its inputs (the one invocation id of
    ``verdict_inputs``, the relation ``deid_<kind>_verdict_inputs``). The publish gate
    ``<kind>_verdict_bound`` refuses the release unless both match the settings and the
    fingerprints of now. ``verdict_inputs`` holding no or several invocation ids fails the model."""
    ids = sorted({str(v) for v in to_pandas(verdict_inputs)["invocation_id"].dropna()})
    if len(ids) != 1:
        raise DataError(f"model {model}: the fingerprints of its inputs hold {len(ids)} builds,"
                        " not one; rebuild the release with its upstream models")
    out = frame.copy()
    out["settings_md5"] = settings_md5(release_json)
    out["inputs_invocation_id"] = ids[0]
    return out
