"""Where Spark's gate table, ``deid_suppressed_patterns`` and ``deid_hierarchy`` spend their
time at 2.4M: not a test.

    nice -n 10 .venv/bin/python bench/bench_spark_gate_nodes.py WORKDIR --node NODE
        [--list] [--statements 0,3,...] [--variants name,...] [--check]

Issue 37, session 18 (docs/performance.md, "Spark gate table, suppressed patterns and
hierarchy, session 18"). ``WORKDIR`` is a kept ``bench/bench_engines.py --engines spark
--workdir`` folder (``<WORKDIR>/spark_<rows>`` or the folder holding ``spark/``, ``logs/`` and
``target/``). The node's statements are read from the build's ``logs/dbt.log`` as they ran
(the compile-time checks and gate queries of ``run_query``, then the ``create table ... as``
whose SELECT is run here), and each runs alone in a fresh ``local[2]`` session with the demo
profile's settings (kept_build_session: 4 shuffle partitions, 1 GB driver) over the build's
Parquet tables (``bench_deid_work`` and ``bench_raw``, as temp views), its rows written to
Spark's ``noop`` sink. Prints, per statement, the seconds to plan it (analysis and physical
planning), the seconds to run it and its physical plan's counts of file scans, exchanges,
joins, windows and aggregates (read before it runs). ``--list`` prints the statements only.

``--variants``: the Spark forms of session 18 as text rewrites of the rendered statement, run
after it in the same session, ``<name>`` being ``<statement index>:<form>`` (forms below);
``--check`` compares each variant's rows with the rendered statement's (row counts and
``EXCEPT ALL`` both ways). Session 19 (docs/performance.md, "Spark at 2.4M, session 19"):
``fp64`` rewrites each plain fingerprint's decimal sums as spark__fingerprint_select_sql
renders them now; ``<i>:chain`` is deid_suppressed_patterns' statement with its exact check
rendered from a package checkout's macros (exact_chained; ``--package``, default this one);
``matched``/``bmatched`` (+ ``direct``) and ``chain`` (at commit 3a5b295, see the docs) are
measured and dropped forms of the exact check.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# the kept build's session (run as `python bench/<script>.py`: bench/ is on the path)
from bench_spark_publish_heap import kept_build_session

SCHEMAS = ("bench_deid_work", "bench_raw")
_STAMP = re.compile(r"^\x1b\[0m(\d\d:\d\d:\d\d\.\d+) ")


def node_statements(log: Path, node: str) -> list[str]:
    """The SELECTs (and ``create table ... as`` SELECTs) the node ran, in order, as logged."""
    statements: list[str] = []
    current: list[str] | None = None
    for line in log.read_text(errors="replace").splitlines():
        if _STAMP.match(line):
            if current is not None:
                statements.append("\n".join(current))
            current = [] if f"On model.dbt_deid.{node}: " in line else None
        elif current is not None:
            current.append(line)
    if current is not None:
        statements.append("\n".join(current))
    out = []
    for sql in statements:
        text = sql.strip()
        created = re.match(r"create\s+(or\s+replace\s+)?table\s+\S+\s+(using\s+\S+\s+)?as\s",
                           text, re.I)
        if created:
            text = text[created.end():].strip()
        while text.startswith("--"):  # a leading comment line (dbt's depends_on)
            text = text.split("\n", 1)[1].strip() if "\n" in text else ""
        if re.match(r"(select|with)\b", text, re.I):
            for schema in (*SCHEMAS, "bench"):
                text = text.replace(schema + ".", "")
            out.append(text)
    return out


def plan_counts(frame) -> dict[str, int]:
    """The physical plan's operators (before adaptive execution re-plans it)."""
    plan = frame._jdf.queryExecution().executedPlan().toString()
    return {op: len(re.findall(rf"\b{op}\b", plan)) for op in (
        "FileScan", "Exchange", "ReusedExchange", "SortMergeJoin", "BroadcastHashJoin",
        "BroadcastNestedLoopJoin", "Window", "HashAggregate", "Expand", "Union")}


def exact_part(sql: str, cte: str) -> str:
    """deid_suppressed_patterns' statement with its final SELECT (the rows and their consistent
    counts) replaced by ``select * from <cte>``: one CTE of the exact check alone (with the
    CTEs before it), e.g. ``deid_released__``, ``base``, ``truth``, ``released``, ``keyed``,
    ``consistent``."""
    start = sql.rindex("  select r.*,")
    end = sql.rindex(") as deid_exact_columns__")
    return sql[:start] + f"  select * from {cte}\n" + sql[end:]


