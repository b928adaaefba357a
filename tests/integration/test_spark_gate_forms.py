"""Session 18's Spark forms of the gate table and deid_hierarchy equal the default forms, on
random tables in a real Spark session (opt-in: ``DBT_DEID_SPARK=1``); session 19's plain
fingerprint in 64-bit sums gives the value of the decimal form before it.

- ``spark__weighted_fingerprint_select_sql`` (macros/publish/table_fingerprint.sql): the gate
  table's proof that deid_suppressed_patterns is the checked release grouped, taken in its scan
  of the checked release (weight 1 per record) against the pattern table's (weight n), instead
  of a UNION and GROUP BY of the checked release of its own (gate_published_matches_sql).
- ``hierarchy_union_sql(stacked=true)`` (spark__hierarchy_sql, macros/hierarchy/): one UNION ALL
  branch per lookup relation and per scanned source column, its (QI, level) rows from a
  ``lateral view stack(...)``, instead of one branch per (QI, level).

Each macro is rendered from the package's own files with Jinja (tests/macro_render.py; no dbt
run), both forms run on the same tables and their rows compared with ``EXCEPT ALL`` both ways.
"""

from __future__ import annotations

import datetime
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.integration import test_spark_exact
from tests.macro_render import macro_caller

pytestmark = [pytest.mark.engines, pytest.mark.spark]

ROOT = Path(__file__).resolve().parents[2]

#: test_spark_exact.py's module-scoped local[1] session (skipped with the reason without Spark)
spark = test_spark_exact.spark


def _literal(value: Any) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def _ident(name: str) -> str:
    return "`" + name + "`"




def _except_all_both_ways(spark, a: str, b: str) -> tuple[int, int, int, int]:
    left, right = spark.sql(a), spark.sql(b)
    return (left.count(), right.count(), left.exceptAll(right).count(),
            right.exceptAll(left).count())


# --- the gate table's weighted fingerprint ---------------------------------------------------

def _weighted(form: str) -> Any:
    call = macro_caller([ROOT / "macros" / "publish" / "table_fingerprint.sql"], lambda call: {
        "dbt_deid": SimpleNamespace(ident=_ident, literal=_literal)})
    return call(f"{form}__weighted_fingerprint_select_sql")


def test_spark_weighted_fingerprint_proves_the_pattern_table(spark) -> None:
    """The records' weighted fingerprint (weight 1, and the gate scan's 1/0 weight over a full
    outer join's rows) equals their pattern table's (weight n) whatever the order and
    partitioning, and differs when the pattern table moves one record between two patterns
    (same total), loses one, or swaps two columns' values. On the old code there is no Spark
    form (the default returns none: the gate table ran a UNION and GROUP BY of the checked
    release of its own)."""
    columns = ["a", "a__generalized", "b", "b__generalized"]
    rng = random.Random(18)
    records = []
    for rid in range(400):
        truth = [rng.choice(["x", "y", "z", None]), rng.choice(["1", "2", "3"])]
        records.append((rid, None if rng.random() < 0.3 else truth[0], truth[0],
                        None if rng.random() < 0.2 else truth[1], truth[1]))
    schema = "rid bigint, a string, a__generalized string, b string, b__generalized string"
    spark.createDataFrame(records, schema).repartition(3).createOrReplaceTempView("recs")
    spark.sql("select a, a__generalized, b, b__generalized, count(*) as n from recs"
              " group by all").createOrReplaceTempView("pats")
    fp = _weighted("spark")
    assert fp is not None

    def weighted(relation: str, weight: str, prefix: str = "") -> tuple:
        row = spark.sql(f"select {fp(columns, prefix, weight, ['r', 'f'])} from {relation}"
                        ).collect()[0]
        return int(row[0]), row[1]

    records_fp = weighted("recs", "1")
    assert records_fp[0] == 400
    assert weighted("pats", "n") == records_fp
    # the gate scan's shape: the checked release's rows flagged present in a full outer join
    gate_scan = ("(select t.* from (select rid from recs where rid % 7 <> 0 union all"
                 " select 1000 + rid from recs where rid < 5) as src full outer join"
                 " (select *, 1 as deid_present__ from recs) as t on t.rid = src.rid) as j")
    assert weighted(gate_scan, "case when j.deid_present__ = 1 then 1 else 0 end",
                    "j.") == records_fp
    assert weighted("(select * from recs order by rid desc) as o", "1") == records_fp
    # one record moved from one pattern to another: same total, different fingerprint
    spark.sql("select a, a__generalized, b, b__generalized, n + case when rk = 1 then 1"
              " when rk = 2 then -1 else 0 end as n from (select *, row_number() over"
              " (order by a, a__generalized, b, b__generalized) as rk from pats)"
              ).createOrReplaceTempView("moved")
    moved = weighted("moved", "n")
    assert moved[0] == 400 and moved[1] != records_fp[1]
    lost = weighted("(select a, a__generalized, b, b__generalized, n - case when rk = 1 then 1"
                    " else 0 end as n from (select *, row_number() over (order by a,"
                    " a__generalized, b, b__generalized) as rk from pats)) as l", "n")
    assert lost[0] == 399 and lost[1] != records_fp[1]
    swapped = weighted("(select a__generalized as a, a as a__generalized, b, b__generalized,"
                       " n from pats) as s", "n")
    assert swapped[1] != records_fp[1]


