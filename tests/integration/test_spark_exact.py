"""The Spark form of the exact consistent-set check equals the default, on random tables.

``spark__exact_risk_summary_sql`` (macros/gates/spark_exact.sql) replaces, on Spark, the
default's UNION of one grouped join per suppression mask (macros/risk/) by one
pipeline over a pattern table (El Emam et al. 2011, "Measuring the Probability of
Re-identification": the consistent set of a true tuple). This renders both macros from the
package's own files with Jinja (no dbt run: ``ident``, ``literal``, ``run_query`` are
stand-ins), runs the default on DuckDB and the Spark form on a local Spark session over the
same random tables (suppressed cells, missing true values, several combinations, with and
without pruning, record-level and pattern-count inputs) and compares every output row. The
whole-release equality (DuckDB against Spark through dbt) is test_engines_release.py's.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from tests.integration.test_engines_release import _available
from tests.macro_render import macro_caller

pytestmark = [pytest.mark.engines, pytest.mark.spark]

ROOT = Path(__file__).resolve().parents[2]
MACROS = [*sorted((ROOT / "macros" / "risk").glob("*.sql")),
          ROOT / "macros" / "gates" / "spark_exact.sql"]


def _ident(name: str) -> str:
    assert re.fullmatch(r"[a-z_][a-z0-9_]*", name), name
    return name


def _literal(value: Any) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def render(form: str, run_query: Any, *args: Any, macro: str = "exact_risk_summary_sql") -> str:
    """The SQL of ``<form>__<macro>(*args)`` from the package's macro files."""
    call = macro_caller(MACROS, lambda call: {
        # the default calls the dispatcher dbt_deid.exact_consistent_sql: here its default
        "dbt_deid": SimpleNamespace(
            ident=_ident, literal=_literal, can_inspect=lambda relation: True,
            exact_consistent_sql=call("default__exact_consistent_sql"),
            null_safe_equal_sql=call("null_safe_equal_sql"), null_masks=call("null_masks"),
            spark_exact_consistent_ctes=call("spark_exact_consistent_ctes"),
            cte_computed_once=call("spark__cte_computed_once")),
        "dbt": SimpleNamespace(type_bigint=lambda: "bigint", type_string=lambda: "string"),
        "run_query": run_query, "tojson": json.dumps,
        "exceptions": SimpleNamespace(raise_compiler_error=pytest.fail)})
    return str(call(f"{form}__{macro}")(*args))


def random_table(rng: random.Random, columns: list[str], rows: int, counts: bool) -> pd.DataFrame:
    """Released values (NULL = suppressed) and true values at the released level (NULL =
    missing), few distinct values so classes are small and large, masks varied."""
    data: dict[str, list[Any]] = {"rid": list(range(rows))}
    for c in columns:
        truth = [None if rng.random() < 0.05 else rng.choice("abc"[: rng.randint(1, 3)])
                 for _ in range(rows)]
        data[c + "__generalized"] = truth
        data[c] = [None if t is None or rng.random() < 0.25 else t for t in truth]
    if counts:
        data["n"] = [rng.randint(0, 4) for _ in range(rows)]
    return pd.DataFrame(data)


@pytest.fixture(scope="module")
def spark():
    reason = _available("spark")
    if reason:
        pytest.skip(reason)
    from pyspark.sql import SparkSession

    folder = Path(tempfile.mkdtemp(prefix="dbt_deid_spark_exact_"))
    session = (SparkSession.builder.master("local[1]").appName("dbt_deid_spark_exact")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.warehouse.dir", str(folder / "warehouse"))
               .getOrCreate())
    try:
        yield session
    finally:
        session.stop()
        shutil.rmtree(folder, ignore_errors=True)


CASES = [
    # (seed, columns, combinations, rows, k, prune_k, pattern counts)
    (1, ["a", "b"], [["a", "b"]], 60, 3, None, False),
    (2, ["a", "b"], [["a", "b"]], 60, 2, 2, False),
    (3, ["a", "b", "c"], [["a", "b"], ["b", "c"], ["a", "b", "c"]], 120, 3, 3, False),
    (4, ["a", "b", "c", "d"], [["a", "b", "c", "d"], ["d"], ["a", "c"]], 150, 4, None, False),
    (5, ["a", "b", "c"], [["a", "b", "c"], ["c", "a"]], 80, 5, 5, True),
    (6, ["a", "b"], [["a"], ["a", "b"]], 0, 3, 3, False),
]


def load_case(spark, case: tuple) -> tuple[Any, Any, str | None]:
    """The case's random table as table ``rel`` in a fresh DuckDB database and as view ``rel``
    in Spark: (DuckDB connection, a run_query on it for the macros, the count column)."""
    import duckdb

    seed, columns, _combinations, rows, _k, _prune_k, counts = case
    frame = random_table(random.Random(seed), columns, rows, counts)
    con = duckdb.connect()
    con.register("frame_view", frame)
    con.execute("create table rel as select * from frame_view")
    schema = ", ".join(f"`{c}` {'bigint' if c in ('rid', 'n') else 'string'}"
                       for c in frame.columns)
    records = [tuple(None if pd.isna(v) else v for v in row)
               for row in frame.itertuples(index=False)]
    spark.createDataFrame(records, schema=schema).createOrReplaceTempView("rel")

    def duck_query(sql: str) -> Any:
        return SimpleNamespace(rows=con.execute(sql).fetchall())

    return con, duck_query, "n" if counts else None


