"""Compute a dbt Python model outside dbt, on adapters that have no dbt Python models.

dbt runs Python models only on DuckDB, Snowflake, Databricks and BigQuery (not on PostgreSQL, not
on open-source Spark: dbt-spark issue #415). The package's Python models are thin: they read
pattern-sized refs, call one glue function of the core and return a pandas frame. Here the
model's own code (``node.raw_code``, its ``model(dbt, session)`` function) is executed with a
small stand-in for dbt's ``dbt`` object: ``dbt.ref`` reads the ref'd table through the adapter's
connection into pandas, ``dbt.config.get`` reads the node's configs from the manifest (the same
YAML configs dbt would pass), and the returned frame is written back as a table through the
adapter. No logic of any model is copied; any Python model that only needs pandas runs the same
way.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import io
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.errors import DataError

#: SQL column types by pandas kind, per adapter (default: ANSI-ish names PostgreSQL accepts).
_TYPES = {
    "default": {"int": "bigint", "float": "double precision", "bool": "boolean",
                "datetime": "timestamp", "date": "date", "text": "text"},
    "spark": {"int": "bigint", "float": "double", "bool": "boolean", "datetime": "timestamp",
              "date": "date", "text": "string"},
}


class _Config:
    """``dbt.config``: calling it is a no-op (dbt reads it at parse time); ``get`` reads the
    node's config from the manifest, as dbt's compiled ``config_dict`` does."""

    def __init__(self, node: Any) -> None:
        self._node = node

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        return None

    def get(self, key: str, default: Any = None) -> Any:
        value = self._node.config.get(key, None)
        if value is None:
            value = (self._node.config._extra or {}).get(key, default) if hasattr(
                self._node.config, "_extra") else default
        return default if value is None else value


class DbtShim:
    """The ``dbt`` argument of ``model(dbt, session)``: refs, sources, configs, ``this``."""

    def __init__(self, node: Any, manifest: Any, reader: Any, this: str) -> None:
        self._node = node
        self._manifest = manifest
        self._reader = reader
        self.config = _Config(node)
        self.this = this
        self.is_incremental = False

    def _parent(self, resource: str, match: Any) -> Any:
        for uid in self._node.depends_on.nodes:
            parent = (self._manifest.nodes.get(uid) or self._manifest.sources.get(uid))
            if parent is not None and uid.split(".")[0] == resource and match(parent):
                return parent
        raise DataError(f"model {self._node.name}: cannot resolve {resource} {match.__doc__}"
                        " among its dependencies")

    def ref(self, *names: str, **kwargs: Any) -> pd.DataFrame:
        name = names[-1]
        package = names[0] if len(names) == 2 else None

        def match(node: Any) -> bool:
            return node.name == name and (package is None or node.package_name == package)
        match.__doc__ = repr(name)
        return self._reader(self._parent("model", match))

    def source(self, source_name: str, table_name: str) -> pd.DataFrame:
        def match(node: Any) -> bool:
            return node.source_name == source_name and node.name == table_name
        match.__doc__ = f"{source_name}.{table_name}"
        return self._reader(self._parent("source", match))


def run_model_code(node: Any, shim: DbtShim) -> pd.DataFrame:
    """Execute the Python model's code and return its frame (pandas)."""
    namespace: dict[str, Any] = {"__name__": f"dbt_deid_python_node_{node.name}"}
    exec(compile(node.raw_code, node.original_file_path, "exec"), namespace)  # noqa: S102
    model = namespace.get("model")
    if not callable(model):
        raise DataError(f"model {node.name}: the Python model defines no model(dbt, session)")
    out = model(shim, None)
    if isinstance(out, pd.DataFrame):
        return out
    for method in ("df", "to_pandas", "toPandas"):
        fn = getattr(out, method, None)
        if callable(fn):
            return fn()
    raise DataError(f"model {node.name}: returned {type(out).__name__}, not a data frame")


