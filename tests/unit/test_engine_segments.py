"""Segmented build on adapters without dbt Python models (issue 16): planning and table I/O."""

from __future__ import annotations

import datetime as dt
import decimal
import json
from types import SimpleNamespace

import numpy as np
import pandas as pd

from dbt_deid.dbt_side.engine.python_nodes import (
    DbtShim,
    column_kind,
    frame_rows,
    frame_to_arrow,
    postgres_copy_bytes,
    rows_to_frame,
    run_model_code,
    spark_arrow_to_frame,
    sql_literal,
)
from dbt_deid.dbt_side.engine.segmented import SegmentResults, descendants, node_depths, split_args
from dbt_deid.tools.cli import _split_build_args
from tests.postgres_copy_reference import postgres_copy_csv


def _node(uid: str, parents: list[str], language: str = "sql", rtype: str = "model"):
    return SimpleNamespace(unique_id=uid, name=uid.split(".")[-1], language=language,
                           resource_type=rtype, depends_on=SimpleNamespace(nodes=parents),
                           fqn=["p", uid.split(".")[-1]])


def _manifest(nodes):
    child_map: dict[str, list[str]] = {n.unique_id: [] for n in nodes}
    for n in nodes:
        for p in n.depends_on.nodes:
            child_map.setdefault(p, []).append(n.unique_id)
    return SimpleNamespace(nodes={n.unique_id: n for n in nodes}, unit_tests={},
                           child_map=child_map)


def test_depth_counts_python_models_on_the_longest_path() -> None:
    nodes = [
        _node("seed.p.s", [], rtype="seed"),
        _node("model.p.gen", [], "python"),
        _node("model.p.patterns", ["model.p.gen", "seed.p.s"]),
        _node("model.p.map", ["model.p.patterns"], "python"),
        _node("model.p.plan", [], "python"),
        _node("model.p.suppressed", ["model.p.map", "model.p.patterns", "model.p.plan"]),
        _node("test.p.t1", ["model.p.suppressed"], rtype="test"),
        _node("test.p.t0", ["seed.p.s"], rtype="test"),
    ]
    m = _manifest(nodes)
    depths = node_depths(m, set(m.nodes))
    assert depths == {"seed.p.s": 0, "test.p.t0": 0, "model.p.gen": 1, "model.p.plan": 1,
                      "model.p.patterns": 1, "model.p.map": 2, "model.p.suppressed": 2,
                      "test.p.t1": 2}
    # a parent outside the selection counts as built
    sub = {"model.p.map", "model.p.suppressed"}
    assert node_depths(m, sub) == {"model.p.map": 1, "model.p.suppressed": 1}
    assert descendants(m, ["model.p.map"]) == {"model.p.map", "model.p.suppressed", "test.p.t1"}


def test_arguments_are_sorted_into_context_selection_and_the_rest() -> None:
    split = split_args(["--target", "postgres", "--select", "+a", "b", "--vars", "{x: 1}",
                        "--full-refresh", "--exclude=tag:c", "-s", "d", "--threads", "2"])
    assert split.context == ["--target", "postgres", "--vars", "{x: 1}"]
    assert split.selection == ["--select", "+a", "b", "--exclude=tag:c", "-s", "d"]
    assert split.other == ["--full-refresh", "--threads", "2"]
    assert _split_build_args(["--python-nodes", "runner", "-t", "pg"]) == (
        ["--python-nodes", "runner"], ["-t", "pg"])


def test_model_code_runs_with_refs_and_yaml_configs() -> None:
    parent = _node("model.p.patterns", [])
    code = ("import json\n"
            "def model(dbt, session):\n"
            "    dbt.config(materialized='table')\n"
            "    f = dbt.ref('patterns')\n"
            "    f['k'] = json.loads(dbt.config.get('cfg'))['k']\n"
            "    return f\n")
    node = _node("model.p.out", ["model.p.patterns"], "python")
    node.raw_code, node.original_file_path = code, "out.py"
    node.config = {"cfg": '{"k": 5}'}
    manifest = _manifest([parent, node])
    read = []
    shim = DbtShim(node, manifest, lambda n: read.append(n.name) or pd.DataFrame({"a": [1]}),
                   "x")
    out = run_model_code(node, shim)
    assert read == ["patterns"] and list(out["k"]) == [5]