@pytest.mark.parametrize("case", CASES, ids=[f"seed{c[0]}" for c in CASES])
def test_spark_form_equals_default(spark, case) -> None:
    _seed, _columns, combinations, rows, k, prune_k, _counts = case
    con, duck_query, count_column = load_case(spark, case)
    default_sql = render("default", duck_query, "rel", combinations, k, count_column, prune_k)
    expected = con.execute(default_sql).df()
    spark_sql = render("spark", pytest.fail, "rel", combinations, k, count_column, prune_k)
    got = spark.sql(spark_sql).toPandas()
    assert list(got.columns) == list(expected.columns)
    assert len(got) == len(combinations)
    key = ["combination"]
    got, expected = (f.sort_values(key).reset_index(drop=True).astype(object).where(f.notna(),
                                                                                   None)
                     for f in (got, expected))
    for column in expected.columns:
        left = [None if v is None else (v if isinstance(v, str) else int(v))
                for v in got[column]]
        right = [None if v is None else (v if isinstance(v, str) else int(v))
                 for v in expected[column]]
        assert left == right, (column, got, expected)
    if rows and prune_k is None:  # a check that can fail: something is below k here
        assert expected["tuples_evaluated"].sum() > 0


@pytest.mark.parametrize("case", [CASES[0], CASES[3], CASES[4]], ids=["seed1", "seed4", "seed5"])
def test_spark_form_with_targets_equals_default(spark, case) -> None:
    """Review 19, F1: the combined view by person passes its changed records as released
    records only (`target_column`); the Spark form counts the same targets as the default
    (a random 0/1 target column; without pruning, as the gate calls it)."""
    import duckdb  # noqa: F401  (load_case's connection)

    _seed, _columns, combinations, _rows, k, _prune_k, _counts = case
    con, duck_query, count_column = load_case(spark, case)
    rng = random.Random(case[0] + 100)
    flags = [1 if rng.random() < 0.3 else 0 for _ in range(case[3])]
    con.execute("create or replace table rel as select r.*, f.tgt from rel as r join"
                " (select unnest(range(?)) as rid, unnest(?) as tgt) as f using (rid)",
                [case[3], flags])
    cursor = con.execute("select * from rel")
    names = [d[0] for d in cursor.description]
    schema = ", ".join(f"`{c}` {'bigint' if c in ('rid', 'n', 'tgt') else 'string'}"
                       for c in names)
    spark.createDataFrame(cursor.fetchall(), schema=schema).createOrReplaceTempView("rel")
    default_sql = render("default", duck_query, "rel", combinations, k, count_column, None,
                         "tgt")
    expected = con.execute(default_sql).df().sort_values("combination").reset_index(drop=True)
    spark_sql = render("spark", pytest.fail, "rel", combinations, k, count_column, None, "tgt")
    got = spark.sql(spark_sql).toPandas().sort_values("combination").reset_index(drop=True)
    untargeted = con.execute(render("default", duck_query, "rel", combinations, k,
                                    count_column, None)).df()
    for column in expected.columns:
        left = [None if pd.isna(v) else (v if isinstance(v, str) else int(v))
                for v in got[column]]
        right = [None if pd.isna(v) else (v if isinstance(v, str) else int(v))
                 for v in expected[column]]
        assert left == right, (column, got, expected)
    # the flag changes what is counted (a check that can fail)
    assert expected["tuples_evaluated"].sum() < untargeted["tuples_evaluated"].sum() or \
        list(expected["records_below_k"]) != list(untargeted["records_below_k"])


@pytest.mark.parametrize("case", CASES[:4], ids=[f"seed{c[0]}" for c in CASES[:4]])
def test_spark_distribution_equals_default(spark, case) -> None:
    """deid_exact_consistent on Spark (spark__exact_consistent_distribution_sql, the same
    pipeline as the Spark gate) gives the default's distribution: per combination and size of
    the consistent set, the records."""
    combinations = case[2]
    con, duck_query, count_column = load_case(spark, case)
    macro = "exact_consistent_distribution_sql"
    expected = con.execute(render("default", duck_query, "rel", combinations, count_column,
                                  macro=macro)).fetchall()
    got = [tuple(r) for r in spark.sql(render("spark", pytest.fail, "rel", combinations,
                                              count_column, macro=macro)).collect()]
    as_ints = [(str(c), int(x), int(n)) for c, x, n in got]
    assert sorted(as_ints) == sorted((str(c), int(x), int(n)) for c, x, n in expected)
    assert len(expected) > 0