def hierarchy_stacked(sql: str) -> str:
    """deid_hierarchy's statement with one UNION ALL branch per source (a lookup relation, or
    a scanned column's distinct values) instead of one per (QI, level): the source read once,
    its (QI, level) rows from ``lateral view stack(...)`` over the branches' own expressions
    (spark__hierarchy_sql's ``stacked`` form, session 18)."""
    head, body = (sql.split("\n", 1) if sql.startswith("with deid_distinct_values") else ("", sql))
    body = re.sub(r"\n\s*--[^\n]*", "", body)  # dbt's trailing depends_on comment
    sources: dict[str, list[str]] = {}
    for branch in body.split("\nunion all\n"):
        m = re.fullmatch(r"select ('[^']*') as qi_name, (\d+) as level, (.*?) as original_value,"
                         r" (.*) as generalized_value from (.*)", branch.strip(), re.S)
        assert m is not None, branch[:200]
        q, level, original, generalized, source = m.groups()
        sources.setdefault(source, []).append(
            f"{q}, {level}, {original}, cast({generalized} as string)")
    parts = [
        "select deid_row__.deid_qi__ as qi_name, deid_row__.deid_level__ as level,"
        " deid_row__.deid_original__ as original_value, deid_row__.deid_generalized__ as"
        f" generalized_value from {source} lateral view stack({len(entries)}, "
        + ", ".join(entries) + ") deid_row__ as deid_qi__, deid_level__, deid_original__,"
        " deid_generalized__" for source, entries in sources.items()]
    return (head + "\n" if head else "") + "\nunion all\n".join(parts)


def rule_values_grouped(sql: str) -> str:
    """deid_hierarchy's rule-value check over the input grouped by each checked column
    (GROUPING SETS), each row weighted by its count (spark__assert_rule_values, session 18)."""
    columns = list(dict.fromkeys(re.findall(r"src_in\.(\w+) is not null", sql)))
    m = re.search(r" from (\w+) as src_in\s*$", sql)
    assert m is not None and columns
    sets = ", ".join(f"({c})" for c in columns)
    grouped = (f" from (select {', '.join(columns)}, count(*) as deid_n__ from {m.group(1)} as"
               f" s_in group by grouping sets ({sets})) as src_in")
    return sql[:m.start()].replace(" then 1 else 0 end", " then src_in.deid_n__ else 0 end") \
        + grouped


def exact_broadcast(sql: str) -> str:
    """The exact check's consistent counts with the released tuples broadcast (a hash join
    beside each true tuple's mask rows, no shuffle of them) instead of a sort-merge join."""
    anchor = "    select k.cid, "
    assert sql.count(anchor) == 1
    return sql.replace(anchor, "    select /*+ BROADCAST(r) */ k.cid, ")


_CONSISTENT = re.compile(
    r"  consistent as \(\n    select \* from \(\n    select k\.cid, (?P<ts>(?:k\.t\d+, )+)"
    r"k\.n_true, coalesce\(sum\(r\.n\), 0\) as consistent\n    from keyed as k\n"
    r"    left join released as r\n      on (?P<on>[^\n]*)\n    group by [^\n]*\)"
    r"(?P<once> as deid_once__ where rand\(0\) >= 0)\n  \)")


def exact_matched(broadcast: bool) -> Callable[[str], str]:
    """The exact check's consistent counts from the matches only (session 19): each true
    tuple's mask rows inner-joined with the released tuples (``broadcast``: with a
    ``BROADCAST(r)`` hint), summed per true tuple (a few matches per tuple instead of one row
    per tuple and mask: the grouping shuffles the matches, not every mask row), then the true
    tuples left-joined with those sums (0 where nothing matched)."""
    def rewrite(sql: str) -> str:
        m = _CONSISTENT.search(sql)
        assert m is not None, "no consistent CTE of the rendered form"
        ts = [t[2:] for t in m.group("ts").split(", ") if t]
        hint = "/*+ BROADCAST(r) */ " if broadcast else ""
        back = " and ".join(f"m.{t} <=> t.{t}" for t in ts)
        body = (
            "  matched as (\n    select * from (\n"
            f"    select {hint}k.cid, {', '.join('k.' + t for t in ts)}, sum(r.n) as consistent\n"
            "    from keyed as k\n    inner join released as r\n"
            f"      on {m.group('on')}\n"
            f"    group by k.cid, {', '.join('k.' + t for t in ts)}){m.group('once')}\n  ),\n"
            "  consistent as (\n    select * from (\n"
            f"    select t.cid, {', '.join('t.' + t for t in ts)}, t.n_true,"
            " coalesce(m.consistent, 0) as consistent\n"
            "    from truth as t\n    left join matched as m\n"
            f"      on m.cid = t.cid and {back}){m.group('once')}\n  )")
        return sql[:m.start()] + body + sql[m.end():]
    return rewrite


