"""The line gate's multiset difference: ``EXCEPT ALL`` against the portable
``rows_not_in_sql`` (UNION ALL + GROUP BY, macros/gates/rows_not_in_sql.sql): not a test.

The claims and text line gates count the rows of a new version that are not rows of the
published one (multiplicity counted). ``EXCEPT ALL`` does it on PostgreSQL, DuckDB and Spark,
not on BigQuery or Snowflake; the package's default__ is a UNION ALL and a GROUP BY. This script
builds a published table of ``--rows`` claims-like rows (8 columns: integers, codes, a date as
text, an amount with NULLs, and duplicate rows) and a new version that deletes 1% of them and
adds ``--extra`` rows, then times both counts (best of ``--repeat``, alternating) on DuckDB in
memory and, when initdb/pg_ctl and psycopg2 are there, on a private PostgreSQL server
(tests/integration/postgres_server.py). It prints the counts (they must be equal), the seconds
and the ratio portable / EXCEPT ALL per engine. The machine may be shared: only the ratios of
one run are figures.

    .venv/bin/python bench/bench_rows_not_in.py [--rows 1000000] [--extra 3] [--repeat 3]
        [--engines duckdb,postgres]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.*

from tests.macro_render import macro_caller  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = ["member_id", "age_group", "sex", "year", "dsfs", "pcg", "specialty", "paydelay"]
Execute = Callable[[str], list[tuple]]


def portable_sql(left: str, right: str) -> str:
    call = macro_caller([ROOT / "macros" / "gates" / "rows_not_in_sql.sql"], lambda call: {
        "dbt_deid": SimpleNamespace(own=lambda m: m, ident=lambda n: '"' + n + '"'),
        "adapter": SimpleNamespace(dispatch=lambda name, package: call("default__" + name)),
    })
    return call("rows_not_in_sql")(left, right, COLUMNS)


def except_all_sql(left: str, right: str) -> str:
    cols = ", ".join(f'"{c}"' for c in COLUMNS)
    return (f"select count(*) from (select {cols} from {left} except all"
            f" select {cols} from {right}) as e")


def load(execute: Execute, rows: int, extra: int) -> None:
    """``published``: ``rows`` rows (every 50th duplicated); ``candidate``: 1% deleted,
    ``extra`` rows added (a duplicate of a published row beyond its count, and new rows)."""
    execute("drop table if exists published")
    execute("drop table if exists candidate")
    execute(f"""create table published as
        select i % {rows // 3} as member_id, cast(i % 9 as varchar) as age_group,
               case when i % 3 = 0 then null else cast(i % 2 as varchar) end as sex,
               'Y' || cast(1 + i % 3 as varchar) as year, i % 12 as dsfs,
               'PCG' || cast(i % 45 as varchar) as pcg,
               case when i % 7 = 0 then null else 'S' || cast(i % 13 as varchar) end as specialty,
               case when i % 11 = 0 then null else cast(i % 30 as double precision) end as paydelay
        from (select i from generate_series(1, {rows}) as g(i)
              union all select i from generate_series(1, {rows}) as g(i) where i % 50 = 0) as s""")
    execute("create table candidate as select * from published"
            " where (cast(member_id as bigint) * 7919 + dsfs) % 100 <> 0")
    if extra:
        execute(f"insert into candidate select * from published where member_id % 50 = 0"
                f" and member_id > 0 order by member_id, dsfs, pcg limit {extra}")


def best(execute: Execute, sql: str, repeat: int) -> tuple[int, float]:
    times, value = [], -1
    for _ in range(repeat):
        start = time.perf_counter()
        value = int(execute(sql)[0][0])
        times.append(time.perf_counter() - start)
    return value, min(times)


def measure(name: str, execute: Execute, args: argparse.Namespace) -> None:
    start = time.perf_counter()
    load(execute, args.rows, args.extra)
    sizes = [execute(f"select count(*) from {t}")[0][0] for t in ("published", "candidate")]
    print(f"{name}: published {sizes[0]:,} rows, candidate {sizes[1]:,} rows"
          f" (loaded in {time.perf_counter() - start:.1f} s)", flush=True)
    ours: list[float] = []
    theirs: list[float] = []
    counts = set()
    for _ in range(args.repeat):  # alternating, best of each
        n, t = best(execute, except_all_sql("candidate", "published"), 1)
        counts.add(("except all", n))
        theirs.append(t)
        n, t = best(execute, portable_sql("candidate", "published"), 1)
        counts.add(("portable", n))
        ours.append(t)
    print(f"{name}: rows not in the published table: {sorted(counts)}")
    print(f"{name}: EXCEPT ALL {min(theirs):.3f} s, rows_not_in_sql {min(ours):.3f} s,"
          f" ratio portable / EXCEPT ALL {min(ours) / min(theirs):.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--extra", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--engines", default="duckdb,postgres")
    args = parser.parse_args()
    engines = args.engines.split(",")
    if "duckdb" in engines:
        import duckdb

        con = duckdb.connect()
        measure("duckdb", lambda sql: con.execute(sql).fetchall(), args)
    if "postgres" in engines:
        from tests.integration.postgres_server import pg_bindir, start_postgres

        try:
            import psycopg2  # noqa: F401
        except ImportError:
            print("postgres: skipped (psycopg2 is not installed)")
            return
        if pg_bindir() is None:
            print("postgres: skipped (initdb/pg_ctl not found)")
            return
        base = Path(tempfile.mkdtemp(prefix="dbt_deid_bench_rows_not_in_"))
        server = start_postgres(base / "pg")
        try:
            pg = server.connect()
            pg.autocommit = True

            def run(sql: str) -> list[tuple]:
                with pg.cursor() as cur:
                    cur.execute(sql)
                    return cur.fetchall() if cur.description else []
            run("set work_mem = '256MB'")
            measure("postgres", run, args)
            pg.close()
        finally:
            server.stop()
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