def rows_to_frame(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> pd.DataFrame:
    """Database rows as pandas with the types a DuckDB ref gives the glue (Arrow conversion of
    :mod:`dbt_deid.arrow_frames`: decimals as float64, dates as datetime64, nullable integers
    only where there are nulls, text as strings)."""
    import pyarrow as pa

    from dbt_deid.arrow_frames import arrow_to_pandas

    arrays = []
    for i, _ in enumerate(columns):
        values = [r[i] for r in rows]
        try:
            arrays.append(pa.array(values))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arrays.append(pa.array([None if v is None else str(v) for v in values]))
    arrays = [a.cast(pa.string()) if pa.types.is_null(a.type) else a for a in arrays]
    return arrow_to_pandas(pa.table(arrays, names=list(columns)))


#: PostgreSQL type OIDs whose ``COPY ... TO STDOUT (FORMAT csv)`` text reads back as the value
#: psycopg2 gives (text, varchar; int2, int4, int8; float4, float8: the same text psycopg2
#: parses, NaN and infinities included; bool): the kinds :func:`copy_csv_to_frame` parses. Any
#: other column (numeric, dates, ...) keeps the row-by-row fetch.
POSTGRES_COPY_KINDS: dict[int, str] = {25: "text", 1043: "text", 21: "int", 23: "int",
                                       20: "int", 700: "float", 701: "float", 16: "bool"}


def copy_csv_to_frame(data: bytes, columns: Sequence[str], kinds: Sequence[str]) -> pd.DataFrame:
    """A PostgreSQL ``COPY (...) TO STDOUT (FORMAT csv, ENCODING 'UTF8')`` result as the frame
    :func:`rows_to_frame` makes of the same rows fetched one by one (issue 37: the pattern
    table's 1.2 million rows took 10 s through ``fetchall`` and Python objects at 2.4M records;
    Arrow's CSV reader parses the copy in C). ``kinds`` per column: text, int, float or bool
    (:data:`POSTGRES_COPY_KINDS`). In PostgreSQL's CSV a null is an unquoted empty field and an
    empty string a quoted one: read so. A column that is null in every row is text, as
    :func:`rows_to_frame` types it; no rows gives its frame of no rows."""
    import pyarrow as pa
    from pyarrow import csv

    from dbt_deid.arrow_frames import arrow_to_pandas

    if not data:
        return rows_to_frame(columns, [])
    types = {"text": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
    # Arrow's reader needs unique names: the columns are read by position and renamed after
    names = [f"c{i}" for i in range(len(columns))]
    table = csv.read_csv(
        io.BytesIO(data),
        read_options=csv.ReadOptions(column_names=names, use_threads=False),
        # a row of one null column is an empty line: not to be skipped
        parse_options=csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=False),
        convert_options=csv.ConvertOptions(
            column_types={n: types[k] for n, k in zip(names, kinds, strict=True)},
            null_values=[""], strings_can_be_null=True, quoted_strings_can_be_null=False,
            true_values=["t"], false_values=["f"]))
    arrays = [a.cast(pa.string()) if a.null_count == len(a) else a for a in table.columns]
    return arrow_to_pandas(pa.table(arrays, names=list(columns)))


#: Spark SQL types (``DataType.typeName()``) whose Arrow form (``DataFrame.toArrow``) gives, in
#: :func:`spark_arrow_to_frame`, the frame :func:`rows_to_frame` makes of the same rows collected
#: as Python objects (dbt-spark's session cursor: ``DataFrame.collect``): text, integers (widened
#: to int64, as Python ints are), float and double (float widened to double, as Python floats
#: are; NaN stays NaN), boolean, date and the null type. Any other column (decimal, timestamps,
#: binary, nested types) keeps the row-by-row fetch.
SPARK_ARROW_TYPES: frozenset[str] = frozenset({
    "string", "byte", "short", "integer", "long", "float", "double", "boolean", "date", "void"})


def spark_arrow_to_frame(table: Any, columns: Sequence[str]) -> pd.DataFrame:
    """A Spark result fetched as Arrow (``DataFrame.toArrow()``) as the frame
    :func:`rows_to_frame` makes of the same rows fetched as Python objects (issue 37: the
    pattern table's 1.2 million rows at 2.4M records through dbt-spark's cursor, one Python
    ``Row`` per record, took most of the suppression map's 464 s). Every column must be of a
    type in :data:`SPARK_ARROW_TYPES`. As the row fetch types them: integers are int64, float
    is float64, text is ``string``, a column null in every row (or of no rows) is text."""
    import pyarrow as pa

    from dbt_deid.arrow_frames import arrow_to_pandas

    arrays = []
    for col in table.columns:
        if col.null_count == len(col):
            col = col.cast(pa.string())
        elif pa.types.is_integer(col.type):
            col = col.cast(pa.int64())
        elif pa.types.is_floating(col.type):
            col = col.cast(pa.float64())
        elif pa.types.is_large_string(col.type) or pa.types.is_string_view(col.type):
            col = col.cast(pa.string())
        arrays.append(col)
    return arrow_to_pandas(pa.table(arrays, names=list(columns)))


def column_kind(series: pd.Series) -> str:
    """The SQL kind of a frame column (int, float, bool, datetime, date, text)."""
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_integer_dtype(dtype):
        return "int"
    if pd.api.types.is_float_dtype(dtype):
        return "float"
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return "datetime"
    if pd.api.types.is_object_dtype(dtype):
        sample = series.dropna()
        if len(sample) and all(isinstance(v, _dt.date) and not isinstance(v, _dt.datetime)
                               for v in sample):
            return "date"
        if len(sample) and all(isinstance(v, (bool, np.bool_)) for v in sample):
            return "bool"
    return "text"


def _python_value(value: Any, kind: str) -> Any:
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    if kind == "bool":
        return bool(value)
    if kind == "datetime":
        return pd.Timestamp(value).to_pydatetime()
    if kind == "date":
        return value
    if isinstance(value, decimal.Decimal | np.generic):
        return value.item() if isinstance(value, np.generic) else str(value)
    return str(value)


def frame_rows(frame: pd.DataFrame, kinds: list[str]) -> list[tuple[Any, ...]]:
    """The frame's rows as Python values (None for missing)."""
    cols = [frame.iloc[:, i].astype(object).tolist() for i in range(frame.shape[1])]
    return [tuple(_python_value(v, k) for v, k in zip(row, kinds, strict=True))
            for row in zip(*cols, strict=True)] if cols else []


_ARROW_KINDS = {"int": "int64", "float": "float64", "bool": "bool_", "text": "string"}


def frame_to_arrow(frame: pd.DataFrame, kinds: list[str]) -> Any:
    """The frame as an Arrow table holding the values :func:`frame_rows` gives (issue 37: on
    Spark's session method ``createDataFrame`` of an Arrow table instead of 937,085 Python
    tuples, 167 s of the suppression map at 2.4M records): int as int64, float as float64
    (NaN is null, as :func:`frame_rows` makes it), bool, and text only where every value is a
    ``str`` (:func:`frame_rows` writes ``str(value)`` of anything else). None when a column is
    of another kind (dates, timestamps) or does not convert exactly: the caller writes the
    rows."""
    import pyarrow as pa

    arrays = []
    for i, kind in enumerate(kinds):
        series = frame.iloc[:, i]
        if kind not in _ARROW_KINDS:
            return None
        if kind == "text" and not isinstance(series.dtype, pd.StringDtype) and not (
                pd.api.types.is_object_dtype(series.dtype) and all(
                    isinstance(v, str) for v in series.dropna())):
            return None
        try:
            arrays.append(pa.array(series, type=getattr(pa, _ARROW_KINDS[kind])(),
                                   from_pandas=True))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
            return None
    return pa.table(arrays, names=[str(c) for c in frame.columns])


def sql_literal(value: Any, kind: str, dialect: str) -> str:
    """A SQL literal for ``value`` (escaping per dialect: Spark SQL also escapes backslashes)."""
    if value is None:
        return "null"
    if kind in ("int", "float"):
        return repr(value)
    if kind == "bool":
        return "true" if value else "false"
    if kind == "datetime":
        return f"timestamp '{value.isoformat(sep=' ')}'"
    if kind == "date":
        return f"date '{value.isoformat()}'"
    text = str(value).replace("'", "''")
    if dialect == "spark":
        text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def _copy_text(value: Any, kind: str) -> str | None:
    """One value of :func:`postgres_copy_bytes`'s value-by-value columns as the text PostgreSQL
    reads for it (None: null)."""
    if value is None:
        return None
    if kind == "bool":
        return "t" if value else "f"
    if kind in ("int", "float"):
        return repr(value)
    if kind in ("datetime", "date"):
        return value.isoformat()
    return str(value)


def _copy_array(series: pd.Series, kind: str) -> Any:
    """One column of :func:`postgres_copy_bytes` as an Arrow array holding the values
    :func:`frame_rows` gives (null where it gives None): integers as int64, floats as float64
    (NaN is null, as :func:`frame_rows` makes it), booleans, text whose values are all str;
    any other column (dates, timestamps, text holding other values, a value Arrow does not
    convert exactly) as the text :func:`_copy_text` writes of each value."""
    import pyarrow as pa

    arrow = {"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
    try:
        if kind == "text" and pd.api.types.infer_dtype(series, skipna=True) in ("string", "empty"):
            values = series if isinstance(series.dtype, pd.StringDtype) else series.astype(object)
            return pa.array(values, type=pa.string(), from_pandas=True)
        if kind in arrow:
            return pa.array(series, type=arrow[kind], from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
        pass
    return pa.array([_copy_text(_python_value(v, kind), kind)
                     for v in series.astype(object).tolist()], type=pa.string())


#: Bytes handed to the server per ``COPY`` data message by :func:`postgres_copy_frame`
#: (psycopg2's default is 8 KiB).
COPY_CHUNK = 1 << 20


def postgres_copy_bytes(frame: pd.DataFrame, kinds: list[str]) -> io.BytesIO:
    """The frame as UTF-8 CSV for PostgreSQL's ``COPY ... FROM STDIN (FORMAT csv)``, written by
    Arrow's CSV writer (in C, column batch by column batch) with every non-null value quoted
    and every null an unquoted empty field: so an empty string stays distinct from null, and
    each quoted field is read by its column type's input function as the unquoted text would
    be (``"1"`` into bigint is 1, ``"true"`` into boolean is true). The same rows on the server
    as the form before it writes (tests/postgres_copy_reference.py, compared in
    tests/integration/test_frame_write_postgres.py); issue 37, session 19: that form built one
    Python string per row and the whole text as a Python string before the server read it."""
    import pyarrow as pa
    from pyarrow import csv

    out = io.BytesIO()
    if frame.shape[1] == 0 or len(frame) == 0:
        return out
    table = pa.table([_copy_array(frame.iloc[:, i], kinds[i]) for i in range(frame.shape[1])],
                     names=[f"c{i}" for i in range(frame.shape[1])])
    csv.write_csv(table, out, csv.WriteOptions(include_header=False, quoting_style="all_valid"))
    out.seek(0)
    return out


def postgres_copy_frame(cursor: Any, relation: str, frame: pd.DataFrame,
                        kinds: list[str]) -> tuple[float, float]:
    """``COPY relation FROM STDIN`` of the frame on a psycopg2 ``cursor`` (the caller's
    transaction): its CSV by :func:`postgres_copy_bytes`, sent in chunks of
    :data:`COPY_CHUNK` bytes, with ``encoding 'UTF8'``: the CSV is UTF-8 whatever the
    connection's client encoding (review 20, F-C: a LATIN1 client stored 'Qu\u00e9bec' as
    'Qu\u00c3\u00a9bec'); the server converts it to the database's encoding and refuses a
    value that encoding cannot hold. Returns (seconds building the CSV, seconds of the COPY)."""
    start = time.perf_counter()
    data = postgres_copy_bytes(frame, kinds)
    built = time.perf_counter()
    if frame.shape[1] and len(frame):
        cursor.copy_expert(f"copy {relation} from stdin with (format csv, encoding 'UTF8')", data,
                           size=COPY_CHUNK)
    return built - start, time.perf_counter() - built