def exact_direct(sql: str) -> str:
    """After ``matched``/``bmatched``: the released pattern table's rows joined with the sums
    of the matches themselves (``coalesce(.., 0)`` where none), not with every true tuple:
    exact_consistent_columns_sql needs no ``n_true`` and no zero rows."""
    assert "  matched as (\n" in sql and sql.count("  left join consistent as e") >= 1
    return re.sub(r"  left join consistent as (e\d+)\n", r"  left join matched as \1\n", sql)


def _balanced(sql: str, start: int) -> int:
    """The index just past the parenthesis that closes the one at ``sql[start]``."""
    depth = 0
    for i in range(start, len(sql)):
        depth += {"(": 1, ")": -1}.get(sql[i], 0)
        if depth == 0:
            return i + 1
    raise AssertionError("unbalanced parentheses")


def fingerprint_64(sql: str) -> str:
    """Each plain fingerprint's sum of row hashes in decimal(38, 0)
    (``cast(coalesce(sum([case when P then ]cast(xxhash64(A) as decimal(38, 0))[ end]), 0) as
    string)``) as spark__fingerprint_select_sql renders it since session 19: the high and low
    32 bits of each hash summed apart in 64-bit integers, combined once in decimal(38, 0)
    (the same decimal, so the same text)."""
    head = "cast(coalesce(sum("
    out, pos, found = [], 0, 0
    while (at := sql.find(head, pos)) >= 0:
        end = _balanced(sql, at + 4)  # the outer cast(...)
        inner_end = _balanced(sql, at + len(head) - 1)  # sum(...)
        inner = sql[at + len(head):inner_end - 1]
        m = re.fullmatch(r"(case when (?P<p>.*?) then )?cast\((?P<h>xxhash64\(.*\)) as"
                         r" decimal\(38, 0\)\)(?(1) end)", inner, re.S)
        if m is None or sql[inner_end:end] != ", 0) as string)":
            out.append(sql[pos:at + len(head)])
            pos = at + len(head)
            continue
        when = (f"case when {m.group('p')} then ", " end") if m.group(1) else ("", "")
        h = m.group("h")
        out.append(sql[pos:at] + (
            f"cast(cast(cast(coalesce(sum({when[0]}shiftright({h}, 32){when[1]}), 0) as"
            f" decimal(38, 0)) * 4294967296 + cast(coalesce(sum({when[0]}({h} &"
            f" 4294967295){when[1]}), 0) as decimal(38, 0)) as decimal(38, 0)) as string)"))
        pos = end
        found += 1
    assert found, "no decimal fingerprint sum"
    return "".join(out) + sql[pos:]


