"""Benchmark of the gate's linked check of changed records (macros/gates/linked_changes_sql.sql):
not a test.

    nice -n 19 .venv/bin/python bench/bench_linked_sql.py [--rows 300000] [--changed 0.001]
        [--versions 2 5] [--baseline cd7e34a] [--repeat 2] [--long]

A synthetic line on DuckDB in memory: ``--rows`` records over four QIs (province 13 values, age
20, gender 2, diagnosis 300), every record in each of ``--versions`` stored releases (10% of
each QI's cells suppressed at random per release, 0.1% of the records with another age in one
stored release than in the others), and a candidate in which ``--changed`` of the records have
another age; two combinations at k = 5. Three queries run on the same tables, alternated
``--repeat`` times, the best of each kept:

* the linked check of this tree (review 10 final, H1: every stored release holding the target);
* the same macro at ``--baseline`` (a git revision: the latest-state check of before H1);
* with ``--long``, this tree's long form forced (the gate's choice at these sizes is the wide
  form: the rendered SQL is the baseline's when the baseline is main c4c498b);
* the F4b count (``changed_shared_records_sql``, the query the gate runs before it on the same
  path) as a yardstick.

Prints seconds (wall; CPU of the process, DuckDB's threads included, less sensitive to a
shared machine's load) and the ratios against the baseline and the F4b count. The machine may be
shared: read the ratios.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.combined_levels_sql import linked_caller  # noqa: E402

QIS = ["province", "age", "gender", "mrdx"]
EXPR = ["i % 13", "(i // 13) % 20", "i % 2", "(i * 7919) % 300"]
COMBINATIONS = [["province", "age", "gender"], ["age", "gender", "mrdx"]]
KEY = "md5(k.key_value || '|' || cast(t.rid as varchar))"


def _tables(con: duckdb.DuckDBPyConnection, rows: int, versions: int, changed: float) -> None:
    con.execute("create or replace table deid_key as select 'kkk' as key_value")
    sel = ", ".join(f"cast(({e}) as varchar) as {q}, cast(({e}) as varchar) as {q}__generalized"
                    for q, e in zip(QIS, EXPR, strict=True))
    con.execute(f"create or replace table base as select i as rid, {sel} from range({rows}) t(i)")
    con.execute("drop table if exists store")
    for v in range(versions):
        cells = ", ".join(
            f"case when hash(t.rid, 'r{v}{q}') % 10 = 0 then null else {val} end as {q},"
            f" {val} as {q}__generalized"
            for q in QIS
            for val in [f"case when t.rid % 1000 = 7 and {v} = 0 then cast((cast(t.{q} as int)"
                        f" + 3) % 20 as varchar) else t.{q} end" if q == "age" else f"t.{q}"])
        head = "create table store as" if v == 0 else "insert into store"
        con.execute(f"{head} select {KEY} as record_key, 'r{v}' as release_id, {cells}"
                    " from base t cross join deid_key k")
    con.execute("create or replace table truth as select * from base")
    every = max(int(round(1 / changed)), 1)
    con.execute("update truth set age = cast((cast(age as int) + 7) % 20 as varchar),"
                f" age__generalized = cast((cast(age as int) + 7) % 20 as varchar)"
                f" where rid % {every} = 0")


def _caller(con: duckdb.DuckDBPyConnection, files: list[Path]) -> Any:
    return linked_caller(lambda sql: con.execute(sql).fetchall(), files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--changed", type=float, default=0.001)
    parser.add_argument("--versions", type=int, nargs="+", default=[2, 5])
    parser.add_argument("--baseline", default="cd7e34a", help="git revision of the baseline")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--long", action="store_true",
                        help="also this tree's long form, forced (the gate picks the wide form"
                             " while its per-release columns are at most 400)")
    args = parser.parse_args(argv)
    gates = REPO / "macros" / "gates"
    old = subprocess.run(["git", "-C", str(REPO), "show",
                          f"{args.baseline}:macros/gates/linked_changes_sql.sql"],
                         check=True, capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory(prefix="bench-linked-") as tmp:
        old_file = Path(tmp) / "linked_changes_sql.sql"
        old_file.write_text(old)
        con = duckdb.connect()
        cfg = {"released_qis": QIS, "missing_label": "<missing>", "record_id": "rid"}
        lv = {q: 0 for q in QIS}
        print(f"bench_linked_sql: {args.rows} records, {args.changed:.2%} changed,"
              f" DuckDB {duckdb.__version__}, baseline {args.baseline}")
        for versions in args.versions:
            _tables(con, args.rows, versions, args.changed)
            ordered = [f"r{v}" for v in range(versions)]
            levels = {r: lv for r in ordered}
            sql = {}
            for name, files in (("fixed", [gates / "linked_changes_sql.sql"]),
                                ("baseline", [old_file])):
                call = _caller(con, [*files, gates / "level_map_sql.sql",
                                     gates / "combined_releases.sql"])
                sql[name] = str(call("linked_changes_sql")(
                    cfg, "truth", "deid_key", "store", ordered, levels, lv, COMBINATIONS, 5,
                    None))
                if name == "fixed" and args.long:  # this tree's long form, forced
                    sql["long"] = str(call("linked_changes_sql")(
                        cfg, "truth", "deid_key", "store", ordered, levels, lv, COMBINATIONS,
                        5, None, True))
            sql["F4b count"] = str(call("changed_shared_records_sql")(
                cfg, "truth", "deid_key", "store", ordered, QIS))
            best: dict[str, float] = {}
            cpu: dict[str, float] = {}
            rows: dict[str, list] = {}
            for _ in range(args.repeat):
                for name, query in sql.items():
                    t, c = time.perf_counter(), time.process_time()
                    rows[name] = con.execute(query).fetchall()
                    best[name] = min(best.get(name, float("inf")), time.perf_counter() - t)
                    cpu[name] = min(cpu.get(name, float("inf")), time.process_time() - c)
            print(f"  {versions} stored versions: fixed {best['fixed']:.2f} s"
                  f" {rows['fixed']}; baseline {best['baseline']:.2f} s {rows['baseline']};"
                  f" F4b count {best['F4b count']:.2f} s; same rows:"
                  f" {sorted(rows['fixed']) == sorted(rows['baseline'])}")
            print(f"    CPU (all DuckDB threads): fixed {cpu['fixed']:.2f} s, baseline"
                  f" {cpu['baseline']:.2f} s ({cpu['fixed'] / cpu['baseline']:.2f})")
            if args.long:
                print(f"    long form (forced): {best['long']:.2f} s, CPU {cpu['long']:.2f} s"
                      f" ({cpu['long'] / cpu['baseline']:.2f} of the baseline's CPU); same rows:"
                      f" {sorted(rows['long']) == sorted(rows['baseline'])}")
            print(f"    fixed / baseline {best['fixed'] / best['baseline']:.2f};"
                  f" fixed / F4b {best['fixed'] / best['F4b count']:.2f};"
                  f" baseline / F4b {best['baseline'] / best['F4b count']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
