"""What the refresh's two reads of the store would cost if the store held its states (issue 32,
docs/living-release.md, "The store, one row per record state, session 19"). Not a test.

    PYTHONPATH=<worktree>/src nice -n 10 .venv/bin/python bench/bench_store_states.py \
        --keep DIR [--repeat 2]

``DIR`` is a folder kept by ``bench/bench_refresh_dbt.py --warm --keep DIR`` (its line after
version 2, ``line.duckdb``, and version 2's compiled SQL, ``v2/target/compiled``). On a copy of
that database (``DIR`` is never written), with version 2's rows deleted from the per-record
store (the store as the refresh read it: version 1 only, one row per record):

1. the **runs** a store of record states would hold at that point: one ``open`` row per record
   (its true tuple and cells, from the store's rows exactly as the refresh's ``deid_store`` CTE
   reads them), and no ``close`` row (no record has left or changed yet);
2. version 2's compiled queries of ``deid_patterns`` (the pairs, ``refresh_pairs_sql``) and
   ``deid_suppressed`` (``refresh_records_sql`` under the map), run as dbt ran them (written as
   a table), **as compiled** and **with their ``deid_states_grouped`` read from the runs**:
   a record with no ``close`` row is one run, its state without grouping (the design's reader);
   ``deid_multi_state`` is the keys of the ``close`` rows (none here); and the gate's line
   states (``line_states_sql``, its statement taken from version 2's ``v2/logs/dbt.log``) as
   logged and with the candidate joined (full outer, on record key and true tuple) with the
   runs instead of a GROUP BY of the union of both; and the store's write of version 2, as
   logged (every record appended) and as the design's two anti-joins of the candidate with the
   open runs (an ``open`` row per state not stored so, a ``close`` row per open run the
   candidate does not hold so);
3. all forms alternated ``--repeat`` times: wall and process CPU seconds (DuckDB's threads are
   the process's), best of the repeats; then the two forms' tables compared with EXCEPT ALL both
   ways (equal, or the script fails).

Only a line with one stored release (version 2 of the bench line) is read this way: the script
refuses any other (its runs would need the design's ``close`` rows and version ranges, which no
store writes yet). The machine may be shared: read the ratios of one run.
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

STORE = "main_deid_work.deid_release_records"


def log(msg: str) -> None:
    print(f"[bench_store_states {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def compiled(keep: Path, model: str) -> str:
    found = sorted((keep / "v2" / "target" / "compiled").rglob(f"{model}.sql"))
    if len(found) != 1:
        raise SystemExit(f"{model}.sql: {len(found)} compiled file(s) under"
                         f" {keep}/v2/target/compiled")
    return found[0].read_text()


def cte_span(sql: str) -> tuple[int, int, int]:
    """(start of ``with``, start of ``deid_store as (``, start of ``deid_multi_state as (``)."""
    i_store = sql.index("deid_store as (")
    i_with = sql.rindex("with", 0, i_store)
    i_multi = sql.index("deid_multi_state as (")
    return i_with, i_store, i_multi


def grouped_columns(con: duckdb.DuckDBPyConnection, sql: str) -> list[str]:
    _, i_store, i_multi = cte_span(sql)
    prefix = sql[i_store:i_multi].rstrip().rstrip(",")
    query = f"with {prefix} select * from deid_states_grouped limit 0"
    return [d[0] for d in con.execute(query).description]


def runs_select(columns: list[str]) -> str:
    """``deid_states_grouped``'s columns read from the runs (one stored release: each record's
    one run is its state; the previous version, the only stored one, holds it)."""
    out = []
    for c in columns:
        if c == "record_key" or c.endswith("__true"):
            out.append(f'"{c}"')
        elif c in ("deid_in_previous", "deid_in_1"):
            out.append(f'1 as "{c}"')
        elif c == "deid_last_version":
            out.append(f'first_version as "{c}"')
        elif m := re.fullmatch(r"(.+)__(revealed|previous|o1)", c):
            out.append(f'"{m.group(1)}__cell" as "{c}"')
        else:
            raise SystemExit(f"deid_states_grouped: a column not read from runs here: {c}")
    return "select " + ", ".join(out) + " from main_deid_work.deid_store_runs"


def with_runs(sql: str, columns: list[str]) -> str:
    _, i_store, i_multi = cte_span(sql)
    having = "having count(*) > 1"
    multi_end = sql.index(")", sql.index(having, i_multi) + len(having)) + 1
    head = sql[:i_store] + f"deid_states_grouped as ({runs_select(columns)}),\n  "
    multi = "deid_multi_state as (select record_key from main_deid_work.deid_store_closes)"
    return head + multi + sql[multi_end:]


def gate_states(keep: Path) -> str | None:
    """The gate's line states (``line_states_sql``, run by the publish step of version 2): the
    select of its ``create table``, from version 2's dbt log (None without that log)."""
    path = keep / "v2" / "logs" / "dbt.log"
    text = path.read_text() if path.exists() else ""
    found = re.search(r'create\s+table\s+\S*"deid_combined_releases__states"\s+as \(\s*', text)
    if found is None:
        log(f"no line states statement in {path}: the gate's states are not timed")
        return None
    i_with = text.index("with deid_rows as (", found.start())
    return text[i_with:text.index("\n    );", i_with)]


def gate_with_runs(con: duckdb.DuckDBPyConnection, sql: str) -> str:
    """The gate's line states with the store's part read from the runs: the candidate (one row
    per record) joined, full outer, with each record's one run on the record key and the true
    tuple (NULL equal to NULL), instead of a GROUP BY of the union of both (the same rows when
    neither side has a NULL key or a key twice: checked by the caller)."""
    i_union = sql.index("\n    union all\n    select r.record_key")
    cand = sql[len("with deid_rows as ("):i_union]
    i_rest = sql.index("\n  )\n  , deid_multi_state") + len("\n  )")
    states_cols = [d[0] for d in con.execute(
        sql[:i_rest] + " select * from deid_states limit 0").description]
    qis = [c[: -len("__generalized")] for c in states_cols if c.endswith("__generalized")]
    bits = " + ".join(f'case when "{q}__cell" is not null then {2 ** i} else 0 end'
                      for i, q in enumerate(qis))
    runs = ("select record_key, 0 as deid_cand, 1 as deid_stored, 1 as deid_prev, 1 as deid_rank,"
            f" 0 as deid_cand_nulls, {bits} as deid_prev_cells"
            + "".join(f', "{q}__cell" as "{q}", "{q}__true" as "{q}__generalized"' for q in qis)
            + " from main_deid_work.deid_store_runs")
    on = " and ".join(["c.record_key = r.record_key"] + [
        f'c."{q}__generalized" is not distinct from r."{q}__generalized"' for q in qis])
    cols = []
    for c in states_cols:
        if c == "record_key" or c.endswith("__generalized"):
            cols.append(f'coalesce(c."{c}", r."{c}") as "{c}"')
        else:
            cols.append(f'greatest(coalesce(c."{c}", r."{c}"), coalesce(r."{c}", c."{c}"))'
                        f' as "{c}"')
    states = (f"deid_states as (select {', '.join(cols)} from deid_cand_rows as c"
              f" full outer join deid_store_rows as r on {on})")
    return (f"with deid_cand_rows as ({cand}),\n  deid_store_rows as ({runs}),\n  {states}"
            + sql[i_rest:])


def store_insert(keep: Path) -> str | None:
    """Version 2's store insert (``record_release_records``: every record of the version), from
    version 2's dbt log (None without it)."""
    path = keep / "v2" / "logs" / "dbt.log"
    text = path.read_text() if path.exists() else ""
    found = re.search(r'insert into \S*"deid_release_records" \(', text)
    if found is None:
        log(f"no store insert in {path}: the writes are not timed")
        return None
    return text[found.start():text.index("\n\x1b[0m", found.start())]


def write_runs(con: duckdb.DuckDBPyConnection, cand: str, qis: list[str]) -> tuple[float, float]:
    """The design's write at version 2: an ``open`` row for each candidate state that is not an
    open run with the same true tuple and cells, a ``close`` row for each open run the candidate
    does not hold so (two anti-joins of the candidate, hashed as the gate hashes it, with the
    runs); wall and CPU seconds of both statements."""
    same = " and ".join(["r.record_key = c.record_key"] + [
        f'r."{q}__true" is not distinct from c."{q}__generalized" and'
        f' r."{q}__cell" is not distinct from c."{q}"' for q in qis])
    cols = "".join(f', "{q}__cell", "{q}__true"' for q in qis)
    vals = "".join(f', c."{q}", c."{q}__generalized"' for q in qis)
    runs = "main_deid_work.deid_store_runs"
    w0, c0 = time.perf_counter(), cpu()
    con.execute(f"insert into {runs} (record_key{cols}, first_version) select c.record_key{vals},"
                f" 2 from ({cand}) as c where not exists (select 1 from {runs} as r where {same}"
                " and r.first_version < 2)")
    con.execute(f"insert into main_deid_work.deid_store_closes select r.record_key from {runs}"
                f" as r where r.first_version < 2 and not exists (select 1 from ({cand}) as c"
                f" where {same})")
    return time.perf_counter() - w0, cpu() - c0


def timed(con: duckdb.DuckDBPyConnection, table: str, sql: str) -> tuple[float, float]:
    con.execute(f"drop table if exists {table}")
    w0, c0 = time.perf_counter(), cpu()
    con.execute(f"create table {table} as {sql}")
    return time.perf_counter() - w0, cpu() - c0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, required=True,
                    help="a folder of bench_refresh_dbt.py --keep")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--workdir", type=Path, default=None,
                    help="scratch folder (default: a temporary one)")
    args = ap.parse_args(argv)
    sqls = {m: compiled(args.keep, m) for m in ("deid_patterns", "deid_suppressed")}
    with tempfile.TemporaryDirectory(prefix="bench_store_states_", dir=args.workdir) as tmp:
        db = Path(tmp) / "release.duckdb"  # the catalog name the --warm runs compiled against
        shutil.copy(args.keep / "line.duckdb", db)
        con = duckdb.connect(str(db))
        con.execute("set threads to 2")
        versions = con.execute(f"select release_version, count(*) from {STORE}"
                               " group by 1 order by 1").fetchall()
        log(f"store rows by version: {versions}")
        if [v for v, _ in versions] != [1, 2]:
            raise SystemExit("the kept line must hold versions 1 and 2 only")
        cols = [d[0] for d in con.execute(f"select * from {STORE} limit 0").description]
        qis = [c[: -len("__generalized")] for c in cols if c.endswith("__generalized")]
        tup = ", ".join(f'"{q}", coalesce("{q}__generalized", "{q}")' for q in qis)
        one, two = (f"select record_key, {tup} from {STORE} where release_version = {v}"
                    for v in (1, 2))
        opened, closed = con.execute(
            f"select (select count(*) from (select * from ({one}) union select * from ({two})))"
            f", (select count(*) from (select * from ({one}) except select * from ({two})))"
        ).fetchone()
        after_v2 = sum(n for _, n in versions)
        print(f"  the store after version 2: {after_v2} rows; as runs: {opened} open and"
              f" {closed} close rows ({opened + closed}, {(opened + closed) / after_v2:.2f});"
              f" written by version 2: {after_v2 - versions[0][1]} rows, as runs"
              f" {opened - versions[0][1] + closed}")
        con.execute(f"delete from {STORE} where release_version = 2")
        _, i_store, i_multi = cte_span(sqls["deid_patterns"])
        pairs = sqls["deid_patterns"]
        store_cte = pairs[i_store:pairs.index("deid_states_grouped as (")].rstrip().rstrip(",")
        if "deid_in_2" in pairs or "deid_held as (" in pairs:
            raise SystemExit("the compiled pairs read more than one stored release (or the"
                             " long form)")
        t0 = time.perf_counter()
        con.execute(f"create table main_deid_work.deid_store_runs as with {store_cte} "
                    "select *, release_version as first_version from deid_store")
        con.execute("create table main_deid_work.deid_store_closes (record_key varchar)")
        n, keys, nulls = con.execute(
            "select count(*), count(distinct record_key), count(*) - count(record_key)"
            " from main_deid_work.deid_store_runs").fetchone()
        log(f"runs: {n} rows, {keys} keys, {nulls} without a key"
            f" ({time.perf_counter() - t0:.1f} s, not counted)")
        if n != keys or nulls:
            raise SystemExit("a record with two rows or a NULL key: not one run per record")
        forms = {}
        for model, sql in sqls.items():
            forms[(model, "as compiled")] = sql
            forms[(model, "states from runs")] = with_runs(sql, grouped_columns(con, sql))
        gate = gate_states(args.keep)
        if gate is not None:
            union = gate.index("\n    union all\n    select r.record_key")
            cand = gate[len("with deid_rows as ("):union]
            c_n, c_keys = con.execute(f"select count(*), count(distinct record_key) from ({cand})"
                                      ).fetchone()
            if c_n != c_keys:
                raise SystemExit("the candidate has a NULL record key or a key twice")
            sqls["line_states"] = gate
            forms[("line_states", "as compiled")] = gate
            forms[("line_states", "states from runs")] = gate_with_runs(con, gate)
        best: dict[tuple[str, str], tuple[float, float]] = {}
        insert = store_insert(args.keep) if gate is not None else None
        written = None

        def keep_best(key: tuple[str, str], w: float, c: float) -> None:
            old = best.get(key)
            best[key] = (min(w, old[0]), min(c, old[1])) if old else (w, c)

        for r in range(args.repeat):
            for (model, form), sql in forms.items():
                table = f"main_deid_work.bench_{model}_{'runs' if 'runs' in form else 'main'}"
                w, c = timed(con, table, sql)
                log(f"repeat {r + 1}: {model}, {form}: wall {w:.2f} s, CPU {c:.2f} s")
                keep_best((model, form), w, c)
            if insert is not None:
                w0, c0 = time.perf_counter(), cpu()
                con.execute(insert)
                w, c = time.perf_counter() - w0, cpu() - c0
                con.execute(f"delete from {STORE} where release_version = 2")
                log(f"repeat {r + 1}: the store write, as logged: wall {w:.2f} s, CPU {c:.2f} s")
                keep_best(("store_write", "as logged"), w, c)
                w, c = write_runs(con, cand, qis)
                written = con.execute(
                    "select (select count(*) from main_deid_work.deid_store_runs where"
                    " first_version = 2), (select count(*) from main_deid_work.deid_store_closes)"
                ).fetchone()
                con.execute("delete from main_deid_work.deid_store_runs where first_version = 2")
                con.execute("delete from main_deid_work.deid_store_closes")
                log(f"repeat {r + 1}: the store write, as runs: wall {w:.2f} s, CPU {c:.2f} s")
                keep_best(("store_write", "as runs"), w, c)
        print(f"bench_store_states: {args.keep} (version 2's refresh, the store holding version 1:"
              f" {n} rows), best of {args.repeat}")
        for model in sqls:
            a, b = best[(model, "as compiled")], best[(model, "states from runs")]
            a_t, b_t = f"main_deid_work.bench_{model}_main", f"main_deid_work.bench_{model}_runs"
            rows = con.execute(f"select count(*) from {a_t}").fetchone()[0]
            diff = con.execute(
                f"select (select count(*) from (select * from {a_t} except all"
                f" select * from {b_t})) + (select count(*) from (select * from {b_t}"
                f" except all select * from {a_t}))"
            ).fetchone()[0]
            print(f"  {model:<16} as compiled: wall {a[0]:6.2f} s, CPU {a[1]:6.2f} s;"
                  f" states from runs: wall {b[0]:6.2f} s, CPU {b[1]:6.2f} s;"
                  f" ratio wall {b[0] / a[0]:.2f}, CPU {b[1] / a[1]:.2f}; {rows} rows,"
                  f" {'the same' if diff == 0 else f'{diff} rows differ'}")
            if diff:
                raise SystemExit(f"{model}: the two forms differ")
        if written is not None:
            a, b = best[("store_write", "as logged")], best[("store_write", "as runs")]
            print(f"  {'store write':<16} as logged: wall {a[0]:6.2f} s, CPU {a[1]:6.2f} s"
                  f" ({after_v2 - versions[0][1]} rows); as runs: wall {b[0]:6.2f} s, CPU"
                  f" {b[1]:6.2f} s ({written[0]} open, {written[1]} close rows); ratio wall"
                  f" {b[0] / a[0]:.2f}, CPU {b[1] / a[1]:.2f}")
        con.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