def exact_chained(spark, statements: list[str], sql: str, root: Path) -> str:
    """deid_suppressed_patterns' statement with its exact check as the package checkout ``root``
    renders spark__exact_consistent_columns_sql (its macros/gates/spark_exact.sql; session 19's
    measured and dropped form is on branch s19-sparkexact, see docs/performance.md "Spark at
    2.4M, session 19": each row looked up in its combinations' released tuples, one broadcast
    join per suppression mask), the masks read as null_masks reads them
    (the node's mask query, run here) and the combinations from the statement's
    ``deid_exact_combinations``."""
    import sys
    from types import SimpleNamespace

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.macro_render import macro_caller  # noqa: PLC0415 (the package's macros)

    masks_sql = next(t for t in statements if t.startswith("select distinct case when "))
    combos = json.loads(re.search(r"cast\('(\[\[.*?\]\])' as string\) as"
                                  r" deid_exact_combinations", sql).group(1))
    cols = list(dict.fromkeys(c for b in combos for c in b))
    rows = [tuple(int(v) for v in r) for r in spark.sql(masks_sql).collect()]
    masks = [sorted({tuple(r[cols.index(c)] for c in b) for r in rows}) for b in combos]
    call = macro_caller(
        [*sorted((root / "macros" / "risk").glob("*.sql")),
         root / "macros" / "gates" / "spark_exact.sql"], lambda call: {
            "dbt_deid": SimpleNamespace(
                ident=lambda n: n, literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                spark_exact_consistent_ctes=call("spark_exact_consistent_ctes"),
                cte_computed_once=call("spark__cte_computed_once")),
            "dbt": SimpleNamespace(type_bigint=lambda: "bigint", type_string=lambda: "string"),
            "tojson": json.dumps})
    tail = str(call("spark__exact_consistent_columns_sql")(
        "deid_released__", combos, [[list(m) for m in ms] for ms in masks]))
    start = sql.index("\nselect * from (\n  with base as (")
    print(f"    chain: masks per combination {[len(m) for m in masks]}", flush=True)
    return sql[:start] + "\n" + tail


_SLICE = re.compile(r"\(select original_value, min\(generalized_value\) as deid_lo__,"
                    r" max\(generalized_value\) as deid_hi__ from (\w+) where qi_name ="
                    r" ('[^']*') and level = (\d+) group by original_value\)")


def levels_one_slice(sql: str) -> str:
    """The gate table's scan with the released levels' hierarchy slices (one grouped
    subquery of deid_hierarchy per QI) read from one CTE computed once: one scan and one
    aggregation of the hierarchy instead of one per QI."""
    found = _SLICE.findall(sql)
    assert found, "no hierarchy slice"
    hierarchy = found[0][0]
    where = " or ".join(f"(qi_name = {q} and level = {lv})" for _, q, lv in found)
    cte = (f"with deid_slices__ as (select * from (select qi_name, original_value,"
           f" min(generalized_value) as deid_lo__, max(generalized_value) as deid_hi__ from"
           f" {hierarchy} where {where} group by qi_name, original_value) as deid_once__"
           f" where rand(0) >= 0) ")
    assert sql.count("(select t0.*, ") == 1  # the checked release's subquery, as the macro
    sql = sql.replace("(select t0.*, ", "(" + cte + "select t0.*, ")
    return _SLICE.sub(lambda m: f"(select original_value, deid_lo__, deid_hi__ from"
                      f" deid_slices__ where qi_name = {m.group(2)})", sql)


def _pattern_columns(differing: str) -> list[str]:
    """The pattern columns of the gate table's differing-patterns statement (its first
    select list)."""
    m = re.match(r"select count\(\*\) as differing_patterns from \(\s*select (.*?)\s+from",
                 differing, re.S)
    assert m is not None
    return [c.strip() for c in m.group(1).split(",")]


def _weighted_select(columns: list[str], prefix: str, weight: str) -> str:
    """spark__weighted_fingerprint_select_sql's select list (pattern_rows,
    pattern_fingerprint), as the macro renders it (64-bit sums of each row hash's high and
    low 32 bits times the weight)."""
    args = ", ".join(f"{prefix}{c} is null, cast({prefix}{c} as string)" for c in columns)
    w = f"cast({weight} as bigint)"
    sums = [f"cast(coalesce(sum(shiftright({h}, 32) * {w}), 0) as string), '.',"
            f" cast(coalesce(sum(({h} & 4294967295) * {w}), 0) as string)"
            for h in (f"xxhash64({args})", f"xxhash64('dbt_deid', {args})")]
    names = "|".join(columns)
    return (f"coalesce(sum({w}), 0) as pattern_rows, md5(concat('{names}', '#',"
            f" cast(coalesce(sum({w}), 0) as string), '#',\n        {sums[0]}, ':',\n"
            f"        {sums[1]})) as pattern_fingerprint")


