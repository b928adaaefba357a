"""Read and write pattern-sized tables through the dbt adapter's own connection.

Used by :mod:`dbt_deid.dbt_side.engine.segmented` to compute Python models on adapters without dbt
Python
models: the profile, target, credentials and schema naming are dbt's (``RuntimeConfig`` of the
last invocation, the manifest's relation names), so the frame lands exactly where dbt would put
the model's table.
"""

from __future__ import annotations

import contextlib
import io
from argparse import Namespace
from typing import Any

import pandas as pd

from dbt_deid.dbt_side.engine.python_nodes import (
    _TYPES,
    POSTGRES_COPY_KINDS,
    SPARK_ARROW_TYPES,
    DbtShim,
    column_kind,
    copy_csv_to_frame,
    frame_rows,
    frame_to_arrow,
    postgres_copy_frame,
    rows_to_frame,
    run_model_code,
    spark_arrow_to_frame,
    sql_literal,
)

#: Rows per INSERT statement on adapters without a bulk-load path.
_BATCH = 500
#: Rows per Spark task of an Arrow read (each task's batches are held whole in the driver).
_ARROW_TASK_ROWS = 50_000


def spark_arrow_read(spark: Any, sql: str,
                     task_rows: int = _ARROW_TASK_ROWS) -> pd.DataFrame | None:
    """The rows of ``sql`` on ``spark`` as Arrow, in the order the row fetch gives them
    (:func:`spark_arrow_to_frame`), or None when a column is of a type it does not read back
    exactly. One task's Arrow batches are one result in the driver's heap, uncompressed (the
    row fetch's rows travel LZ4-compressed): at 2.4M records the two scan partitions of
    deid_suppressed_patterns (1.2M rows, 25 columns) ran the 1 GB driver out of memory. So the
    rows are numbered in the query's own order (``monotonically_increasing_id``), spread over
    tasks of at most ``task_rows`` rows and put back in that order."""
    from pyspark.sql import functions as F

    df = spark.sql(sql)
    if any(f.dataType.typeName() not in SPARK_ARROW_TYPES for f in df.schema.fields):
        return None
    order = "deid_arrow_row__"
    rows = spark.sql(f"select count(*) from ({sql}) as deid_count__").collect()[0][0]
    numbered = df.withColumn(order, F.monotonically_increasing_id()).repartition(
        max(1, -(-rows // task_rows)))
    table = numbered.toArrow().sort_by(order).drop_columns([order])
    return spark_arrow_to_frame(table, df.columns)


class AdapterFrames:
    """A dbt adapter opened on the current dbt flags; ``compute(node)`` runs one Python model."""

    def __init__(self, manifest: Any) -> None:
        self.manifest = manifest
        self.adapter: Any = None
        #: (relation, rows) of every table read since the last ``compute``: the pattern-sized
        #: tables the Python step held in memory (reported by the segmented build, issue 37)
        self.reads: list[tuple[str, int]] = []
        #: how the last ``write`` spent its time, when it was measured ("" otherwise)
        self.write_detail = ""

    def __enter__(self) -> AdapterFrames:
        from dbt.adapters.factory import get_adapter, register_adapter
        from dbt.config.runtime import RuntimeConfig
        from dbt.context.providers import generate_runtime_macro_context
        from dbt.flags import get_flags
        from dbt.mp_context import get_mp_context

        flags = get_flags()  # the last dbt invocation's (same project, profile, target, vars)
        args = Namespace(
            profiles_dir=flags.PROFILES_DIR, project_dir=flags.PROJECT_DIR,
            target=getattr(flags, "TARGET", None), profile=getattr(flags, "PROFILE", None),
            threads=getattr(flags, "THREADS", None), vars=getattr(flags, "VARS", {}))
        config = RuntimeConfig.from_args(args)
        register_adapter(config, get_mp_context())
        self.adapter = get_adapter(config)
        self.adapter.set_macro_resolver(self.manifest)
        self.adapter.set_macro_context_generator(generate_runtime_macro_context)
        self._conn = self.adapter.connection_named("dbt_deid_python_nodes")
        self._conn.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._conn.__exit__(*exc)
        self.adapter.cleanup_connections()

    @property
    def dialect(self) -> str:
        return "spark" if self.adapter.type() in ("spark", "databricks") else "default"

    def relation(self, node: Any) -> Any:
        identifier = getattr(node, "alias", None) or getattr(node, "identifier", None) or node.name
        return self.adapter.Relation.create(
            database=node.database, schema=node.schema, identifier=identifier, type="table")

    def _query(self, sql: str) -> Any:
        _, cursor = self.adapter.connections.add_query(sql, auto_begin=True)
        return cursor

    def read(self, node: Any, where: str | None = None) -> pd.DataFrame:
        """The table of ``node`` as pandas; with ``where`` (an SQL condition) only its rows
        that meet it."""
        sql = f"select * from {self.relation(node)}" + (f" where {where}" if where else "")
        frame = None
        if self.adapter.type() == "postgres":
            frame = self._read_copy(sql)
        elif self._spark_session() is not None:
            frame = self._read_spark_arrow(sql)
        if frame is None:
            cursor = self._query(sql)
            columns = [d[0] for d in cursor.description]
            frame = rows_to_frame(columns, cursor.fetchall())
        self.reads.append((str(self.relation(node)), len(frame)))
        return frame

    def _read_copy(self, sql: str) -> pd.DataFrame | None:
        """PostgreSQL: the rows of ``sql`` by ``COPY (...) TO STDOUT`` as CSV, parsed by Arrow
        (:func:`copy_csv_to_frame`: the frame the row-by-row fetch gives), when every column is
        of a kind it reads back exactly; None otherwise (the caller fetches the rows)."""
        cursor = self._query(f"select * from ({sql}) as deid_read__ limit 0")
        kinds = [POSTGRES_COPY_KINDS.get(d[1]) for d in cursor.description]
        if any(k is None for k in kinds):
            return None
        columns = [d[0] for d in cursor.description]
        buffer = io.BytesIO()
        handle = self.adapter.connections.get_thread_connection().handle
        with handle.cursor() as cur:
            cur.copy_expert(f"copy ({sql}) to stdout with (format csv, encoding 'UTF8')", buffer)
        return copy_csv_to_frame(buffer.getvalue(), columns, kinds)

    def _spark_session(self) -> Any:
        """dbt-spark's session method (Spark in this process, ``local[n]`` or a cluster's
        driver): its SparkSession; None on other adapters and connection methods."""
        if self.dialect != "spark" or getattr(
                self.adapter.config.credentials, "method", None) != "session":
            return None
        from pyspark.sql import SparkSession

        # the session dbt-spark's cursor opened (its builder's getOrCreate)
        return SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()

    def _read_spark_arrow(self, sql: str) -> pd.DataFrame | None:
        """Spark session method: the rows of ``sql`` as Arrow (``DataFrame.toArrow``, the
        executors' Arrow batches; :func:`spark_arrow_to_frame`: the frame the row-by-row fetch
        gives), when every column is of a type it reads back exactly; None otherwise (the
        caller fetches the rows)."""
        return spark_arrow_read(self._spark_session(), sql)

    def write(self, node: Any, frame: pd.DataFrame) -> int:
        """Write the frame as the table of ``node``: into a table of its own name plus
        ``__dbt_deid_tmp``, which then replaces the old table, all in one transaction. When any
        step fails the transaction is rolled back before the error goes on: the old table is
        left as it was, no half-written table stays, and the connection is usable for the next
        Python model (issue 37, session 19: a failed COPY used to leave the transaction open
        and aborted, so the next model's first read failed)."""
        frame = frame.reset_index(drop=True)
        frame.columns = [str(c) for c in frame.columns]
        target = self.relation(node)
        kinds = [column_kind(frame[c]) for c in frame.columns]
        types = _TYPES[self.dialect]
        quote = self.adapter.quote
        cols = ", ".join(f"{quote(c)} {types[k]}" for c, k in zip(frame.columns, kinds,
                                                                   strict=True))
        self.write_detail = ""
        self.adapter.create_schema(target.without_identifier())
        if self.dialect == "spark":
            return self._write_spark(target, frame, kinds, cols)
        tmp = target.incorporate(path={"identifier": f"{target.identifier}__dbt_deid_tmp"})
        try:
            self._query(f"drop table if exists {tmp}")
            self._query(f"create table {tmp} ({cols})")
            self._insert(tmp, frame, kinds)
            # as dbt's table materialization on PostgreSQL: views on the old table go with it
            # (dbt rebuilds them downstream)
            self._query(f"drop table if exists {target} cascade")
            self._query(f"alter table {tmp} rename to {quote(target.identifier)}")
            self.adapter.connections.commit()
        except BaseException:
            with contextlib.suppress(Exception):  # the write's own error is the one to report
                self._rollback()
            raise
        return len(frame)

    def _rollback(self) -> None:
        """Roll back the open transaction, if any (a failed write's), on the raw connection
        too: a statement dbt did not run (the COPY) may have failed inside it."""
        try:
            self.adapter.connections.rollback_if_open()
        finally:
            if self.adapter.type() == "postgres":
                self.adapter.connections.get_thread_connection().handle.rollback()

    def _insert(self, relation: Any, frame: pd.DataFrame, kinds: list[str]) -> None:
        if not len(frame):
            return
        handle = self.adapter.connections.get_thread_connection().handle
        if self.adapter.type() == "postgres":
            with handle.cursor() as cur:
                built, copied = postgres_copy_frame(cur, str(relation), frame, kinds)
            self.write_detail = (f"its CSV built in {built:.2f}s, the server's COPY"
                                 f" {copied:.2f}s")
            return
        rows = frame_rows(frame, kinds)
        for start in range(0, len(rows), _BATCH):
            values = ", ".join(
                "(" + ", ".join(sql_literal(v, k, self.dialect) for v, k in zip(row, kinds,
                                                                              strict=True)) + ")"
                for row in rows[start:start + _BATCH])
            self._query(f"insert into {relation} values {values}")

    def _write_spark(self, target: Any, frame: pd.DataFrame, kinds: list[str],
                     cols: str) -> int:
        self._query(f"drop table if exists {target}")
        spark = self._spark_session()
        if spark is not None:
            # dbt-spark's session method runs Spark in this process: hand the rows to it
            # directly (a literal INSERT per 500 rows is slow on Spark), as one Arrow table
            # where every column converts exactly (frame_to_arrow), else as Python rows
            table = frame_to_arrow(frame, kinds)
            if table is not None:
                data = spark.createDataFrame(table)
            else:
                schema = ", ".join(f"`{c}` {_TYPES['spark'][k]}" for c, k in zip(
                    frame.columns, kinds, strict=True))
                data = spark.createDataFrame(frame_rows(frame, kinds), schema=schema)
            data.write.format("parquet").mode("overwrite").saveAsTable(
                f"{target.schema}.{target.identifier}")
            return len(frame)
        self._query(f"create table {target} ({cols}) using parquet")
        self._insert(target, frame, kinds)
        return len(frame)

    def compute(self, node: Any) -> int:
        """Run the Python model ``node`` on its refs; write its frame; return its row count."""
        self.reads = []
        shim = DbtShim(node, self.manifest, self.read, str(self.relation(node)))
        frame = run_model_code(node, shim)
        return self.write(node, frame)
