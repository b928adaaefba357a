"""``history --project-dir`` reads the release history through the project's dbt adapter
(issue 35, item 5): on DuckDB it prints what ``--database`` prints, and on a private PostgreSQL
server (which ``--database`` cannot read) it lists the rows and shows one release."""

from __future__ import annotations

import duckdb
import pytest

from dbt_deid.tools.cli import main
from tests.integration.postgres_server import pg_bindir, start_postgres

pytestmark = pytest.mark.dbt

COLUMNS = ("release_id varchar, release_kind varchar, release_name varchar,"
           " release_version bigint, status varchar, recorded_at varchar, invocation_id varchar,"
           " published_rows bigint, settings_md5 varchar, gates_failed varchar,"
           " package_version varchar, gates_json varchar")
ROWS = [
    ("a1b2c3d4e5f60718", "discharge", "patients", 1, "published", "2026-11-26T10:00:00Z",
     "inv1", 2000, "f" * 32, "", "0.3.0", '[{"gate": "k_anonymity", "passed": true}]'),
    ("ffee0011ffee0011", "discharge", "patients", None, "refused", "2026-11-26T11:00:00Z",
     "inv2", None, "e" * 32, "max_suppression", "0.3.0",
     '[{"gate": "max_suppression", "passed": false}]'),
]


def _project(tmp_path, profile_outputs: str):
    project = tmp_path / "project"
    project.mkdir()
    (project / "dbt_project.yml").write_text(
        "name: history_reader\nversion: '1.0.0'\nconfig-version: 2\nprofile: history_reader\n")
    (project / "profiles.yml").write_text(
        "history_reader:\n  target: dev\n  outputs:\n" + profile_outputs)
    return project


def _pg_project(tmp_path, server):
    """A project whose profile's target is schema ``published`` of the private server."""
    env = server.env("published")
    return _project(tmp_path, (
        "    dev:\n      type: postgres\n"
        f"      host: '{env['DBT_DEID_PG_HOST']}'\n      port: {env['DBT_DEID_PG_PORT']}\n"
        f"      user: '{env['DBT_DEID_PG_USER']}'\n      password: ''\n"
        "      dbname: postgres\n      schema: published\n      threads: 1\n"))


def _insert_sql(table: str) -> list[str]:
    out = []
    for row in ROWS:
        values = ", ".join("null" if v is None else str(v) if isinstance(v, int)
                           else "'" + v.replace("'", "''") + "'" for v in row)
        out.append(f"insert into {table} values ({values})")
    return out


def test_history_through_the_duckdb_adapter_equals_the_file_reader(tmp_path, capsys) -> None:
    db = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(f"create table main.deid_release_history ({COLUMNS})")
        for sql in _insert_sql("main.deid_release_history"):
            con.execute(sql)
    project = _project(tmp_path, f"    dev:\n      type: duckdb\n      path: '{db}'\n")
    assert main(["history", "--database", str(db)]) == 0
    from_file = capsys.readouterr().out
    assert main(["history", "--project-dir", str(project), "--profiles-dir", str(project)]) == 0
    through_dbt = capsys.readouterr().out
    assert through_dbt == from_file
    assert "max_suppression" in through_dbt and "a1b2c3d4e5f6" in through_dbt
    assert main(["history"]) == 2
    assert "give one of them" in capsys.readouterr().err


@pytest.mark.skipif(pg_bindir() is None, reason="initdb/pg_ctl not installed")
def test_history_through_the_postgres_adapter(tmp_path, capsys) -> None:
    server = start_postgres(tmp_path / "pg")
    try:
        with server.connect() as con, con.cursor() as cur:
            cur.execute("create schema published")
            cur.execute(f"create table published.deid_release_history"
                        f" ({COLUMNS.replace('varchar', 'text')})")
            for sql in _insert_sql("published.deid_release_history"):
                cur.execute(sql)
        project = _pg_project(tmp_path, server)
        args = ["--project-dir", str(project), "--profiles-dir", str(project)]
        assert main(["history", *args]) == 0
        out = capsys.readouterr().out
        lines = out.strip().splitlines()
        assert len(lines) == 3, out  # header + two rows, in recording order
        assert "published" in lines[1] and "refused" in lines[2] and "max_suppression" in out
        assert main(["history", "show", "ffee", *args]) == 0
        shown = capsys.readouterr().out
        assert "status: refused" in shown and "package_version: 0.3.0" in shown
        assert '"gate": "max_suppression"' in shown
    finally:
        server.stop()