@pytest.mark.parametrize("case", CASES, ids=[f"seed{c[0]}" for c in CASES])
def test_spark_exact_columns_equal_default(spark, case) -> None:
    """The exact check as columns of the released pattern table (exact_consistent_columns_sql;
    session 13: deid_suppressed_patterns computes it once per build, the model
    deid_exact_consistent before) on Spark (one pipeline for every combination, joined back by
    the true values with <=>) gives the default's counts on every row: per verified
    combination, the released records consistent with the row's true values."""
    combinations = case[2]
    con, duck_query, count_column = load_case(spark, case)
    weight = "n" if count_column else "1"
    con.execute(f"create table pat as select *, {weight} as n__w from rel")
    con.execute("alter table pat drop column if exists n")
    con.execute("alter table pat rename column n__w to n")
    spark.sql(f"select * {'except (n)' if count_column else ''}, {weight} as n from rel"
              ).createOrReplaceTempView("pat")
    macro = "exact_consistent_columns_sql"
    masks = macro_caller(MACROS, lambda call: {
        "dbt_deid": SimpleNamespace(ident=_ident, can_inspect=lambda relation: True),
        "run_query": duck_query})("null_masks")("pat", combinations)
    columns = ", ".join(f"deid_consistent_{i}" for i in range(1, len(combinations) + 1))
    expected = con.execute(f"select rid, {columns}, deid_exact_combinations from ("
                           + render("default", duck_query, "pat", combinations, masks,
                                    macro=macro) + ") as x order by rid").fetchall()
    got = [tuple(r) for r in spark.sql(
        f"select rid, {columns}, deid_exact_combinations from ("
        + render("spark", pytest.fail, "pat", combinations, masks, macro=macro)
        + ") as x order by rid").collect()]
    assert [tuple(int(v) if not isinstance(v, str) else v for v in r) for r in got] == [
        tuple(int(v) if not isinstance(v, str) else v for v in r) for r in expected]
    assert len(expected) == case[3]
    assert json.loads(expected[0][-1]) == combinations if expected else True


FINGERPRINT = [ROOT / "macros" / "publish" / "table_fingerprint.sql"]


def render_fingerprint(form: str, listagg: Any) -> str:
    """``<form>__table_fingerprint_sql`` of ``rel`` (columns rid, a, b) from the package's file,
    with dbt's cross-database macros as plain SQL (``listagg``: the engine's)."""
    call = macro_caller(FINGERPRINT, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=_ident, literal=_literal, _row_hashes_sql=call("_row_hashes_sql"),
            _interleave=call("_interleave"), _fingerprint_count=call("_fingerprint_count"),
            _fingerprint_when=call("_fingerprint_when"),
            # the dispatched select list (table_fingerprint_sql reads it since the fingerprint
            # became additive): the form under test's own
            fingerprint_select_sql=lambda columns, prefix="", present=None,
            names=("row_count", "fingerprint"): call(f"{form}__fingerprint_select_sql")(
                columns, prefix, present, list(names))),
        "dbt": SimpleNamespace(
            type_string=lambda: "string", hash=lambda x: f"md5({x})",
            concat=lambda parts: "concat(" + ", ".join(parts) + ")",
            length=lambda x: f"length({x})", listagg=listagg)})
    return str(call(f"{form}__table_fingerprint_sql")("rel", ["rid", "a", "b"]))


def test_spark_fingerprint_is_order_independent(spark) -> None:
    """The fingerprint that binds the gate table to the input (and the published table to the
    checked release) is the same on Spark whatever order and partitioning the rows arrive in,
    and changes when one cell changes. The default form on Spark hashed the rows in arrival
    order (dbt-spark's listagg ignores ORDER BY): on the standalone cluster the gate table's
    input fingerprint and the publish step's differed and every release was refused (CI,
    2026-11-26)."""
    frame = random_table(random.Random(7), ["a", "b"], 300, counts=False)[["rid", "a", "b"]]
    schema = "rid bigint, a string, b string"

    def fingerprint(rows: pd.DataFrame, partitions: int) -> tuple:
        records = [tuple(None if pd.isna(v) else v for v in row)
                   for row in rows.itertuples(index=False)]
        spark.createDataFrame(records, schema=schema).repartition(partitions) \
            .createOrReplaceTempView("rel")
        row = spark.sql(render_fingerprint("spark", pytest.fail)).collect()[0]
        return int(row[0]), row[1]

    orders = [(frame, 1), (frame.iloc[::-1], 3), (frame.sample(frac=1, random_state=3), 4)]
    assert len({fingerprint(rows, parts) for rows, parts in orders}) == 1
    changed = frame.copy()
    changed.loc[changed.index[0], "a"] = "z"
    assert fingerprint(changed, 3) != fingerprint(frame, 3)


PATTERN_JOIN_MACROS = [ROOT / "macros" / "suppression" / "apply_suppression_sql.sql",
                       ROOT / "macros" / "suppression" / "released_patterns_sql.sql",
                       ROOT / "macros" / "suppression" / "merge_join_hint.sql",
                       ROOT / "macros" / "generalize" / "original_value_sources.sql"]


def _executed_plan(frame: Any) -> str:
    """The physical plan Spark ran ``frame`` with (after collecting it: adaptive execution's
    final plan)."""
    return str(frame._jdf.queryExecution().executedPlan().toString())


