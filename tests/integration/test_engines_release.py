"""The same releases on every engine (issue 16): one command builds, gates and publishes.

Parametrized over engines as dbt-utils' CI does it: the integration project's releases are built
with ``python -m dbt_deid build`` on DuckDB (dbt runs the Python models), on PostgreSQL (a private
server the fixture starts with initdb/pg_ctl; dbt_deid computes the Python models through the
adapter's connection) and on Spark in session mode (a local JVM). Two builds per engine, each
reused by every assertion:

* ``passing``: the discharge release with the OLA search, cell suppression and population-based
  k (seed 000, seed 003), the claims release (LOLA, seed 001) on the small claims fixture as a 3%
  sample (k = 1, it publishes) and the text release (seed 004) with no detection missed;
* ``refusing``: the fixed-level discharge release at MaxSup 0.1% (gate tests excluded, so the
  publish materialization itself refuses), the claims release at the paper's limits and the text
  release with a 30% first-name miss rate: each refuses and publishes nothing.

Every table both engines built (published tables, risk summaries, information loss, gates, the
searches, the working tables) must equal DuckDB's, value for value, except the few that name
the engine's relations. Spark builds the discharge release only by default (its per-statement
cost: see ``SPARK_SELECT``). Engines whose adapter, server or JVM is missing are skipped with the
reason.
"""

from __future__ import annotations

import copy
import datetime as _dt
import decimal
import importlib.util
import json
import math
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dbt_deid.tools.synthetic.text import DEMO_TYPES
from tests.integration import dbt_fork
from tests.integration.dbt_runner import INTEGRATION, deps, project_vars, suite_caches
from tests.integration.postgres_server import PostgresServer, pg_bindir, start_postgres
from tests.integration.test_lola_dbt import claims_vars
from tests.integration.test_ola_dbt import _release as ola_release
from tests.integration.test_text_risk_dbt import text_vars

pytestmark = [pytest.mark.dbt, pytest.mark.engines]

ENGINES = ["duckdb", "postgres", pytest.param("spark", marks=pytest.mark.spark)]
#: Every release of the package and its inputs.
SELECT = ["+package:dbt_deid"]
#: Spark by default: the discharge release only (with DBT_DEID_SPARK_FULL=1: everything). A
#: Spark statement costs ~1 s however small its table (job scheduling in a local JVM), and the
#: claims and text releases add ~60 models.
SPARK_SELECT = ["+deid_published", "+deid_diagnostics",
                "+deid_gate_results", "+deid_algorithm_comparison", "+deid_population_risk",
                "+deid_uniqueness"]
PUBLISHED = {"deid_published", "deid_claims_published_patients", "deid_claims_published_claims",
             "deid_text_published"}
#: Tables that differ between engines by design, never compared.
ENGINE_SPECIFIC = {
    "deid_release_history": "names the engine's relations, timestamps",
    # the claims and text lines' record: copies of their published history rows
    "deid_claims_line_history": "names the engine's relations, timestamps",
    "deid_text_line_history": "names the engine's relations, timestamps",
    "deid_release_report": "the HTML report names the engine's relations",
    "deid_history_key": "a random key drawn in each warehouse",
    "deid_release_records": "record keys are md5 over that warehouse's random key",
    "deid_line_locks": "the invocation id that last locked each line",
    "deid_claims_verdict_inputs": "names the engine's relations, its fingerprints, invocation id",
    "deid_text_verdict_inputs": "names the engine's relations, its fingerprints, invocation id",
}
#: Tables the equality test must have compared (so it cannot pass on an empty intersection):
#: the published tables, the risk summaries, the information loss, the searches and gates.
MUST_COMPARE = {
    "passing": {"deid_published",
                "deid_gate_results", "deid_ola_search", "deid_algorithm_comparison",
                "deid_population_risk", "deid_uniqueness", "deid_claims_published_patients",
                "deid_claims_published_claims", "deid_claims_release_gate", "deid_claims_lola",
                "deid_claims_attack", "deid_text_published", "deid_text_risk_assessment",
                "deid_text_recall", "deid_report_inputs", "deid_diagnostics"},
    "refusing": {"deid_diagnostics", "deid_gate_results",
                 "deid_claims_release_gate", "deid_claims_lola", "deid_text_risk_assessment"},
}
#: The discharge release's part of MUST_COMPARE (what Spark builds by default).
DISCHARGE = {"deid_published", "deid_diagnostics", "deid_gate_results",
             "deid_ola_search", "deid_algorithm_comparison", "deid_population_risk",
             "deid_uniqueness"}
