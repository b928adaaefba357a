"""The PostgreSQL COPY text the Python models' writes used before session 19 (issue 37): a
reference for tests/integration/test_frame_write_postgres.py and tests/unit/test_engine_segments.py,
which compare the package's Arrow-written CSV (``postgres_copy_bytes``) with it. Not used by the
package."""

from __future__ import annotations

import io
from typing import Any

import pandas as pd

from dbt_deid.dbt_side.engine.python_nodes import _copy_text, _python_value


def _copy_field(value: Any, kind: str) -> str | None:
    """One value as a field of :func:`postgres_copy_csv` (None: null, an unquoted empty field):
    the package's ``_copy_text``, quoted for a text column."""
    text = _copy_text(value, kind)
    if text is None or kind in ("bool", "int", "float", "datetime", "date"):
        return text
    return '"' + text.replace('"', '""') + '"'


def _copy_fields(series: pd.Series, kind: str) -> Any:
    """One column's fields of :func:`postgres_copy_csv` as an Arrow string array (null where
    the field is an unquoted empty one). Text columns whose values are all str, integer and
    boolean columns are formatted by Arrow's kernels (the same text as :func:`_copy_field`:
    Arrow writes an integer as repr does, text quoted with its quotes doubled); any other
    column value by value through :func:`_copy_field`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        if kind == "text" and pd.api.types.infer_dtype(series, skipna=True) in ("string", "empty"):
            values = pa.array(series.astype(object), type=pa.string(), from_pandas=True)
            quoted = pc.replace_substring(values, '"', '""')
            return pc.binary_join_element_wise('"', quoted, '"', "")
        if kind == "int":
            return pc.cast(pa.array(series, type=pa.int64(), from_pandas=True), pa.string())
        if kind == "bool":
            return pc.if_else(pa.array(series, type=pa.bool_(), from_pandas=True), "t", "f")
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
        pass
    return pa.array([_copy_field(_python_value(v, kind), kind)
                     for v in series.astype(object).tolist()], type=pa.string())


def postgres_copy_csv(frame: pd.DataFrame, kinds: list[str]) -> io.StringIO:
    """The frame as CSV for PostgreSQL's ``COPY ... FROM STDIN (FORMAT csv)``: a null is an
    unquoted empty field, text is always quoted, so an empty string stays distinct from null.
    Built column by column with Arrow (issue 37, session 16: the suppression map's 937,085
    rows took 70 s to write at 2.4 million records, formatted field by field in Python); the
    same text as field by field (tests/unit/test_engine_segments.py)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if frame.shape[1] == 0 or len(frame) == 0:
        return io.StringIO("")
    fields = [pc.fill_null(_copy_fields(frame.iloc[:, i], kinds[i]), "")
              for i in range(frame.shape[1])]
    lines = pc.binary_join_element_wise(*fields, ",") if len(fields) > 1 else fields[0]
    if not isinstance(lines, pa.ChunkedArray):
        lines = pa.chunked_array([lines])
    return io.StringIO("\n".join(lines.to_pylist()) + "\n")