def gate_scan_weighted(columns: list[str]) -> Callable[[str], str]:
    """The gate table's scan (input_unchanged) with the checked release's weighted
    fingerprint over the pattern columns in it (pattern_rows, pattern_fingerprint), as the
    gate table renders it on an engine with weighted_fingerprint_select_sql."""
    def rewrite(sql: str) -> str:
        head = "select coalesce(changed_records, 0) as changed_records, row_count, fingerprint,"\
            " source_rows, source_fingerprint"
        assert sql.startswith(head)
        anchor = " as source_fingerprint\n    from "
        assert sql.count(anchor) == 1
        weighted = _weighted_select(columns, "t.",
                                    "case when t.deid_present__ = 1 then 1 else 0 end")
        sql = sql.replace(anchor, f" as source_fingerprint,\n      {weighted}\n    from ")
        return head + ", pattern_rows, pattern_fingerprint" + sql[len(head):]
    return rewrite


def patterns_fingerprint(columns: list[str]) -> str:
    """checked_patterns_problems' query when the scan took the checked release's weighted
    fingerprint: the pattern table's, weighted by n (instead of the differing-patterns
    statement, a UNION and GROUP BY of the checked release)."""
    return f"select {_weighted_select(columns, '', 'n')} from deid_suppressed_patterns"


#: session 18's Spark forms as text rewrites of a rendered statement
VARIANTS: dict[str, Callable[[str], str]] = {"stacked": hierarchy_stacked,
                                             "grouped": rule_values_grouped,
                                             "bcast": exact_broadcast,
                                             "matched": exact_matched(False),
                                             "bmatched": exact_matched(True),
                                             "direct": exact_direct,
                                             "fp64": fingerprint_64,
                                             "slices": levels_one_slice}