KEY = "engines-test-key-" + secrets.token_hex(16)


def scenario_vars(scenario: str) -> dict[str, Any]:
    """The vars of one build: the three releases, passing or refusing (module docstring)."""
    if scenario == "passing":
        variables = ola_release(
            tau=None, population_threshold=20, sampling_fraction=0.25,
            generalization={"search": "ola", "suppression": "cells", "metric": "precision"})
        # the algorithm comparison is built only when declared (MUST_COMPARE compares it)
        variables["deid_release"]["report"] = {
            **(variables["deid_release"].get("report") or {}), "algorithm_comparison": True}
        claims, text = claims_vars(sampling_fraction=0.03), text_vars(text_miss_rate=0.0)
    else:
        variables = copy.deepcopy(project_vars(INTEGRATION))
        variables["deid_release"]["max_suppression"] = 0.001
        miss = {t: 0.05 for t in DEMO_TYPES} | {"FIRST_NAME": 0.3}
        claims = claims_vars()
        text = text_vars({"detections": "text_detections_trimmed"}, text_miss_rate=miss)
    variables.update({k: v for k, v in claims.items() if k.startswith(("claims_", "deid_claims"))})
    variables.update({k: v for k, v in text.items() if k.startswith(("text_", "deid_text"))})
    return variables


@dataclass
class EngineRun:
    engine: str
    returncode: int
    output: str
    schema: str
    duckdb_path: Path | None = None
    server: PostgresServer | None = None
    spark_export: Path | None = None
    full: bool = True  # every release built (Spark by default: the discharge release only)
    log: Path | None = None  # the build's dbt.log (every statement, debug level)

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def query(self, sql: str) -> pd.DataFrame:
        """``sql`` with unqualified names found in the published, then the working schema."""
        schemas = [self.schema, f"{self.schema}_deid_work"]
        if self.engine == "spark":
            import duckdb

            assert self.spark_export is not None
            with duckdb.connect() as con:
                for path in sorted(self.spark_export.glob("*.parquet")):
                    con.execute(f"create or replace view \"{path.stem}\" as select * from"
                                f" read_parquet('{path}')")
                return con.execute(sql).df()
        if self.engine == "duckdb":
            import duckdb

            with duckdb.connect(str(self.duckdb_path), read_only=True) as con:
                con.execute(f"set search_path = '{','.join(schemas)}'")
                return con.execute(sql).df()
        assert self.server is not None
        con = self.server.connect()
        try:
            with con.cursor() as cur:
                cur.execute(f"set search_path = {', '.join(schemas)}")
                cur.execute(sql)
                cols = [d[0] for d in cur.description]
                return pd.DataFrame(cur.fetchall(), columns=cols)
        finally:
            con.close()

    def tables(self) -> set[str]:
        if self.engine == "spark":
            assert self.spark_export is not None
            return {p.stem for p in self.spark_export.glob("*.parquet")}
        frame = self.query(
            "select table_name from information_schema.tables where table_schema in"
            f" ('{self.schema}', '{self.schema}_deid_work')")
        return set(frame["table_name"])


