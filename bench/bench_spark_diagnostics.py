"""Where Spark's ``deid_diagnostics`` statement spends its time at 2.4M: not a test.

    nice -n 10 .venv/bin/python bench/bench_spark_diagnostics.py WORKDIR [--parts a,b]
        [--whole] [--check] [--against SQL]

Issue 37, session 17 (docs/performance.md, "Spark at 2.4M, session 17"). ``WORKDIR`` is a
kept ``bench/bench_engines.py --engines spark --workdir`` folder (``<WORKDIR>/spark_<rows>``
or the folder holding ``spark/`` and ``target/``). In a fresh ``local[2]`` session with the
demo profile's settings (4 shuffle partitions, 1 GB driver) the release's working tables are
read from their Parquet files as temp views, and each part of the statement
(``target/run/.../deid_diagnostics.sql``, as rendered) runs alone, with the statement's CTEs
before it: ``deid_loss_patterns``, ``cdf:1``..``cdf:3`` (one stage's risk CDF),
``deid_cdf__`` (all stages), ``deid_by__``, ``deid_summary__`` (with the exact figures),
``deid_loss__`` (the information loss). Each part's rows are written to Spark's ``noop`` sink
(every column computed: a ``count(*)`` lets Spark prune unused windows and aggregates).
``--whole`` also runs the whole select. Variants (text rewrites of the rendered SQL, for
comparison only): ``deid_loss__:once`` (the entropy CTEs cross-joined once into one CTE that
each output row reads), ``deid_loss__:unpivot`` (one row cross-joining totals, the entropy CTEs
and the heights once, spread over the output rows by a VALUES join and CASE columns),
``deid_loss__:direct`` (each QI's counts read off ``deid_suppressed``), ``cdf:N:join`` (the
smallest class per pattern by GROUP BY and shuffled hash joins instead of windows; out of
memory at 2.4M), ``cdf:N:mjoin`` (the same joins without hints: sort-merge).
``--against SQL`` (session 18): another rendered ``deid_diagnostics.sql`` (a build of another
package version at any size: the statement's text does not depend on the row count), whose
parts are named ``new:<part>`` (``new:(whole)``: the whole select), run over the same kept
tables, so that old and new alternate in one session. ``--check``: for each
``:once``/``:unpivot``/``:join``/``:mjoin`` part, the row counts and ``EXCEPT ALL`` both ways
against the rendered part; for each ``new:`` part, against the same part of the kept build's
statement. Prints each part's seconds and the number
of scans, exchanges, sorts, windows and joins in its physical plan (read before it runs).
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

# the kept build's session (run as `python bench/<script>.py`: bench/ is on the path)
from bench_spark_publish_heap import kept_build_session

TABLES = ("deid_generalized", "deid_patterns", "deid_suppressed_patterns", "deid_suppressed",
          "deid_hierarchy", "deid_gate_results")


def split_statement(sql: str) -> tuple[str, str, str]:
    """The outer ``with deid_loss_patterns as (...)``, the inner WITH list, the final select."""
    body = sql[sql.index("with deid_loss_patterns"):].replace("bench_deid_work.", "")
    outer_end = body.index("select d.*")
    outer = body[:outer_end]
    inner_start = body.index("with deid_cdf__", outer_end)
    final = body.index("  select cast('risk_cdf' as string) as diagnostic", inner_start)
    return outer, body[inner_start:final], body[final:]


def hash_join_patterns(stage_sql: str, hint: bool = True) -> str:
    """A CDF stage with its smallest class per pattern from each combination's class sizes
    (a GROUP BY) joined back to the patterns NULL-safely with a shuffled hash join, as
    duckdb__smallest_class_patterns_sql, instead of one window (shuffle and sort) per
    combination. Without ``hint`` (``cdf:N:mjoin``) Spark chooses the joins (sort-merge
    here: the shuffled hash join of ``cdf:N:join`` ran out of memory at 2.4M, session 17)."""
    windows = re.search(r"cast\(least\((.*?)\) as bigint\) as smallest_class_size", stage_sql)
    assert windows is not None
    keys = [k.split(", ") for k in re.findall(r"partition by ([^)]*)\)", windows.group(1))]
    inner = re.search(r"\(\n    (select [^\n]* group by [^\n]*)\n  \) as patterns", stage_sql)
    assert inner is not None
    all_cols = inner.group(1).split(" group by ")[1].split(", ")
    joins = "".join(
        f" inner join (select {', '.join(k)}, sum(n) as f from deid_tuples__ group by"
        f" {', '.join(k)}) as s{i} on " + " and ".join(f"s{i}.{c} <=> p.{c}" for c in k)
        for i, k in enumerate(keys, 1))
    hint = ("/*+ " + " ".join(f"SHUFFLE_HASH(s{i})" for i in range(1, len(keys) + 1)) + " */"
            if hint else "")
    body = (f"with deid_tuples__ as (select * from ({inner.group(1)}) as deid_once__"
            f" where rand(0) >= 0) select {hint} "
            + "".join(f"p.{c} as {c}, " for c in all_cols) + "p.n as n, cast(least("
            + ", ".join(f"s{i}.f" for i in range(1, len(keys) + 1))
            + ") as bigint) as smallest_class_size from deid_tuples__ as p" + joins)
    start = stage_sql.index("select * from (select ", stage_sql.index("with patterns as"))
    end = stage_sql.index(") as patterns)", start) + len(") as patterns)")
    return stage_sql[:start] + "select * from (" + body + ")" + stage_sql[end:]


def entropies_once(inner: str) -> str:
    """The information loss with every QI's entropy terms in one CTE computed once
    (``deid_entropies__``, one row) that each output row reads, instead of each of the 11
    output rows cross-joining the 10 entropy CTEs (110 references, each a copy of its plan on
    Spark). The same sums in the same order: ``eN.entropy_r + eN.entropy_s`` becomes
    ``en.rN + en.sN``."""
    count = len(re.findall(r"\n  , e\d+ as \(", inner))
    chain = "".join(f" cross join e{i}" for i in range(1, count + 1))
    cte = (", deid_entropies__ as (select * from (select " + ", ".join(
        f"e{i}.entropy_r as r{i}, e{i}.entropy_s as s{i}" for i in range(1, count + 1))
        + f" from e1{chain.replace(' cross join e1 ', ' ', 1)}) as deid_once__"
        " where rand(0) >= 0)\n")
    first_row = inner.index("  select 'province' as column_name", inner.index("deid_loss__ as ("))
    body = inner[first_row:].replace("from totals as t" + chain,
                                     "from totals as t cross join deid_entropies__ as en")
    for i in range(count, 0, -1):
        body = body.replace(f"e{i}.entropy_r + e{i}.entropy_s", f"en.r{i} + en.s{i}")
    return inner[:first_row] + cte + body


def entropies_unpivoted(inner: str) -> str:
    """The information loss's N + 1 output rows as one row (totals, each entropy CTE and the
    heights cross-joined once) spread over N + 1 rows by a join with the row numbers, each
    column a CASE of the rendered rows' expressions (the same expressions per row), instead of
    N + 1 SELECTs that each cross-join the N entropy CTEs."""
    start = inner.index("  select 'province' as column_name", inner.index("deid_loss__ as ("))
    end = inner.index(") as l\n", start)
    branches = inner[start:end].split("\n  union all\n")
    source = branches[0][branches[0].index("\n  from totals"):].strip()
    columns: dict[str, list[str]] = {}
    for i, branch in enumerate(branches):
        exprs = branch[:branch.index("\n  from totals")].strip()[len("select "):]
        for expr in re.split(r",\n    ", exprs):
            value, name = expr.rsplit(" as ", 1)
            columns.setdefault(name, []).append(f"when {i} then {value}")
    select = ",\n    ".join(f"case deid_row__.i {' '.join(whens)} end as {name}"
                             for name, whens in columns.items())
    rows = ", ".join(f"({i})" for i in range(len(branches)))
    body = (f"  select {select}\n  {source} cross join (values {rows}) as deid_row__(i)")
    return inner[:start] + body + inner[end:]


def part_query(outer: str, inner: str, part: str) -> str:
    """``select *`` of one CTE, with every CTE of the statement defined before it."""
    if part == "deid_loss_patterns":
        return outer + "select * from deid_loss_patterns"
    if part.startswith("cdf:"):  # one stage's risk CDF query alone (c1, c2, c3 as rendered)
        stage = int(part.split(":")[1])  # cdf:N:join, hash_join_patterns
        start = inner.index("select * from (", inner.index("union all", inner.index(
            f") as c{stage - 1}")) if stage > 1 else inner.index("select * from (\n  with"))
        end = inner.index(f") as c{stage}") + len(f") as c{stage}")
        stage_sql = inner[start:end]
        if part.endswith((":join", ":mjoin")):
            stage_sql = hash_join_patterns(stage_sql, hint=part.endswith(":join"))
        return outer + "select * from (" + stage_sql + ") as x"
    if part == "deid_loss__:unpivot":
        flat = entropies_unpivoted(inner)
        return outer + "select * from (" + flat + " select * from deid_loss__) as x"
    if part == "deid_loss__:once":
        once = entropies_once(inner)
        return outer + "select * from (" + once + " select * from deid_loss__) as x"
    if part == "deid_loss__:direct":  # the information loss read off the records per QI
        direct = inner.replace("from deid_loss_patterns", "from (select *, cast(1 as bigint)"
                               " as n from deid_suppressed) as deid_loss_records__")
        return outer + "select * from (" + direct + " select * from deid_loss__) as x"
    return outer + "select * from (" + inner + f" select * from {part}) as x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--parts", default="deid_loss_patterns,cdf:1,cdf:2,cdf:3,deid_cdf__,"
                        "deid_by__,deid_summary__,deid_loss__")
    parser.add_argument("--whole", action="store_true")
    parser.add_argument("--against", type=Path,
                        help="another rendered deid_diagnostics.sql (e.g. compiled by a build of"
                        " another package version): parts named new:<part> (new:(whole) for the"
                        " whole select) take it, over the same kept tables")
    parser.add_argument("--check", action="store_true",
                        help="for each cdf:N:join and deid_loss__:once part, count the rows of"
                        " EXCEPT ALL both ways"
                        " against the rendered form")
    args = parser.parse_args()
    workdir = args.workdir
    if not (workdir / "spark").exists():
        workdir = next(workdir.glob("spark_*"))
    compiled = next((workdir / "target" / "run").rglob("deid_diagnostics.sql"))
    outer, inner, final = split_statement(compiled.read_text())
    spark = kept_build_session("bench_spark_diagnostics", workdir, TABLES)
    other = split_statement(args.against.read_text()) if args.against else None

    def query_of(part: str) -> str:
        o, i, f = (other if part.startswith("new:") and other else (outer, inner, final))
        base = part.removeprefix("new:")
        if base == "(whole)":  # every column but the invocation id (compared by --check)
            return o + "select * from (" + i + f.rstrip()
        return part_query(o, i, base)

    queries = [(p, query_of(p)) for p in args.parts.split(",") if p]
    if args.whole:
        queries.append(("(whole)", query_of("(whole)")))
    for name, query in queries:
        frame = spark.sql(query)
        started = time.time()
        frame.write.format("noop").mode("overwrite").save()
        seconds = time.time() - started
        plan = frame._jdf.queryExecution().executedPlan().toString()
        counts = {op: len(re.findall(rf"\b{op}\b", plan)) for op in (
            "FileScan", "Exchange", "ReusedExchange", "Sort", "Window", "SortMergeJoin",
            "BroadcastHashJoin", "BroadcastNestedLoopJoin")}
        print(f"{name}: {seconds:.1f} s, plan {counts}", flush=True)
    checked: set[str] = set()
    for name, query in queries if args.check else []:
        if name.startswith("new:") and name not in checked:  # the same part as kept
            checked.add(name)
            a, b = spark.sql(query), spark.sql(query_of(name.removeprefix("new:")))
            print(f"{name} against the kept build's statement: rows {a.count()} / {b.count()},"
                  f" EXCEPT ALL {a.exceptAll(b).count()} / {b.exceptAll(a).count()}", flush=True)
        elif name.endswith((":join", ":mjoin", ":once", ":unpivot")) and name not in checked:
            checked.add(name)
            plain = part_query(outer, inner, name.rsplit(":", 1)[0])
            a, b = spark.sql(query), spark.sql(plain)
            print(f"{name} against the rendered form: rows {a.count()} / {b.count()}, EXCEPT"
                  f" ALL {a.exceptAll(b).count()} / {b.exceptAll(a).count()}", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