def test_spark_pattern_joins_are_sort_merge_joins(spark) -> None:
    """Issue 37 (session 14): Spark sizes a table by its files, so the suppression map and the
    pattern table (millions of rows at national scale, a few MB of Parquet) were broadcast, and
    deid_suppressed_patterns failed at 2,375,331 records ("Not enough memory to build and
    broadcast the table"). The Spark forms of released_patterns_sql and apply_suppression_sql
    join them with sort-merge joins (merge_join_hint), with the default forms' rows. The old
    code (no Spark form) ran these tiny tables' joins as BroadcastHashJoin."""
    cfg = {"record_id": "rid", "qis": [{"name": "a", "column": "a"}, {"name": "b", "column": "b"}],
           "qi_names": ["a", "b"]}
    call = macro_caller(PATTERN_JOIN_MACROS, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=_ident, literal=_literal, can_inspect=lambda relation: False,
            original_value_sources=call("original_value_sources"),
            null_safe_equal_sql=lambda *a: "true", _current_node_name=lambda: "m",
            merge_join_hint=call("spark__merge_join_hint"),
            default__released_patterns_sql=call("default__released_patterns_sql"),
            default__apply_suppression_sql=call("default__apply_suppression_sql")),
        "dbt": SimpleNamespace(type_string=lambda: "string", type_bigint=lambda: "bigint"),
        "modules": SimpleNamespace(re=re),
        "exceptions": SimpleNamespace(raise_compiler_error=pytest.fail)})
    records = [(i, a, a, b, b) for i, (a, b) in enumerate(
        [("x", "1")] * 5 + [("x", "2")] * 3 + [("y", "1")] * 4 + [(None, "1")] * 2, start=1)]
    spark.createDataFrame(records, "rid bigint, a string, a__original string, b string, "
                          "b__original string").createOrReplaceTempView("gen")
    spark.sql("select a, b, count(*) as n from gen group by a, b").createOrReplaceTempView("pat")
    spark.createDataFrame([("x", "1", 5, 1, 2, True, False), ("x", "2", 3, 1, 3, False, True),
                           ("y", "1", 4, 2, 2, True, True)],
                          "a string, b string, n bigint, rank_from bigint, rank_to bigint, "
                          "a__suppressed boolean, b__suppressed boolean"
                          ).createOrReplaceTempView("map")
    for macro, args in [("released_patterns_sql", (cfg, "pat", "map")),
                        ("apply_suppression_sql", (cfg, "gen", "map"))]:
        old, new = (spark.sql(str(call(f"{form}__{macro}")(*args)))
                    for form in ("default", "spark"))
        assert "MERGE(" in str(call(f"spark__{macro}")(*args))
        assert sorted(map(tuple, old.collect()), key=repr) == sorted(map(tuple, new.collect()),
                                                                     key=repr)
        assert "BroadcastHashJoin" in _executed_plan(old), macro
        plan = _executed_plan(new)
        assert "BroadcastHashJoin" not in plan and "SortMergeJoin" in plan, (macro, plan)


def test_merge_join_hint_refuses_an_unmatched_query() -> None:
    """A Spark form whose anchor no longer matches its default form is a compile error, not a
    silently unhinted (broadcast) query."""
    refused: list[str] = []
    call = macro_caller([ROOT / "macros" / "suppression" / "merge_join_hint.sql"], lambda call: {
        "dbt_deid": SimpleNamespace(_current_node_name=lambda: "m"),
        "modules": SimpleNamespace(re=re),
        "exceptions": SimpleNamespace(raise_compiler_error=refused.append)})
    sql = "select p.a from t as p join u as m on m.a = p.a"
    hinted = str(call("spark__merge_join_hint")(sql, r"\b(select)(?=\s+p\.)", ["p"], 1))
    assert "select /*+ MERGE(p) */ p.a" in hinted
    assert not refused
    call("spark__merge_join_hint")(sql, r"\b(select)(?=\s+q\.)", ["p"], 1)
    assert refused and "found 0 SELECT(s)" in refused[0]
    assert call("default__merge_join_hint")(sql, "x", ["p"], 3) == sql