def _available(engine: str) -> str | None:
    """None when the engine can run here, else why not."""
    if engine == "postgres":
        if importlib.util.find_spec("dbt.adapters.postgres") is None:
            return "dbt-postgres is not installed (pip install 'dbt_deid[postgres]')"
        if pg_bindir() is None:
            return "initdb/pg_ctl not found (apt-get install postgresql-15)"
    if engine == "spark":
        if os.environ.get("DBT_DEID_SPARK") != "1":
            return ("the Spark suite is opt-in (DBT_DEID_SPARK=1): its publish and refusal"
                    " builds took 325 s + 336 s on the shared 2-core machine"
                    " (2026-11-23), far past CI's 20-minute budget")
        if (importlib.util.find_spec("pyspark") is None
                or importlib.util.find_spec("dbt.adapters.spark") is None):
            return "pyspark/dbt-spark are not installed (pip install 'dbt_deid[spark]')"
        if shutil.which("java") is None:
            return "no Java runtime for Spark"
    return None


#: Run in a subprocess after a Spark build (the build's process held the embedded Hive
#: metastore): every table of the two schemas written to parquet for the test to read. Its JVM
#: with the client compiler only and the serial collector, like the cluster case's JVMs
#: (test_spark_cluster_release.JVM_OPTIONS): a short-lived JVM reading small tables spends much
#: of its CPU in the JIT; runtime options only, the same tables read. An export of 24 tables of
#: 4,000 rows took 42.7 CPU s without them and 26.2 with them, the JVM included, with equal
#: parquet files (docs/performance.md, "Suite time, session 9").
_SPARK_EXPORT = """
import sys
from pyspark.sql import SparkSession
folder, out, schema = sys.argv[1:4]
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.sql.warehouse.dir", folder + "/warehouse")
         .config("spark.hadoop.hive.downloaded.resources.dir",
                 folder + "/hive/${hive.session.id}_resources")
         .config("spark.hadoop.javax.jdo.option.ConnectionURL",
                 "jdbc:derby:;databaseName=" + folder + "/metastore_db;create=true")
         .config("spark.driver.extraJavaOptions", "-Dderby.system.home=" + folder
                 + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
         .enableHiveSupport().getOrCreate())
for db in (schema + "_deid_work", schema):  # published names win over working ones
    if not spark.catalog.databaseExists(db):
        continue
    for t in spark.catalog.listTables(db):
        spark.table(db + "." + t.name).toPandas().to_parquet(out + "/" + t.name + ".parquet")
spark.stop()
"""


@pytest.fixture(scope="module")
def pg_server(tmp_path_factory) -> PostgresServer:
    reason = _available("postgres")
    if reason:
        pytest.skip(reason)
    # Not under pytest's basetemp: a concurrent pytest session prunes old basetemp folders,
    # which would delete a running server's socket and data.
    base = Path(tempfile.mkdtemp(prefix="dbt_deid_pg_"))
    server = start_postgres(base / "pg")
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def build_on(engine: str, tmp: Path, scenario: str, request: Any) -> EngineRun:
    """``python -m dbt_deid build`` of the scenario's releases on ``engine``."""
    reason = _available(engine)
    if reason:
        pytest.skip(reason)
    deps(INTEGRATION)
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "0", "DBT_DEID_PSEUDONYM_KEY": KEY,
           "DBT_DEID_REPORT_DIR": str(tmp)}
    run = EngineRun(engine, 0, "", scenario)
    select = SELECT
    if engine == "duckdb":
        run.duckdb_path = tmp / "release.duckdb"
        env["DBT_DEID_DUCKDB_PATH"] = str(run.duckdb_path)
        target, run.schema = "dev", "main"
    elif engine == "spark":
        folder = tmp / "spark"
        env.update({"DBT_DEID_SPARK_DIR": str(folder), "DBT_DEID_SPARK_SCHEMA": scenario})
        target = "spark"
        run.full = os.environ.get("DBT_DEID_SPARK_FULL") == "1"
        select = SELECT if run.full else SPARK_SELECT
    else:
        run.server = request.getfixturevalue("pg_server")
        env.update(run.server.env(scenario))
        target = "postgres"
    return run_build(run, tmp, env, target, INTEGRATION / "profiles", select,
                     scenario_vars(scenario), refusing=scenario == "refusing")