# --- the plain fingerprint's sums in 64-bit integers (session 19) ------------------------------

def _partial_sums(plan: str) -> list[str]:
    """The arguments of each ``partial_sum(...)`` of a physical plan's text."""
    out, pos = [], 0
    while (at := plan.find("partial_sum(", pos)) >= 0:
        depth, i = 0, at + len("partial_sum")
        for i in range(at + len("partial_sum"), len(plan)):
            depth += {"(": 1, ")": -1}.get(plan[i], 0)
            if depth == 0:
                break
        out.append(plan[at + len("partial_sum("):i])
        pos = i
    return out


@pytest.mark.parametrize("rows", [600, 1, 0])
def test_spark_fingerprint_sums_the_decimal_value_in_64_bit(spark, rows: int) -> None:
    """spark__fingerprint_select_sql (the gate table's input and checked-release fingerprints,
    the publish step's, the working tables') gives the value of the form until session 18,
    written out here: each row's two xxhash64 hashes cast to decimal(38, 0) and summed, the
    sums' text hashed with md5 with the row count and the column names. With and without the
    gate scan's `present` condition; an empty table. The session 19 form sums each hash's high
    and low 32 bits apart in 64-bit integers and combines the two sums once in decimal(38, 0),
    so no per-row decimal addition: the plan's partial sums read no decimal. On the old code
    the values are equal and the plan's partial sums are `partial_sum(cast(xxhash64(...) as
    decimal(38,0)))`: it fails on the plan."""
    rng = random.Random(19 + rows)
    records = [(rid, rng.choice(["x", "y", None, "é" * rng.randint(1, 40)]),
                None if rng.random() < 0.2 else str(rng.randint(-10**12, 10**12)),
                rng.randint(0, 2)) for rid in range(rows)]
    schema = "rid bigint, a string, b string, flag int"
    spark.createDataFrame(records, schema).repartition(3).createOrReplaceTempView("fp_rows")
    call = macro_caller([ROOT / "macros" / "publish" / "table_fingerprint.sql"], lambda call: {
        "dbt_deid": SimpleNamespace(ident=_ident, literal=_literal,
                                    _fingerprint_when=call("_fingerprint_when"),
                                    _fingerprint_count=call("_fingerprint_count"))})
    columns = ["rid", "a", "b"]
    for present, prefix in ((None, ""), ("r.flag > 0", "r.")):
        new = call("spark__fingerprint_select_sql")(columns, prefix, present, ["n", "f"])
        args = ", ".join(f"{prefix}`{c}` is null, cast({prefix}`{c}` as string)"
                         for c in columns)
        when = ("", "") if present is None else (f"case when {present} then ", " end")
        count = "count(*)" if present is None else f"count(case when {present} then 1 end)"
        sums = [f"cast(coalesce(sum({when[0]}cast(xxhash64({seed}{args}) as decimal(38, 0))"
                f"{when[1]}), 0) as string)" for seed in ("", "'dbt_deid', ")]
        old = (f"{count} as n, md5(concat('rid|a|b', '#', cast({count} as string), '#',"
               f" {sums[0]}, ':', {sums[1]})) as f")
        frame = spark.sql(f"select {new} from fp_rows as r")
        got = frame.collect()[0]
        expected = spark.sql(f"select {old}, {sums[0]} as s0 from fp_rows as r").collect()[0]
        assert (int(got[0]), got[1]) == (int(expected[0]), expected[1]), present
        assert int(got[0]) == (rows if present is None else
                               sum(1 for r in records if r[3] > 0))
        if rows > 1:  # the sums are not trivially 0
            assert expected["s0"] != "0"
        plan = str(frame._jdf.queryExecution().executedPlan().toString())
        partial = _partial_sums(plan)
        assert partial and not any("decimal" in p for p in partial), partial