def test_spark_publish_join_is_a_sort_merge_join(spark) -> None:
    """Issue 37 (session 17): the publish step's candidate joins the input snapshot
    (deid_input) with the checked release (deid_suppressed) record by record. Spark sizes
    deid_input by its files scaled to the two columns read (5.9 MiB at 2,375,331 records, under
    spark.sql.autoBroadcastJoinThreshold's 10 MB), so it broadcast 2.4 million rows, and with
    the build's heap in use the 1 GB driver ran out of memory ("Not enough memory to build and
    broadcast the table": two whole builds refused, nothing published). spark__publish_sql is
    the default form with a MERGE hint on its outer SELECT: a sort-merge join, which spills;
    the distinct-value lookups keep their own plans; the rows are the same. The old code (no
    Spark form: the default on Spark) ran this join as BroadcastHashJoin."""
    cfg = {"record_id": "rid"}
    lookup = SimpleNamespace(
        exprs={"a": "lk.f"},
        joins=["left join (select distinct a as v, upper(a) as f from chk) as lk on lk.v = s.a"])
    call = macro_caller([ROOT / "macros" / "publish" / "publish_sql.sql",
                         ROOT / "macros" / "suppression" / "merge_join_hint.sql"],
                        lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=_ident, release_snapshot=lambda: "snap",
            published_value_kinds=lambda cfg: {},
            _published_items=lambda cfg: [["qi", "a"], ["pass", "p"]],
            published_value_lookup=lambda *args: lookup,
            merge_join_hint=call("spark__merge_join_hint"), _current_node_name=lambda: "m",
            default__publish_sql=call("default__publish_sql")),
        "dbt": SimpleNamespace(type_string=lambda: "string"),
        "modules": SimpleNamespace(re=re),
        "exceptions": SimpleNamespace(raise_compiler_error=pytest.fail)})
    spark.createDataFrame([(i, f"p{i}") for i in range(1, 9)],
                          "rid bigint, p string").createOrReplaceTempView("snap")
    spark.createDataFrame([(i, None if i % 3 == 0 else "xy"[i % 2]) for i in range(1, 9)],
                          "rid bigint, a string").createOrReplaceTempView("chk")
    old_sql, new_sql = (str(call(f"{form}__publish_sql")(cfg, "chk"))
                        for form in ("default", "spark"))
    assert new_sql.lstrip().startswith("select /*+ MERGE(src, s) */ ")
    assert new_sql.count("MERGE(") == 1
    old, new = spark.sql(old_sql), spark.sql(new_sql)
    assert sorted(map(tuple, new.collect()), key=repr) == sorted(
        map(tuple, old.collect()), key=repr) and len(new.collect()) == 8
    # the join of the records on the record id, in adaptive execution's final plan (the
    # executed plan's text also holds the initial plan, after "== Initial Plan ==")
    record_join = r"(\w+Join) \[rid#\d+L\], \[rid#\d+L\], Inner"
    final_old, final_new = (_executed_plan(f).split("== Initial Plan ==")[0] for f in (old, new))
    assert re.findall(record_join, final_old) == ["BroadcastHashJoin"], final_old
    assert re.findall(record_join, final_new) == ["SortMergeJoin"], final_new
    assert "BroadcastHashJoin" not in "".join(re.findall(record_join, _executed_plan(new)))


def test_spark_exact_columns_plan_the_pipeline_once(spark) -> None:
    """Issue 37 (session 15): Spark inlines a deterministic CTE into each of its references, so
    the exact check's columns (one left join of `consistent` per verified combination, each
    with its own `cid` filter pushed down) computed the pattern grouping `base` and the
    released tuples once per reference and per combination (deid_suppressed_patterns 504 s at
    2,375,331 records, 8x DuckDB's). With cte_computed_once (a filter that keeps every row but
    is not deterministic) Spark plans each shared CTE once and its references read one
    shuffle: fewer tasks run, same rows. The old form (the CTE bodies as they are:
    default__cte_computed_once) ran 23 tasks here, this one 17."""
    case = CASES[2]  # three combinations, several masks
    con, duck_query, _ = load_case(spark, case)
    spark.sql("select *, 1 as n from rel").createOrReplaceTempView("pat")
    con.execute("create table pat as select *, 1 as n from rel")
    combinations = case[2]
    masks = macro_caller(MACROS, lambda call: {
        "dbt_deid": SimpleNamespace(ident=_ident, can_inspect=lambda relation: True),
        "run_query": duck_query})("null_masks")("pat", combinations)
    tracker = spark.sparkContext.statusTracker()

    def run(once: str) -> tuple[list[tuple], int]:
        call = macro_caller(MACROS, lambda call: {
            "dbt_deid": SimpleNamespace(
                ident=_ident, literal=_literal,
                spark_exact_consistent_ctes=call("spark_exact_consistent_ctes"),
                cte_computed_once=call(f"{once}__cte_computed_once")),
            "dbt": SimpleNamespace(type_bigint=lambda: "bigint", type_string=lambda: "string"),
            "tojson": json.dumps,
            "exceptions": SimpleNamespace(raise_compiler_error=pytest.fail)})
        group = f"dbt_deid_once_{once}"
        spark.sparkContext.setJobGroup(group, group)
        try:
            rows = sorted(map(tuple, spark.sql(str(call("spark__exact_consistent_columns_sql")(
                "pat", combinations, masks))).collect()), key=repr)
        finally:
            spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
        stages = [s for j in tracker.getJobIdsForGroup(group)
                  for s in tracker.getJobInfo(j).stageIds]
        return rows, sum(tracker.getStageInfo(s).numCompletedTasks for s in stages
                         if tracker.getStageInfo(s))

    (old_rows, old_tasks), (new_rows, new_tasks) = run("default"), run("spark")
    assert new_rows == old_rows and len(new_rows) == case[3]
    assert new_tasks < old_tasks, (old_tasks, new_tasks)