def stage_lines(log_dir: Path, after: int, top: int = 6) -> tuple[int, list[str]]:
    """The stages with an id above ``after`` (those of the last query), longest first, from
    Spark's event log in ``log_dir``: id, tasks, wall seconds, executor run seconds, input,
    shuffle read and write records."""
    rows = []
    last = after
    for log in (f for f in log_dir.rglob("*") if f.is_file()):
        for line in log.read_text(errors="replace").splitlines():
            if '"SparkListenerStageCompleted"' not in line:
                continue
            info = json.loads(line)["Stage Info"]
            if info["Stage ID"] <= after:
                continue
            last = max(last, info["Stage ID"])
            acc = {a.get("Name"): a.get("Value") for a in info.get("Accumulables", [])}
            wall = (info.get("Completion Time", 0) - info.get("Submission Time", 0)) / 1000
            rows.append((wall, info["Stage ID"], info["Number of Tasks"],
                         int(acc.get("internal.metrics.executorRunTime", 0)) / 1000,
                         int(acc.get("internal.metrics.input.recordsRead", 0)),
                         int(acc.get("internal.metrics.shuffle.read.recordsRead", 0)),
                         int(acc.get("internal.metrics.shuffle.write.recordsWritten", 0))))
    rows.sort(reverse=True)
    return last, [f"      stage {r[1]}: {r[2]} tasks, {r[0]:.1f} s wall, {r[3]:.1f} task s,"
                  f" input {r[4]:,}, shuffle read {r[5]:,} / write {r[6]:,} records"
                  for r in rows[:top]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--node", required=True)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--statements", default="", help="indexes (default: all)")
    parser.add_argument("--variants", default="", help="<index>:<form> or <index>, in the"
                        " order to run them (after --statements)")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--collect", action="store_true",
                        help="collect each statement's rows (the gate queries: a few rows) and"
                        " compare each variant's with its rendered statement's")
    parser.add_argument("--width", type=int, default=110)
    parser.add_argument("--package", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the package checkout whose macros render the chain variant"
                        " (default: this one)")
    parser.add_argument("--stages", action="store_true",
                        help="print each query's longest stages (task seconds, records)")
    args = parser.parse_args()
    workdir = args.workdir
    if not (workdir / "spark").exists():
        workdir = next(workdir.glob("spark_*"))
    statements = node_statements(workdir / "logs" / "dbt.log", args.node)
    if args.list:
        for i, sql in enumerate(statements):
            print(f"[{i}] {len(sql)} chars: {' '.join(sql.split())[:args.width]}")
        return
    picked = [int(i) for i in args.statements.split(",") if i]
    if not picked and not args.variants:
        picked = list(range(len(statements)))
    queries = [(str(i), statements[i]) for i in picked]
    for v in (v for v in args.variants.split(",") if v):
        if ":" not in v:  # a rendered statement between the variants (alternating)
            queries.append((v, statements[int(v)]))
            continue
        index, *forms = v.split(":")
        query = statements[int(index)]
        if forms == ["chain"]:  # rendered from this checkout's macros, once the session runs
            queries.append((v, ("chain", query)))
            continue
        for form in forms:  # variants in order; part=<cte>: one CTE of the exact check alone
            if form in ("weighted", "patfp"):  # the gate table's weighted fingerprint
                columns = _pattern_columns(next(
                    t for t in statements if t.startswith("select count(*) as differing_")))
                query = gate_scan_weighted(columns)(query) if form == "weighted" \
                    else patterns_fingerprint(columns)
            elif form.startswith("part="):
                query = exact_part(query, form[5:])
            else:
                query = VARIANTS[form](query)
        queries.append((v, query))
    events = Path(tempfile.mkdtemp(prefix="bench_spark_gate_nodes_events_"))
    spark = kept_build_session("bench_spark_gate_nodes", workdir, (), {
        "spark.ui.showConsoleProgress": "false", "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": str(events), "spark.eventLog.compress": "false",
        "spark.eventLog.rolling.enabled": "false"} if args.stages else
        {"spark.ui.showConsoleProgress": "false"})
    for schema in SCHEMAS:
        for folder in sorted((workdir / "spark" / "warehouse" / f"{schema}.db").iterdir()):
            if any(folder.glob("*.parquet")):
                spark.read.parquet(str(folder)).createOrReplaceTempView(folder.name)
    last_stage = -1
    proofs: dict[str, tuple] = {}
    results: dict[str, list[dict]] = {}
    queries = [(n, exact_chained(spark, statements, q[1], args.package)
                if isinstance(q, tuple) else q) for n, q in queries]
    for name, query in queries:
        started = time.time()
        frame = spark.sql(query)
        counts = plan_counts(frame)
        planned = time.time()
        if name.endswith((":weighted", ":patfp")):  # one row: kept for the proof below
            row = frame.collect()[0].asDict()
            proofs[name.rsplit(":", 1)[1]] = (row["pattern_rows"], row["pattern_fingerprint"])
            results[name] = [row]
        elif args.collect:  # a gate's few rows, compared below on their shared columns
            results[name] = [r.asDict() for r in frame.collect()]
        else:
            frame.write.format("noop").mode("overwrite").save()
        done = time.time()
        shown = " ".join(query.split())[:args.width]
        print(f"[{name}] plan {planned - started:.1f} s, run {done - planned:.1f} s, {counts}"
              f"\n    {shown}", flush=True)
        if args.stages:
            time.sleep(2)  # the event log's writer flushes
            last_stage, lines = stage_lines(events, last_stage)
            print("\n".join(lines), flush=True)
    if len(proofs) == 2:  # the gate's proof on the kept tables: the two must be equal
        same = "EQUAL" if proofs["weighted"] == proofs["patfp"] else "DIFFER"
        print(f"weighted fingerprints: scan {proofs['weighted']}, pattern table"
              f" {proofs['patfp']}: {same}", flush=True)
    for name, rows in results.items():  # each variant's rows against its rendered statement's
        plain = results.get(name.split(":")[0])
        if ":" in name and plain is not None:
            shared = [c for c in (rows[0] if rows else {}) if plain and c in plain[0]]
            same = sorted(repr([r[c] for c in shared]) for r in rows) == sorted(
                repr([r[c] for c in shared]) for r in plain)
            print(f"[{name}] rows on the {len(shared)} shared columns:"
                  f" {'EQUAL' if same else 'DIFFER'} to the rendered statement's", flush=True)
    checked: set[str] = set()
    for name, query in queries if args.check else []:
        forms = name.split(":")[1:]
        if any(not f.startswith("part=") for f in forms) and name not in checked \
                and not {"weighted", "patfp"} & set(forms):
            checked.add(name)
            index, *forms = name.split(":")
            plain = statements[int(index)]
            if forms[-1].startswith("part="):  # the same CTE of the rendered statement
                plain = exact_part(plain, forms[-1][5:])
            a, b = spark.sql(query), spark.sql(plain)
            print(f"[{name}] against the rendered statement: rows {a.count()} / {b.count()},"
                  f" EXCEPT ALL {a.exceptAll(b).count()} / {b.exceptAll(a).count()}",
                  flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
