"""The release history read through a dbt project's own adapter (any engine).

``python -m dbt_deid history --project-dir DIR`` parses the project with dbt (its profile and
target, as ``dbt build`` would use them), opens the adapter's connection and reads
``deid_release_history`` from the target's database and schema, where the publish models put
it (the published tables' schema). Read-only; the table holds figures, hashes and settings,
never a quasi-identifier value.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dbt_deid.errors import DataError

HISTORY = "deid_release_history"


def read_history_dbt(project_dir: str | Path, profiles_dir: str | Path | None = None,
                     target: str | None = None, schema: str | None = None) -> pd.DataFrame:
    """The history rows in the order they were recorded (``schema`` default: the target's)."""
    from dbt.cli.main import dbtRunner

    from dbt_deid.dbt_side.engine.adapter_io import AdapterFrames
    from dbt_deid.dbt_side.engine.python_nodes import rows_to_frame

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
        adapter = frames.adapter
        credentials = adapter.config.credentials
        database = getattr(credentials, "database", None)
        schema = schema or credentials.schema
        relation = adapter.get_relation(database, schema, HISTORY)
        if relation is None:
            raise DataError(f"table {schema}.{HISTORY} is missing from the {adapter.type()}"
                            f" target: no release has been attempted in this schema (--schema)")
        cursor = frames._query(f"select * from {relation}")  # noqa: SLF001
        columns = [d[0] for d in cursor.description]
        frame = rows_to_frame(columns, cursor.fetchall())
    order = [c for c in ("recorded_at", "invocation_id", "status") if c in frame.columns]
    return frame.sort_values(order, kind="stable").reset_index(drop=True)