def test_spark_arrow_read_equals_the_row_fetch(spark) -> None:
    """The Python steps' reads on Spark's session method (adapter_io ``_read_spark_arrow``,
    issue 37): the frame of ``toArrow`` equals, exactly and with its dtypes, the frame of the
    rows collected one by one as dbt-spark's session cursor fetches them (``collect``), on
    every Spark type the Arrow read takes: NULL beside empty text, NaN and infinities, a
    column null in every row, nulls in integer and boolean columns, narrow integers, float,
    dates, the null type; and on no rows. A type it does not take (decimal, timestamp) is
    refused, so the caller keeps the row fetch."""
    from dbt_deid.dbt_side.engine.adapter_io import spark_arrow_read
    from dbt_deid.dbt_side.engine.python_nodes import (
        SPARK_ARROW_TYPES,
        rows_to_frame,
        spark_arrow_to_frame,
    )

    spark.sql("""
        create or replace temporary view arrow_read_case as select * from values
          ('a', '', cast(1 as tinyint), cast(2 as smallint), 3, cast(4 as bigint),
           cast(1.5 as float), cast('NaN' as double), true, date'2020-02-29',
           cast(null as string), null, cast(null as bigint), 'é€', cast(7 as bigint)),
          (null, 'x', cast(null as tinyint), cast(-2 as smallint), null,
           cast(9007199254740993 as bigint), cast(null as float), cast('Infinity' as double),
           null, null, cast(null as string), null, cast(null as bigint), '', null),
          ('', null, cast(-128 as tinyint), cast(null as smallint), -3, cast(null as bigint),
           cast(-0.1 as float), cast(null as double), false, date'1970-01-01',
           cast(null as string), null, cast(null as bigint), 'a,"b"\nc', cast(8 as bigint))
          as t(qi_a, qi_b, n1, n2, n4, n8, f4, f8, flag, day, all_null, void_col, null_int,
               odd_text, counts)""")
    for sql in ("select * from arrow_read_case order by counts nulls first",
                "select * from arrow_read_case where false",
                "select qi_a, count(*) as n from arrow_read_case group by qi_a order by qi_a"):
        df = spark.sql(sql)
        assert all(f.dataType.typeName() in SPARK_ARROW_TYPES for f in df.schema.fields), sql
        fetched = rows_to_frame(df.columns, df.collect())
        arrow = spark_arrow_to_frame(df.toArrow(), df.columns)
        pd.testing.assert_frame_equal(arrow, fetched, check_exact=True)
        assert list(arrow.dtypes) == list(fetched.dtypes), sql
        # the read itself: rows numbered, spread over tasks of one row, put back in order
        pd.testing.assert_frame_equal(spark_arrow_read(spark, sql, task_rows=1), fetched,
                                      check_exact=True)
    # many scan partitions, several rows per task: the row fetch's order
    spark.range(0, 5000, 1, 7).selectExpr(
        "id", "cast(id * 7919 % 1000 as string) as t").createOrReplaceTempView("arrow_read_many")
    df = spark.sql("select * from arrow_read_many")
    pd.testing.assert_frame_equal(
        spark_arrow_read(spark, "select * from arrow_read_many", task_rows=300),
        rows_to_frame(df.columns, df.collect()), check_exact=True)
    kept = spark.sql("select cast(1.5 as decimal(10, 2)) as d, current_timestamp() as t")
    assert [f.dataType.typeName() in SPARK_ARROW_TYPES for f in kept.schema.fields] == [
        False, False]


def test_spark_arrow_write_equals_the_row_write(spark) -> None:
    """The Python steps' writes on Spark's session method (adapter_io ``_write_spark``, issue
    37): a frame handed to Spark as one Arrow table (``frame_to_arrow``) gives the same table,
    column types and rows, as its rows handed over one by one (``frame_rows``): NaN and nulls
    written as NULL, infinities kept, NULL beside empty text, nullable integers and booleans,
    a column null in every row, no rows. A frame it cannot carry exactly (dates, a text
    column holding numbers) gives None, so the caller writes the rows."""
    import datetime as dt

    from dbt_deid.dbt_side.engine.python_nodes import (
        _TYPES,
        column_kind,
        frame_rows,
        frame_to_arrow,
    )

    frame = pd.DataFrame({
        "qi": pd.array(["a", None, "", "é,\"x\"\n"], dtype="str"),
        "obj_text": pd.Series(["x", None, float("nan"), ""], dtype=object),
        "n": pd.array([1, None, -3, 2**62], dtype="Int64"),
        "m": [1, 2, 3, 4],
        "f": [1.5, float("nan"), float("inf"), -0.0],
        "flag": pd.array([True, None, False, True], dtype="boolean"),
        "b": [True, False, True, False],
        "nothing": pd.Series([None] * 4, dtype=object),
    })
    for case in (frame, frame.iloc[:0]):
        kinds = [column_kind(case[c]) for c in case.columns]
        table = frame_to_arrow(case, kinds)
        assert table is not None
        schema = ", ".join(f"`{c}` {_TYPES['spark'][k]}" for c, k in zip(
            case.columns, kinds, strict=True))
        by_rows = spark.createDataFrame(frame_rows(case, kinds), schema=schema)
        by_arrow = spark.createDataFrame(table)
        assert by_arrow.schema == by_rows.schema
        assert by_arrow.collect() == by_rows.collect()
    dated = pd.DataFrame({"d": [dt.date(2020, 1, 1)]})
    assert frame_to_arrow(dated, [column_kind(dated["d"])]) is None
    mixed = pd.DataFrame({"t": pd.Series(["a", 1], dtype=object)})
    assert frame_to_arrow(mixed, ["text"]) is None


