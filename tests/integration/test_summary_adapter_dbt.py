"""``summary --project-dir`` reads a built release through the project's dbt adapter (issue 35,
item 5): on DuckDB it prints exactly what ``--database`` prints, and on a private PostgreSQL
server (which ``--database`` cannot read) the same figures. The release tables are written by
hand here (the columns the summary reads), so no dbt build runs."""

from __future__ import annotations

import duckdb
import pytest

from dbt_deid.tools.cli import main
from tests.integration.postgres_server import pg_bindir, start_postgres
from tests.integration.test_history_adapter_dbt import _pg_project, _project

pytestmark = pytest.mark.dbt

#: (schema suffix, table, columns, rows): "" is the published schema, "_deid_work" the working one
TABLES = [
    ("_deid_work", "deid_release_plan", "kind varchar, item int, position int,"
     " column_name varchar, setting varchar, value varchar",
     [("verified", 1, 0, "age", None, None), ("verified", 1, 1, "sex", None, None),
      ("setting", 1, 0, None, "release", "patients"),
      ("setting", 2, 0, None, "algorithm", "combinations"), ("setting", 3, 0, None, "tau", "0.2"),
      ("setting", 4, 0, None, "k", "5"), ("setting", 5, 0, None, "max_suppression", "0.05")]),
    ("_deid_work", "deid_diagnostics",
     "diagnostic varchar, combination varchar, stage varchar, classes bigint,"
     " smallest_class bigint, max_risk double precision, mean_risk double precision,"
     " share_above_tau double precision, min_consistent_exact bigint, column_name varchar,"
     " suppressed_cells bigint, share_cells_suppressed double precision,"
     " share_records_with_suppression double precision, non_uniform_entropy double precision,"
     " column_order int",
     [("risk_summary", "age+sex", "published", 12, 5, 0.2, 0.05, 0.0, 6,
       None, None, None, None, None, None),
      ("information_loss", None, None, None, None, None, None, None, None,
       "age", 3, 0.03, 0.03, 120.0, 1),
      ("information_loss", None, None, None, None, None, None, None, None,
       "sex", 0, 0.0, 0.0, 10.0, 2)]),
    ("_deid_work", "deid_gate_results", "gate varchar, passed boolean, message varchar,"
     " gate_order int",
     [("k_anonymity", True, "smallest class 5 >= k = 5", 1),
      ("max_suppression", True, "3.00% of records <= 5.00%", 2)]),
    ("", "deid_release_history", "release_name varchar, release_kind varchar, status varchar,"
     " recorded_at varchar, gates_failed varchar",
     [("patients", "discharge", "published", "2026-11-26T10:00:00Z", None)]),
    ("", "deid_published", "age varchar, sex varchar", [("[20, 30)", "F")] * 100),
]


def _sql(schema: str, text_type: str) -> list[str]:
    out = [f"create schema if not exists {schema}_deid_work"]
    for suffix, table, columns, rows in TABLES:
        out.append(f"create table {schema}{suffix}.{table}"
                   f" ({columns.replace('varchar', text_type)})")
        for row in rows:
            values = ", ".join("null" if v is None else str(v).lower() if isinstance(v, bool)
                               else str(v) if isinstance(v, int | float)
                               else "'" + v.replace("'", "''") + "'" for v in row)
            out.append(f"insert into {schema}{suffix}.{table} values ({values})")
    return out


def _check(out: str) -> None:
    assert "Release patients: algorithm combinations, tau = 0.2 (k = 5), MaxSup = 5.00%" in out
    assert "Gates: 2 of 2 pass" in out and "Last publish attempt 2026-11-26T10:00:00Z" in out
    assert "deid_published: 100 records" in out
    assert "age+sex" in out and "published" in out


def test_summary_through_the_duckdb_adapter_equals_the_file_reader(tmp_path, capsys) -> None:
    db = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(db)) as con:
        for sql in _sql("main", "varchar"):
            con.execute(sql)
    project = _project(tmp_path, f"    dev:\n      type: duckdb\n      path: '{db}'\n")
    assert main(["summary", "--database", str(db)]) == 0
    from_file = capsys.readouterr().out
    _check(from_file)
    assert main(["summary", "--project-dir", str(project), "--profiles-dir", str(project)]) == 0
    assert capsys.readouterr().out == from_file
    assert main(["summary"]) == 2
    assert "give one of them" in capsys.readouterr().err


@pytest.mark.skipif(pg_bindir() is None, reason="initdb/pg_ctl not installed")
def test_summary_through_the_postgres_adapter(tmp_path, capsys) -> None:
    server = start_postgres(tmp_path / "pg")
    try:
        with server.connect() as con, con.cursor() as cur:
            cur.execute("create schema published")
            for sql in _sql("published", "text"):
                cur.execute(sql)
        project = _pg_project(tmp_path, server)
        args = ["--project-dir", str(project), "--profiles-dir", str(project), "--target", "dev"]
        assert main(["summary", *args]) == 0
        out = capsys.readouterr().out
        _check(out)
        assert "Published table published.deid_published: 100 records" in out
    finally:
        server.stop()