# --- deid_hierarchy's stacked branches --------------------------------------------------------

HIERARCHY_MACROS = [*sorted((ROOT / "macros" / "hierarchy").glob("*.sql"))]

#: lookup relations: columns and rows (the first column the original value)
LOOKUPS = {
    "prov_h": (["province", "region", "country"],
               [("ON", "Central", "CA"), ("QC", "Central", "CA"), ("BC", "West", "CA")]),
    "diag_h": (["code", "level_1", "block", "chapter"],
               [(f"A{i:02d}", f"A{i // 3}", f"B{i // 5}", "Ch") for i in range(12)]),
}


def _cfg() -> Any:
    """A release over lookups (one relation serving two QIs), interval rules (widths, breaks
    with labels, top and bottom codes), a prefix rule and a date rule on one source column each
    shared with a plain QI, and a plain QI."""
    def qi(name: str, column: str, hierarchy: str | None = None, rule: dict | None = None,
           level: int = 1) -> SimpleNamespace:
        return SimpleNamespace(name=name, column=column, hierarchy=hierarchy, rule=rule,
                               level=level)
    qis = [
        qi("province", "province", "prov_h"),
        qi("age", "age", rule={"type": "interval", "levels": [
            {"width": 5, "top_code": 90}, {"width": 20, "bottom_code": 10, "label": "lower"}]}),
        qi("los", "los", rule={"type": "interval", "levels": [
            {"breaks": [0, 1, 2, 7, 14], "top_code": 30},
            {"width": 7, "top_code": 28, "label": "index"}]}, level=2),
        qi("block", "code", "diag_h", level=2),
        qi("chapter", "code", "diag_h", level=3),
        qi("cci", "cci"),
        qi("short_cci", "cci", rule={"type": "prefix", "levels": [{"length": 3},
                                                                   {"length": 0}]}),
        qi("admit", "admit"),
        qi("admit_month", "admit", rule={"type": "date", "levels": [{"trunc": "month"},
                                                                     {"trunc": "year"}]}),
    ]
    return SimpleNamespace(qis=qis)


def _render_hierarchy(stacked: bool) -> str:
    def context(call: Any) -> dict[str, Any]:
        stubs = {
            "own": lambda m: m, "ident": _ident, "literal": _literal,
            "run_data_checks": lambda: False, "protected_input": lambda cfg: "src",
            "can_inspect": lambda relation: True, "release_ref": lambda name: name,
            "cte_materialized": lambda: "",
            "cte_computed_once": call("spark__cte_computed_once"),
        }

        class Namespace:
            def __getattr__(self, name: str) -> Any:
                return stubs[name] if name in stubs else call(name)

        return {
            "dbt_deid": Namespace(), "ref": lambda name: name,
            "adapter": SimpleNamespace(
                dispatch=lambda name, package: call("default__" + name),
                get_columns_in_relation=lambda rel: [SimpleNamespace(name=c)
                                                     for c in LOOKUPS[str(rel)][0]]),
            "dbt": SimpleNamespace(
                type_string=lambda: "string",
                date_trunc=lambda unit, value: f"date_trunc('{unit}', {value})",
                concat=lambda parts: "concat(" + ", ".join(parts) + ")"),
            "exceptions": SimpleNamespace(raise_compiler_error=pytest.fail),
            "modules": SimpleNamespace(re=__import__("re"))}

    files = [*HIERARCHY_MACROS, ROOT / "macros" / "risk" / "cte_computed_once.sql"]
    return str(macro_caller(files, context)("hierarchy_union_sql")(
        _cfg(), one_scan=True, stacked=stacked))