LOSS_MACROS = [ROOT / "macros" / "risk" / "information_loss_grouped_sql.sql",
               ROOT / "macros" / "risk" / "information_loss_rows_sql.sql",
               ROOT / "macros" / "risk" / "cte_computed_once.sql",
               ROOT / "macros" / "generalize" / "original_value_sources.sql"]
#: three released QIs, two of them (a, c) released from one source column: c reads a__original
LOSS_CFG = {"qis": [{"name": "a", "column": "x", "level": 1}, {"name": "b", "column": "y",
                                                               "level": 0},
                    {"name": "c", "column": "x", "level": 2}],
            "released_qis": ["a", "b", "c"]}


def render_information_loss(form: str, *args: Any) -> str:
    """information_loss_grouped_sql with ``<form>__information_loss_rows_sql`` for its rows."""
    call = macro_caller(LOSS_MACROS, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=_ident, literal=_literal, type_double=lambda: "double",
            original_value_sources=call("original_value_sources"),
            cte_computed_once=call("spark__cte_computed_once"),
            information_loss_rows_sql=call(f"{form}__information_loss_rows_sql")),
        "dbt": SimpleNamespace(type_bigint=lambda: "bigint", type_float=lambda: "float")})
    return str(call("information_loss_grouped_sql")(LOSS_CFG, *args))


@pytest.mark.parametrize("seed,rows", [(11, 200), (12, 40), (13, 6)])
def test_spark_information_loss_rows_equal_default(spark, seed: int, rows: int) -> None:
    """Issue 37 (session 17): the information loss's N + 1 rows (El Emam et al. 2011,
    "Measuring Information Loss": suppressed cells, non-uniform entropy, precision) were N + 1
    SELECTs that each cross-join totals, the N entropy CTEs and the heights; Spark plans each
    reference as a copy of the CTE's plan (at 10 QIs in deid_diagnostics: 242 file scans, 1,265
    exchanges). spark__information_loss_rows_sql reads them once as one row, unpivoted by a
    VALUES join and CASE columns with the default's expressions term for term: the same rows
    (column types, and every value exactly, doubles included: each is the same expression over
    the same one-row CTEs), with fewer exchanges in the plan. Random tables with suppressed
    cells (NULL) and the missing label, record-level and pattern counts, with and without the
    hierarchy (precision)."""
    rng = random.Random(seed)
    values = ["p", "q", "r", "<missing>"]
    records = []
    for i in range(rows):
        a_orig, b_orig = rng.choice(values), rng.choice(values[1:] + ["<missing>"] * 2)
        a = None if rng.random() < 0.2 else (a_orig if rng.random() < 0.7 else "p|q")
        c = None if a is None or rng.random() < 0.1 else "*"
        b = None if rng.random() < 0.3 else b_orig
        records.append((i, a, b, c, a_orig, b_orig, rng.randint(1, 4)))
    spark.createDataFrame(records, "rid bigint, a string, b string, c string, a__original "
                          "string, b__original string, n bigint").createOrReplaceTempView("loss")
    spark.createDataFrame([("a", 0), ("a", 1), ("a", 2), ("b", 0), ("b", 1), ("c", 0), ("c", 3)],
                          "qi_name string, level int").createOrReplaceTempView("loss_hier")
    exchanges = []
    for args in [("loss", "loss_hier", "n", True), ("loss", None, "n", True),
                 ("loss", "loss_hier", None, False)]:
        old_sql, new_sql = (render_information_loss(form, *args) for form in ("default", "spark"))
        assert "values (0), (1), (2), (3)" in new_sql and "union all" not in new_sql
        old, new = spark.sql(old_sql), spark.sql(new_sql)
        assert [(f.name, f.dataType) for f in new.schema.fields] == [
            (f.name, f.dataType) for f in old.schema.fields]
        assert old.count() == new.count() == 4
        assert old.exceptAll(new).count() == 0 and new.exceptAll(old).count() == 0, (
            old.collect(), new.collect())
        got = {r["column_order"]: r for r in new.collect()}
        assert got[0]["column_name"] == "(all quasi-identifiers)"
        # a comparison that can fail: the figures are not all zero or NULL
        assert got[0]["suppressed_cells"] > 0 and got[0]["non_uniform_entropy"] > 0
        assert (got[1]["precision"] is not None) == (args[1] is not None)
        exchanges.append(tuple(len(re.findall(r"\bExchange\b", _executed_plan(f)))
                               for f in (old, new)))
    assert all(new < old for old, new in exchanges), exchanges


CDF_MACROS = [ROOT / "macros" / "risk_suite" / "diagnostics_sql.sql",
              ROOT / "macros" / "risk_suite" / "risk_cdf_at_size.sql",
              ROOT / "macros" / "risk" / "smallest_class_patterns_sql.sql",
              ROOT / "macros" / "risk" / "class_sizes_sql.sql",
              ROOT / "macros" / "risk" / "cte_computed_once.sql"]