def test_frames_keep_null_distinct_from_empty_text_and_types() -> None:
    frame = rows_to_frame(["a", "n", "d", "x"], [
        ("", 1, dt.date(2020, 1, 2), None), (None, None, None, None)])
    assert frame["a"].iloc[0] == "" and pd.isna(frame["a"].iloc[1])
    assert str(frame["n"].dtype) == "Int64"
    assert str(frame["d"].dtype).startswith("datetime64")
    kinds = [column_kind(frame[c]) for c in frame.columns]
    assert kinds[:3] == ["text", "int", "datetime"]
    csv = postgres_copy_csv(frame[["a", "n"]], ["text", "int"]).getvalue()
    assert csv == '"",1\n,\n'  # quoted empty string, unquoted null
    assert sql_literal("it's \\ ok", "text", "spark") == "'it\\'s \\\\ ok'"
    assert sql_literal("it's \\ ok", "text", "default") == "'it''s \\ ok'"


def _copy_csv_field_by_field(frame: pd.DataFrame, kinds: list[str]) -> str:
    """postgres_copy_csv as it was before session 16: every field formatted in Python."""
    lines = []
    for row in frame_rows(frame, kinds):
        fields = []
        for v, k in zip(row, kinds, strict=True):
            if v is None:
                fields.append("")
            elif k == "bool":
                fields.append("t" if v else "f")
            elif k in ("int", "float"):
                fields.append(repr(v))
            elif k in ("datetime", "date"):
                fields.append(v.isoformat())
            else:
                fields.append('"' + str(v).replace('"', '""') + '"')
        lines.append(",".join(fields))
    return "\n".join(lines) + ("\n" if lines else "")


def test_copy_csv_is_the_field_by_field_text() -> None:
    """postgres_copy_csv's Arrow kernels write the text the field-by-field form wrote: quotes,
    commas, newlines, empty strings and nulls in text; nullable and large integers; booleans
    with nulls; text columns holding other values (Decimal, numpy scalars, floats, bools: value
    by value); floats with NaN, infinities and -0.0; dates; datetimes; every column alone;
    no rows."""
    frame = pd.DataFrame({
        "t": ["a", "", None, 'q"uo""te', "com,ma", "new\nline", np.str_("ns"), "\u00e9\u2603"],
        "mixed": ["x", 1, 2.5, None, float("nan"), decimal.Decimal("1.10"), np.int64(3), True],
        "i": pd.array([1, None, -3, 2**62, 0, 5, 6, 7], dtype="Int64"),
        "ni": np.array([1, 2, 3, -4, 5, 6, 7, -(2**63)], dtype=np.int64),
        "b": [True, False, None, True, np.bool_(False), True, None, False],
        "nb": np.array([True, False] * 4),
        "fl": [0.1, float("nan"), float("inf"), -float("inf"), -0.0, 1e300, 2.5e-10, 3.0],
        "allnull": [None] * 8,
        "s": pd.array(["a", None, "b", "", "c", "d", '"', ","], dtype="string"),
        "d": [dt.date(2020, 1, 2)] * 7 + [None],
        "ts": pd.to_datetime(["2020-01-02 03:04:05"] * 7 + [None]),
    })
    kinds = [column_kind(frame[c]) for c in frame.columns]
    assert kinds == ["text", "text", "int", "int", "bool", "bool", "float", "text", "text",
                     "date", "datetime"]
    assert postgres_copy_csv(frame, kinds).getvalue() == _copy_csv_field_by_field(frame, kinds)
    for c, k in zip(frame.columns, kinds, strict=True):
        assert (postgres_copy_csv(frame[[c]], [k]).getvalue()
                == _copy_csv_field_by_field(frame[[c]], [k])), c
    assert postgres_copy_csv(frame.iloc[:0], kinds).getvalue() == ""
    # an int kind given to a float column (bench's loader): integral values as integers
    floats = pd.DataFrame({"x": [1.0, None, 3.0]})
    assert postgres_copy_csv(floats, ["int"]).getvalue() == "1\n\n3\n"