def run_build(run: EngineRun, tmp: Path, env: dict[str, str], target: str, profiles: Path,
              select: list[str], variables: dict[str, Any], refusing: bool) -> EngineRun:
    """``python -m dbt_deid build`` in integration_tests (its return code and output into
    ``run``); ``refusing``: gate tests excluded, so the publish materialization must refuse on
    its own. On Spark, every table is then exported by a separate local Spark process
    (``_SPARK_EXPORT``, schema ``run.schema``) from the warehouse under ``tmp / "spark"``."""
    cmd = [sys.executable, "-m", "dbt_deid", "build", "--target", target, "--profiles-dir",
           str(profiles), "--target-path", str(tmp / "target"), "--log-path", str(tmp / "logs"),
           "--select", *select, "--vars", json.dumps(variables)]
    if refusing:
        cmd += ["--exclude", "resource_type:test"]
    # a child of the fork server (dbt imported), with the suite's Jinja and figure caches
    proc = dbt_fork.run(cmd, INTEGRATION, suite_caches(dict(env)))
    run.returncode, run.output = proc.returncode, proc.stdout + proc.stderr
    run.log = tmp / "logs" / "dbt.log"
    if run.engine == "spark":
        run.spark_export = tmp / "spark_tables"
        run.spark_export.mkdir()
        subprocess.run([sys.executable, "-c", _SPARK_EXPORT, str(tmp / "spark"),
                        str(run.spark_export), run.schema], env=env, check=True,
                       capture_output=True, text=True)
    return run


_builds: dict[tuple[str, str], EngineRun] = {}


@pytest.fixture(scope="module")
def built(request):
    """Each scenario built once per engine (lazily), shared by the tests of this module. Not
    under pytest's basetemp: a concurrent pytest session prunes old basetemp folders, and a
    Spark build outlives several."""
    root = Path(tempfile.mkdtemp(prefix="dbt_deid_engines_"))

    def get(engine: str, scenario: str) -> EngineRun:
        if (engine, scenario) not in _builds:
            folder = root / f"{scenario}_{engine}"
            folder.mkdir(exist_ok=True)  # a skipped engine is asked again by the next test
            _builds[engine, scenario] = build_on(engine, folder, scenario, request)
        return _builds[engine, scenario]
    try:
        yield get
    finally:
        _builds.clear()
        shutil.rmtree(root, ignore_errors=True)