def render_risk_cdf(form: str, *args: Any, macro: str = "default__risk_cdf_sql") -> str:
    """default__risk_cdf_sql (or ``macro``, ``<form>`` replaced by ``form``)."""
    call = macro_caller(CDF_MACROS, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=_ident, literal=_literal, own=lambda dispatched: dispatched,
            risk_stage_columns=call("default__risk_stage_columns"),
            class_sizes_sql=call("default__class_sizes_sql"),
            risk_cdf_at_size_sql=call("risk_cdf_at_size_sql"),
            smallest_class_patterns_sql=call("default__smallest_class_patterns_sql"),
            cte_computed_once=call("spark__cte_computed_once")),
        "dbt": SimpleNamespace(type_bigint=lambda: "bigint")})
    return str(call(macro.replace("<form>", form))(*args))


SUMMARY_MACROS = [*CDF_MACROS, ROOT / "macros" / "risk" / "risk_summary_rows_sql.sql",
                  ROOT / "macros" / "risk" / "risk_summary_sql.sql"]


def render_risk_summary(form: str, cfg: dict[str, Any], cdf: str | None) -> str:
    """``<form>__risk_summary_rows_sql`` over the views sum_gen, sum_pub and sum_exact."""
    call = macro_caller(SUMMARY_MACROS, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=_ident, literal=_literal, own=lambda dispatched: dispatched,
            class_sizes_sql=call("default__class_sizes_sql"),
            risk_summary_sql=call("default__risk_summary_sql"),
            default__risk_summary_rows_sql=call("default__risk_summary_rows_sql"),
            risk_summary_exact_sql=call("risk_summary_exact_sql")),
        "dbt": SimpleNamespace(type_bigint=lambda: "bigint")})
    return str(call(f"{form}__risk_summary_rows_sql")(cfg, "sum_gen", "sum_pub", "sum_exact", cdf))


@pytest.mark.parametrize("seed,rows,published_rows", [(31, 300, 200), (32, 60, 40),
                                                      (33, 80, 0)])
def test_spark_risk_summary_from_the_cdf_equals_default(spark, seed: int, rows: int,
                                                        published_rows: int) -> None:
    """Issue 37 (session 18): deid_diagnostics' risk summary (El Emam et al. 2009, CJHP:
    records, classes, smallest class, the classes and records below k, discernibility per
    combination and stage) grouped each pattern table once more per combination (six GROUP
    BYs beside the risk CDF's, which holds the same class sizes). spark__risk_summary_rows_sql
    reads them off the CDF's rows (deid_cdf__): the same rows, every value exactly (each
    figure the default's expression over the same integers), also for a stage without records
    (the default's row of NULL sums and 0 classes). Random pattern tables with suppressed
    cells, k 3 (some classes below it)."""
    rng = random.Random(seed)
    columns = ["a", "b", "c", "d"]

    def patterns(count: int) -> list[tuple]:
        return [tuple([None if rng.random() < 0.1 else rng.choice("pqr"[: rng.randint(1, 3)])
                       for _ in columns] + [rng.randint(1, 4)]) for _ in range(count)]
    schema = ", ".join(f"{c} string" for c in columns) + ", n bigint"
    spark.createDataFrame(patterns(rows), schema).createOrReplaceTempView("sum_gen")
    spark.createDataFrame(patterns(published_rows), schema).createOrReplaceTempView("sum_pub")
    spark.createDataFrame([("a+b+c", rng.randint(1, 9), rng.randint(1, 50)) for _ in range(5)]
                          + [("a+d", 2, 7)], "combination string, consistent bigint, records bigint"
                          ).createOrReplaceTempView("sum_exact")
    combinations = [["a", "b", "c"], ["a", "d"], ["b", "a", "c"]]
    cfg = {"k": 3, "tau": 0.2, "verified_combinations": combinations}
    cdf = " union all ".join(
        f"select * from ({render_risk_cdf('spark', rel, 'rid', combinations, stage, 'n')}) as c{i}"
        for i, (rel, stage) in enumerate([("sum_gen", "generalized"),
                                          ("sum_pub", "published")]))
    old_sql = render_risk_summary("default", cfg, "deid_cdf__")
    new_sql = render_risk_summary("spark", cfg, "deid_cdf__")
    assert "deid_cdf__" in new_sql and "deid_cdf__" not in old_sql
    old = spark.sql(old_sql)
    new = spark.sql(f"with deid_cdf__ as ({cdf}) select * from ({new_sql}) as r")
    assert [(f.name, f.dataType) for f in new.schema.fields] == [
        (f.name, f.dataType) for f in old.schema.fields]
    assert old.count() == new.count() == 6
    assert old.exceptAll(new).count() == 0 and new.exceptAll(old).count() == 0, (
        sorted(old.collect()), sorted(new.collect()))
    got = {(r["stage"], r["combination"]): r for r in new.collect()}
    # a comparison that can fail: classes below k and the exact figures are there
    assert got[("generalized", "a+b+c")]["classes_below_k"] > 0
    assert got[("published", "a+d")]["records_below_k_exact"] == 7
    if not published_rows:
        assert got[("published", "a+d")]["records"] is None
        assert got[("published", "a+d")]["classes"] == 0
