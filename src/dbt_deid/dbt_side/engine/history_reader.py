"""Release tables read through a dbt project's own adapter (any engine).

``python -m dbt_deid history --project-dir DIR`` and ``summary --project-dir DIR`` parse the
project with dbt (its profile and target, as ``dbt build`` would use them), open the adapter's
connection and read the release's tables from the target's database: ``deid_release_history``
and the published tables from the target's schema (where the publish models put them), the
working tables from ``<schema>_deid_work`` (the package's default). Read-only; these tables hold
figures, hashes and settings, never a quasi-identifier value.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from dbt_deid.errors import DataError

HISTORY = "deid_release_history"


class AdapterReader:
    """Read-only queries on an open dbt adapter (the ``summary`` command's reader): table and
    column names through the adapter's own catalog calls, rows through its cursor."""

    def __init__(self, frames: Any) -> None:
        self.frames = frames
        self.adapter = frames.adapter
        credentials = self.adapter.config.credentials
        self.database = getattr(credentials, "database", None)
        self.schema: str = credentials.schema
        self.engine: str = self.adapter.type()

    def relation(self, schema: str, table: str) -> str:
        return str(self.adapter.Relation.create(database=self.database, schema=schema,
                                                identifier=table, type="table"))

    def tables(self, schemas: tuple[str, ...]) -> set[tuple[str, str]]:
        out = set()
        for schema in dict.fromkeys(schemas):
            found = self.adapter.Relation.create(database=self.database, schema=schema)
            if not self.adapter.check_schema_exists(self.database, schema):
                continue
            for rel in self.adapter.list_relations_without_caching(found):
                out.add((schema, rel.identifier))
        return out

    def columns(self, schema: str, table: str) -> set[str]:
        rel = self.adapter.get_relation(self.database, schema, table)
        return set() if rel is None else {c.name.lower() for c in
                                          self.adapter.get_columns_in_relation(rel)}

    def rows(self, sql: str) -> list[tuple]:
        return [tuple(r) for r in self.frames._query(sql).fetchall()]  # noqa: SLF001


@contextmanager
def open_project(project_dir: str | Path, profiles_dir: str | Path | None = None,
                 target: str | None = None) -> Iterator[AdapterReader]:
    """The project's adapter, connected (``dbt parse`` first: profile, target, macros)."""
    from dbt.cli.main import dbtRunner

    from dbt_deid.dbt_side.engine.adapter_io import AdapterFrames

    args = ["--log-level", "none", "parse", "--project-dir", str(project_dir)]
    if profiles_dir is not None:
        args += ["--profiles-dir", str(profiles_dir)]
    if target is not None:
        args += ["--target", target]
    parsed = dbtRunner().invoke(args)
    if not parsed.success:
        raise DataError(f"dbt could not parse the project {str(project_dir)!r}:"
                        f" {parsed.exception or 'see dbt parse'}")
    with AdapterFrames(parsed.result) as frames:
        yield AdapterReader(frames)


def read_history_dbt(project_dir: str | Path, profiles_dir: str | Path | None = None,
                     target: str | None = None, schema: str | None = None) -> pd.DataFrame:
    """The history rows in the order they were recorded (``schema`` default: the target's)."""
    from dbt_deid.dbt_side.engine.python_nodes import rows_to_frame

    with open_project(project_dir, profiles_dir, target) as reader:
        schema = schema or reader.schema
        relation = reader.adapter.get_relation(reader.database, schema, HISTORY)
        if relation is None:
            raise DataError(f"table {schema}.{HISTORY} is missing from the {reader.engine}"
                            f" target: no release has been attempted in this schema (--schema)")
        cursor = reader.frames._query(f"select * from {relation}")  # noqa: SLF001
        columns = [d[0] for d in cursor.description]
        frame = rows_to_frame(columns, cursor.fetchall())
    order = [c for c in ("recorded_at", "invocation_id", "status") if c in frame.columns]
    return frame.sort_values(order, kind="stable").reset_index(drop=True)