def _cell(value: Any) -> Any:
    """One value the same way whatever the engine's driver returned: None for missing,
    'true'/'false', ISO timestamps, floats for numbers, text otherwise."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, _dt.date | np.datetime64):
        return pd.Timestamp(value).isoformat()
    if isinstance(value, int | float | decimal.Decimal | np.number):
        return float(value)
    return str(value)


def _ranks(values: list[Any]) -> np.ndarray:
    """Each normalized value's rank in the sort order of the values (nulls first, then numbers
    in numeric order, then text in text order; equal values share a rank): rows compare on
    the ranks of their values as on the values themselves."""
    distinct = set(values)
    numbers = sorted(v for v in distinct if isinstance(v, float))
    texts = sorted(v for v in distinct if v is not None and not isinstance(v, float))
    rank = {v: r for r, v in enumerate([None, *numbers, *texts])}
    return np.fromiter(map(rank.__getitem__, values), dtype=np.int64, count=len(values))


def _column_cells(series: pd.Series) -> list[Any]:
    """:func:`_cell` of every value of one column; numpy float, integer and boolean columns
    converted without a call per value (the same results: NaN -> None, numbers -> float,
    booleans -> 'true'/'false'), every other column value by value."""
    kind = series.dtype.kind if isinstance(series.dtype, np.dtype) else ""
    if kind == "f":
        return [None if v != v else v for v in series.to_numpy(dtype=np.float64).tolist()]
    if kind in "iu" and kind:
        return [float(v) for v in series.to_numpy().tolist()]
    if kind == "b":
        return ["true" if v else "false" for v in series.to_numpy().tolist()]
    # a str is its own text (_cell returns str(value)); anything else through _cell
    return [v if type(v) is str else _cell(v) for v in series.astype(object).tolist()]


def normalized(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    """The rows sorted, values as :func:`_cell` gives them (a text column whose values are all
    numbers as numbers), columns in name order, so two engines' tables compare value by
    value (sorted by :func:`_ranks` of the values)."""
    columns = []
    for c in sorted(frame.columns):
        values = _column_cells(frame[c])
        present = [v for v in values if v is not None]
        if present and all(isinstance(v, str) for v in present):
            numbers = pd.to_numeric(pd.Series(present), errors="coerce")
            if numbers.notna().all():
                values = [None if v is None else float(v) for v in values]
        columns.append(values)
    if not columns:
        return []
    rows = list(zip(*columns, strict=True))
    # sorted on the values' ranks, the first column the primary key (np.lexsort takes the
    # primary key last; a stable sort, like sorted())
    order = np.lexsort([_ranks(col) for col in reversed(columns)])
    return [rows[i] for i in order.tolist()]


#: Columns that differ by engine in tables otherwise compared: the gate table's binding
#: (fingerprints are each warehouse's own hash of its own text, the settings md5 covers the
#: engine's target settings; the invocation is the build's; the exact check's patterns_hash is
#: the engine's hash of the pattern table it was computed from; the diagnostics' invocation_id
#: (its risk summary and information loss rows) is the build's; the released hierarchy pairs'
#: release_id is the published version's, a hash of the invocation id; the gate table's
#: input_relation names the engine's source relation and snapshot_hash is the engine's hash of
#: the input snapshot: the columns of deid_input_fingerprint, folded into it in session 11).
ENGINE_SPECIFIC_COLUMNS = {
    table: ("settings_md5", "input_hash", "checked_hash", "working_hashes", "invocation_id",
            "snapshot_hash", "input_relation")
    for table in ("deid_gate_results",)
} | {
    # the invocation that computed the history's figures (bound to the gate table's)
    "deid_diagnostics": ("invocation_id",)} | {
    # the history's rows (the release_versions part): when and by which invocation
    "deid_report_inputs": ("recorded_at", "invocation_id")} | {
    # the published version's release id (a hash of the build's invocation id)
    "deid_released_hierarchies": ("release_id",)} | {
    # the md5 of the settings the plan was resolved from (each engine's vars; review 9 final, F7)
    "deid_release_plan": ("settings_md5",)} | {
    # the build whose input fingerprints the verdict read (review 9, G1)
    table: ("inputs_invocation_id",) for table in (
        "deid_claims_lola", "deid_claims_attack", "deid_text_risk_assessment",
        "deid_text_release_gate")}


def assert_same_table(left: pd.DataFrame, right: pd.DataFrame, name: str) -> None:
    drop = [c for c in ENGINE_SPECIFIC_COLUMNS.get(name, ()) if c in left.columns]
    left, right = left.drop(columns=drop), right.drop(columns=drop)
    assert sorted(left.columns) == sorted(right.columns), name
    columns = sorted(left.columns)
    a, b = normalized(left), normalized(right)
    assert len(a) == len(b), name
    for i, (row_a, row_b) in enumerate(zip(a, b, strict=True)):
        if row_a == row_b:  # every value equal (so every float pair also isclose)
            continue
        for c, x, y in zip(columns, row_a, row_b, strict=True):
            if isinstance(x, float) and isinstance(y, float):
                assert math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12), (name, c, i)
            else:
                assert x == y, (name, c, i)


@pytest.mark.parametrize("engine", ENGINES)
def test_releases_build_gate_and_publish(built, engine: str) -> None:
    run = built(engine, "passing")
    assert run.ok, run.output[-4000:]
    assert "ERROR=0" in run.output
    tables = run.tables()
    assert (PUBLISHED if run.full else {"deid_published"}) <= tables
    assert {"deid_release_history", "deid_gate_results"} <= tables
    assert list(run.query("select status from deid_release_history"
                          " where release_kind = 'discharge'")["status"]) == ["published"]
    gates = run.query("select * from deid_gate_results")
    assert {"k_anonymity", "exact_k_anonymity", "max_suppression", "row_count"} <= set(
        gates["gate"])
    assert gates["passed"].astype(bool).all()
    assert "gates passed" in run.output  # the publish materialization ran them on the candidate
    if engine != "duckdb":
        assert "Python models computed by dbt_deid" in run.output
    if engine == "postgres":
        # the publish step runs with the release models' work_mem and JIT off (issue 37,
        # session 16): the header precedes its candidate's create statement in its transaction
        statements = node_statements(run.log, "deid_published")
        candidate = next(i for i, s in enumerate(statements) if "__deid_candidate" in s
                         and "create" in s.lower() and " as" in s)
        assert any("set_config('work_mem'" in s for s in statements[:candidate]), \
            statements[:candidate]
        # and so do a release model's input checks, run while its body is rendered
        statements = node_statements(run.log, "deid_generalized")
        check = next(i for i, s in enumerate(statements) if "count(distinct" in s)
        assert any("set_config('work_mem'" in s for s in statements[:check]), statements[:check]


def node_statements(log: Path | None, model: str) -> list[str]:
    """The SQL statements dbt logged for the node ``model.*.<model>`` in ``log``, in order."""
    assert log is not None and log.exists(), log
    out: list[str] = []
    current: list[str] | None = None
    for line in log.read_text(errors="replace").splitlines():
        if "SQL status:" in line or "[debug]" in line or "[info" in line:
            if current is not None:
                out.append("\n".join(current))
                current = None
            if f".{model}: /*" in line:
                current = []
            continue
        if current is not None:
            current.append(line)
    if current is not None:
        out.append("\n".join(current))
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_failing_releases_publish_nothing(built, engine: str) -> None:
    """Each release refuses on its own: the discharge release's publish materialization runs
    the gates on its candidate (tests excluded) and keeps nothing; the claims release at the
    paper's limits and the text release with missed names refuse at run time."""
    run = built(engine, "refusing")
    assert not run.ok
    assert "release refused, nothing published" in run.output, run.output[-3000:]
    tables = run.tables()
    assert not PUBLISHED & tables
    assert "deid_published__deid_candidate" not in tables
    history = run.query("select status, gates_failed from deid_release_history"
                        " where release_kind = 'discharge'")
    assert list(history["status"]) == ["refused"]
    assert "max_suppression" in history["gates_failed"].iloc[0]
    if not run.full:
        return
    # the claims release is refused by its publish materialization, naming both gates
    claims = run.query("select gates_failed from deid_release_history"
                       " where release_kind = 'claims'")
    assert len(claims) == 2 and all("attack1" in g and "node_risk" in g
                                    for g in claims["gates_failed"]), claims
    gate = run.query("select * from deid_claims_release_gate").set_index("measure")
    assert not _true(gate.loc["node_risk", "passed"])
    assert "set max_suppression to at least" in gate.loc["node_risk", "message"]
    texts = run.query("select gates_failed from deid_release_history where release_kind = 'text'")
    assert len(texts) == 1 and "direct" in texts["gates_failed"][0], texts
    text = run.query("select * from deid_text_risk_assessment").set_index("measure")
    assert not _true(text.loc["direct", "passed"])


def _true(value: Any) -> bool:
    return _cell(value) == "true"


@pytest.mark.parametrize("scenario", ["passing", "refusing"])
@pytest.mark.parametrize("engine", [e for e in ENGINES if e != "duckdb"])
def test_tables_equal_duckdb(built, engine: str, scenario: str) -> None:
    """Same input, same release settings: every table both engines built (the published rows,
    the risk summaries, the information loss, the gates, the searches) is DuckDB's, value for
    value."""
    reference, run = built("duckdb", scenario), built(engine, scenario)
    assert reference.ok == run.ok, run.output[-3000:]
    # the package's tables (the inputs are the project's generators, built by the same code)
    common = {t for t in run.tables() & reference.tables() if t.startswith("deid_")} - set(
        ENGINE_SPECIFIC)
    must = MUST_COMPARE[scenario]
    if not run.full:
        must = must & DISCHARGE
    assert must <= common, must - common
    for table in sorted(common):
        assert_same_table(run.query(f"select * from {table}"),
                          reference.query(f"select * from {table}"), table)