@pytest.mark.parametrize("seed,rows", [(31, 300), (32, 25), (33, 0)])
def test_spark_stacked_hierarchy_equals_the_branches(spark, seed: int, rows: int) -> None:
    """spark__hierarchy_sql's stacked form gives the default's rows (every QI, level, original
    and generalized value, EXCEPT ALL both ways) over random source values: NULLs, decimals,
    negative and top-coded numbers, duplicates, dates, short codes. With fewer UNION branches
    (8 against 25 at the benchmark's settings; here 6 against 25). On the old code
    hierarchy_union_sql takes no ``stacked`` argument (a TypeError)."""
    rng = random.Random(seed)
    for name, (cols, values) in LOOKUPS.items():
        spark.createDataFrame(values, ", ".join(f"{c} string" for c in cols)) \
            .createOrReplaceTempView(name)
    records = [(
        rng.choice([None, *range(-3, 100, 7)]),
        rng.choice([None, 0.0, 1.0, 1.5, 2.0, 6.99, 7.0, 13.0, 14.0, 29.0, 30.0, 44.0]),
        rng.choice([None, *(f"A{i:02d}" for i in range(12))]),
        rng.choice([None, "1AB23", "1AB99", "2X", "", "9ZZZZ"]),
        rng.choice([None, datetime.date(2020, 1, 31), datetime.date(2021, 12, 1),
                    datetime.date(2020, 2, 29)]),
        rng.choice([None, "ON", "QC", "BC"]),
    ) for _ in range(rows)]
    spark.createDataFrame(records, "age int, los double, code string, cci string, admit date,"
                          " province string").createOrReplaceTempView("src")
    default, stacked = _render_hierarchy(False), _render_hierarchy(True)
    assert stacked.count("\nunion all\n") < default.count("\nunion all\n")
    assert "lateral view stack(" in stacked
    a, b, left, right = _except_all_both_ways(spark, stacked, default)
    assert a == b and (left, right) == (0, 0)
    assert rows == 0 or a > 0


# --- the gate table's released-levels flags ---------------------------------------------------

def _levels_flags(form: str, cfg: Any, levels: dict[str, int]) -> str:
    def context(call: Any) -> dict[str, Any]:
        stubs = {
            "ident": _ident, "literal": _literal,
            "original_value_sources": lambda cfg: {q.name: q.column for q in cfg.qis},
            "default__released_levels_flags_sql": call("default__released_levels_flags_sql"),
            "cte_computed_once": lambda sql: f"select * from ({sql}) as deid_once__"
                                             " where rand(0) >= 0",
            "_current_node_name": lambda: "deid_gate_results",
        }
        return {"dbt_deid": SimpleNamespace(**stubs),
                "exceptions": SimpleNamespace(raise_compiler_error=pytest.fail)}

    call = macro_caller([ROOT / "macros" / "gates" / "released_levels_gate.sql"], context)
    return str(call(f"{form}__released_levels_flags_sql")(cfg, "truth", "hier", levels))


@pytest.mark.parametrize("seed", [41, 42])
def test_spark_released_levels_flags_equal_the_default(spark, seed: int) -> None:
    """spark__released_levels_flags_sql (every QI's hierarchy slice from one CTE computed once)
    flags the same records as the default (one grouped subquery of the hierarchy per QI): the
    whole checked release with its flags, EXCEPT ALL both ways, over random records some of
    whose true values are not at their level (another level's value, an unknown value, the
    missing label with and without a missing original) and a hierarchy whose slice maps one
    value to two groups. One source column released as two QIs. On the old code there is no
    Spark form (the default's 10 subqueries each scan and group the hierarchy)."""
    rng = random.Random(seed)
    qis = [SimpleNamespace(name="a", column="a"), SimpleNamespace(name="b", column="b"),
           SimpleNamespace(name="b_top", column="b")]
    cfg = SimpleNamespace(qis=qis, missing_label="<missing>")
    levels = {"a": 1, "b": 0, "b_top": 2}
    hier = [(q, lv, v, f"{q}{lv}:{v}" if lv else v) for q in ("a", "b", "b_top")
            for lv in range(3) for v in ("x", "y", "z")]
    hier.append(("a", 1, "z", "a1:other"))  # two groups for one value: flagged, not doubled
    spark.createDataFrame(hier, "qi_name string, level int, original_value string,"
                          " generalized_value string").createOrReplaceTempView("hier")

    def generalized(q: str, orig: str) -> str:
        return rng.choice([orig if levels[q] == 0 else f"{q}{levels[q]}:{orig}",
                           f"{q}0:{orig}", "<missing>", "unknown"]) \
            if orig != "<missing>" else rng.choice(["<missing>", "other"])

    rows = []
    for rid in range(200):
        a, b = rng.choice(["x", "y", "z", "<missing>"]), rng.choice(["x", "y", "<missing>"])
        rows.append((rid, a, generalized("a", a), b, generalized("b", b),
                     generalized("b_top", b)))
    spark.createDataFrame(rows, "rid bigint, a__original string, a__generalized string,"
                          " b__original string, b__generalized string,"
                          " b_top__generalized string").createOrReplaceTempView("truth")
    default, spark_form = _levels_flags("default", cfg, levels), _levels_flags("spark", cfg,
                                                                               levels)
    assert "deid_slices__" in spark_form and spark_form.count(" from hier ") == 1
    assert default.count(" from hier ") == 3
    a, b, left, right = _except_all_both_ways(
        spark, f"select * from {spark_form} as t", f"select * from {default} as t")
    assert a == b == 200 and (left, right) == (0, 0)
    flagged = spark.sql(f"select sum(deid_level_mismatch_1__) + sum(deid_level_mismatch_2__)"
                        f" + sum(deid_level_mismatch_3__) from {spark_form} as t").collect()
    assert flagged[0][0] > 0