def test_copy_bytes_quotes_every_value_and_leaves_nulls_unquoted() -> None:
    """postgres_copy_bytes (issue 37, session 19: Arrow's CSV writer): every non-null value
    quoted, quotes doubled, a null an unquoted empty field, so PostgreSQL's COPY reads an empty
    string as one and a null as null (the rows on the server against postgres_copy_csv's:
    tests/integration/test_frame_write_postgres.py); NaN is null; booleans as true/false;
    text holding other values and dates value by value; no rows, no bytes."""
    frame = pd.DataFrame({
        "a": ["", None, 'x"y'],
        "n": pd.array([1, None, 3], dtype="Int64"),
        "b": [True, None, False],
        "f": [0.5, float("nan"), -float("inf")],
        "m": [decimal.Decimal("1.10"), None, "t"],
        "d": [dt.date(2020, 1, 2), None, dt.date(1999, 12, 31)],
    })
    kinds = [column_kind(frame[c]) for c in frame.columns]
    assert kinds == ["text", "int", "bool", "float", "text", "date"]
    assert postgres_copy_bytes(frame, kinds).getvalue() == (
        b'"","1","true","0.5","1.10","2020-01-02"\n,,,,,\n'
        b'"x""y","3","false","-inf","t","1999-12-31"\n')
    assert postgres_copy_bytes(frame.iloc[:0], kinds).getvalue() == b""


def test_spark_arrow_frames_equal_the_row_fetch() -> None:
    """Spark's Arrow batches (narrow integers, float32, large strings, the null type, a column
    null in every row) read as the frame the Python rows of the same result give (issue 37;
    the read against a real Spark session is test_spark_exact.py's, opt-in)."""
    import pyarrow as pa

    rows = [("a", 1, 2, 1.5, float("nan"), True, dt.date(2020, 2, 29), None, None),
            (None, None, -3, None, float("inf"), None, None, None, None),
            ("", 127, 2**40, -0.25, None, False, dt.date(1970, 1, 1), None, None)]
    columns = ["t", "i8", "i64", "f4", "f8", "b", "d", "void", "s"]
    types = [pa.large_string(), pa.int8(), pa.int64(), pa.float32(), pa.float64(), pa.bool_(),
             pa.date32(), pa.null(), pa.string()]
    table = pa.table([pa.array([r[i] for r in rows], type=t) for i, t in enumerate(types)],
                     names=columns)
    for part in (table, table.slice(0, 0)):
        fetched = rows_to_frame(columns, [tuple(v.as_py() for v in row) for row in zip(
            *part.columns, strict=True)])
        pd.testing.assert_frame_equal(spark_arrow_to_frame(part, columns), fetched,
                                      check_exact=True)


def test_frames_go_to_arrow_with_the_values_of_their_rows() -> None:
    """``frame_to_arrow`` holds what ``frame_rows`` writes (NaN as null, NULL beside empty
    text, nullable integers) and refuses what it cannot carry exactly (dates, non-str text)."""
    frame = pd.DataFrame({"t": pd.Series(["x", None, float("nan"), ""], dtype=object),
                          "s": pd.array(["a", None, "", "b"], dtype="str"),
                          "n": pd.array([1, None, 3, 4], dtype="Int64"),
                          "f": [1.5, float("nan"), float("inf"), 0.0],
                          "b": pd.array([True, None, False, True], dtype="boolean")})
    kinds = [column_kind(frame[c]) for c in frame.columns]
    table = frame_to_arrow(frame, kinds)
    assert [tuple(r.values()) for r in table.to_pylist()] == frame_rows(frame, kinds)
    assert frame_to_arrow(pd.DataFrame({"t": pd.Series([1, "a"], dtype=object)}),
                          ["text"]) is None
    dated = pd.DataFrame({"d": [dt.date(2020, 1, 1)]})
    assert frame_to_arrow(dated, [column_kind(dated["d"])]) is None


def test_segment_results_merge_every_segment_and_the_python_models(tmp_path) -> None:
    """Each segment's dbt build overwrites run_results.json: the runner's copy has them all."""
    results = SegmentResults(tmp_path)
    path = tmp_path / "run_results.json"
    for i in range(2):
        path.write_text(json.dumps({"metadata": {"m": i}, "elapsed_time": 1.0, "results": [
            {"unique_id": f"model.p.sql_{i}", "status": "success", "execution_time": 0.5}]}))
        results.add_segment()
        results.add_python(_node(f"model.p.py_{i}", [], "python"), "success", 0.25, "3 rows")
    results.write()
    data = json.loads(path.read_text())
    assert [r["unique_id"] for r in data["results"]] == [
        "model.p.sql_0", "model.p.py_0", "model.p.sql_1", "model.p.py_1"]
    assert data["metadata"] == {"m": 1} and data["elapsed_time"] > 0
    assert {r["thread_id"] for r in data["results"] if "py_" in r["unique_id"]} == {"dbt_deid"}