# --- deid_hierarchy's rule-value check --------------------------------------------------------

class _Refused(Exception):
    pass


def _rule_check(spark, form: str, cfg: Any) -> tuple[list[tuple], str | None, str]:
    """``<form>__assert_rule_values(cfg)`` on Spark's view ``src``: (the query's row, the error
    it raised or None, the query)."""
    seen: dict[str, Any] = {}

    def run_query(sql: str) -> Any:
        seen["sql"] = sql
        seen["rows"] = [tuple(r) for r in spark.sql(sql).collect()]
        return SimpleNamespace(rows=seen["rows"])

    def refuse(message: str) -> None:
        raise _Refused(message)

    def context(call: Any) -> dict[str, Any]:
        stubs = {
            "own": lambda m: m, "ident": _ident, "literal": _literal,
            "protected_input": lambda cfg: "src",
            "try_cast_sql": lambda expr, type_: f"try_cast({expr} as {type_})",
            "exact_number_type": lambda: "decimal(38, 18)",
        }

        class Namespace:
            def __getattr__(self, name: str) -> Any:
                return stubs[name] if name in stubs else call(name)

        return {"dbt_deid": Namespace(), "run_query": run_query,
                "this": SimpleNamespace(identifier="deid_hierarchy"),
                "dbt": SimpleNamespace(type_string=lambda: "string"),
                "exceptions": SimpleNamespace(raise_compiler_error=refuse)}

    call = macro_caller([ROOT / "macros" / "validation" / "assert_release_inputs.sql"], context)
    try:
        call(f"{form}__assert_rule_values")(cfg)
        error = None
    except _Refused as refused:
        error = str(refused)
    return seen["rows"], error, seen["sql"]


@pytest.mark.parametrize("seed,bad", [(51, False), (52, True), (53, True)])
def test_spark_grouped_rule_check_equals_the_default(spark, seed: int, bad: bool) -> None:
    """spark__assert_rule_values (the input grouped by each checked column first, rows weighted
    by their count) returns the default's row (the NaN, infinite and other counts in records
    and the first bad value, per interval QI; the first bad date) and raises the same error,
    over random text values with repeats: numbers, NULLs and, with ``bad``, NaN, infinities,
    text and out-of-range numbers; two interval QIs on one column and a date QI. On the old
    code there is no Spark form."""
    rng = random.Random(seed)
    numbers = ["1", "2.5", "-3", "007", "90", None]
    wrong = ["NaN", "nan", "inf", "-Infinity", "abc", "1e300", "12x"] if bad else []
    dates = ["2020-01-31", "2021-12-01", None] + (["2020-13-01", "soon"] if bad else [])
    rows = [(rng.choice(numbers + wrong), rng.choice(numbers), rng.choice(dates))
            for _ in range(400)]
    spark.createDataFrame(rows, "age string, los string, admit string") \
        .createOrReplaceTempView("src")
    interval = {"type": "interval", "levels": [{"width": 5}]}
    cfg = SimpleNamespace(qis=[
        SimpleNamespace(name="age", column="age", rule=interval),
        SimpleNamespace(name="age_band", column="age", rule=interval),
        SimpleNamespace(name="los", column="los", rule=interval),
        SimpleNamespace(name="admit", column="admit", rule={"type": "date"}),
        SimpleNamespace(name="code", column="code", rule=None)])
    default = _rule_check(spark, "default", cfg)
    grouped = _rule_check(spark, "spark", cfg)
    assert "grouping sets" in grouped[2] and "grouping sets" not in default[2]
    assert grouped[:2] == default[:2]
    assert (default[1] is not None) == bad
