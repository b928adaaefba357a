"""Benchmark of one release on several engines (issue 16): not a test.

The seed-000 release of :mod:`bench_seed000` (El Emam et al. 2011, the recommended setting:
region, LOS weeks, age group and gender as demographics, adversary at CMG and short CCI, k = 20,
tau = 0.05) built from the demo's synthetic discharge abstracts with ``python -m dbt_deid build``
(the source models, the seeds and the release, as one user command) on each engine, in one run:

* ``duckdb``: embedded DuckDB, dbt runs the Python models;
* ``postgres``: a private PostgreSQL server started for the run (``initdb``/``pg_ctl``, as the
  tests do), dbt_deid computes the Python models through the adapter's connection;
* ``spark``: dbt-spark in session mode on a local Spark (``local[2]``, the demo profile's
  settings), record-level work in Spark SQL, Python models on the driver.

The synthetic source (``generate_discharges(rows, seed=42)``) is loaded into each engine by its
native bulk path before the build and is not part of the comparison (issue 37, item 2): DuckDB
from the frame in process, PostgreSQL by ``COPY ... FROM STDIN`` (the column types the adapter
path gives the generator's frame), Spark by writing the records as Parquet and reading them
into a table of the build's metastore from a separate Spark session (the same column types).
The demo's generator model is then excluded from the build (``--source generator`` keeps it,
as before issue 37: its rows then go back through the adapter on PostgreSQL and Spark).

Per engine: the load time, the whole build's wall time and every node's time
(``run_results.json``, which the segmented runner fills with every segment and the Python
models). The figures that count are the **release's own nodes** (the package's models and
tests, ``model.dbt_deid.*``/``test.dbt_deid.*``: not the demo's hierarchy inputs or the
source): their summed node time and every node's ratio to DuckDB's in the same run. Spark can
run at a smaller size (``--spark-rows``); DuckDB is then also run at that size, for its ratio.

    nice -n 10 .venv/bin/python bench/bench_engines.py [--rows 2375331]
        [--engines duckdb,postgres,spark] [--spark-rows 200000] [--top 0]
        [--source native|generator] [--pg-explain MS] [--workdir DIR]

``--pg-explain MS`` loads auto_explain into the bench's PostgreSQL server and logs every
statement over MS milliseconds with its plan, row counts and buffers (temporary files
included), no timing, to ``<workdir>/postgres_<rows>/pg/server.log``: the plans the build
really ran (fresh tables, no statistics), which a later EXPLAIN cannot show.

Progress goes to stderr, the figures to stdout and ``<workdir>/bench_engines.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.integration.postgres_server

from bench_seed000 import (  # noqa: E402 - after the path
    DEMO,
    PAPER_ROWS,
    RELEASE_SELECTION,
    SEED,
    dbt_release,
    fmt_table,
    log,
    run_child,
)

from dbt_deid.dbt_side.engine.python_nodes import (  # noqa: E402
    _TYPES,
    column_kind,
    postgres_copy_csv,
)
from dbt_deid.tools.synthetic.discharge import generate_discharges  # noqa: E402
from tests.integration.postgres_server import start_postgres  # noqa: E402
from tests.integration.spark_cluster import start_cluster  # noqa: E402

ENGINES = ("duckdb", "postgres", "spark")
TARGETS = {"duckdb": "dev", "postgres": "postgres", "spark": "spark"}
#: The schema the demo's generator model writes to (``+schema: raw``) on each engine's target
#: (DuckDB's default schema ``main``; the bench's ``bench`` elsewhere).
RAW_SCHEMA = {"duckdb": "main_raw", "postgres": "bench_raw", "spark": "bench_raw"}
SOURCE_TABLE = "discharge_abstracts"
#: The release's own nodes: the package's models and tests (not the demo's inputs).
PACKAGE = "dbt_deid"
#: A separate Spark session that reads the Parquet file into a table of the build's metastore
#: (the demo profile's warehouse and Derby metastore; one process at a time can open Derby).
SPARK_LOAD = """
import sys
from pyspark.sql import SparkSession
parquet, spark_dir, schema, table, types = sys.argv[1:6]
spark = (SparkSession.builder.master("local[2]").appName("bench_engines_load")
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "4")
         .config("spark.sql.legacy.createHiveTableByDefault", "false")
         .config("spark.sql.warehouse.dir", spark_dir + "/warehouse")
         .config("spark.hadoop.javax.jdo.option.ConnectionURL",
                 "jdbc:derby:;databaseName=" + spark_dir + "/metastore_db;create=true")
         .config("spark.driver.extraJavaOptions", "-Dderby.system.home=" + spark_dir)
         .enableHiveSupport().getOrCreate())
spark.sql("create database if not exists " + schema)
cols = [c.split(":", 1) for c in types.split(",")]
frame = spark.read.parquet(parquet).selectExpr(*[f"cast(`{c}` as {t}) as `{c}`" for c, t in cols])
frame.write.format("parquet").mode("overwrite").saveAsTable(schema + "." + table)
print(spark.table(schema + "." + table).count())
spark.stop()
"""


@contextmanager
def engine_env(engine: str, workdir: Path,
               load: pd.DataFrame | None = None) -> Iterator[dict[str, Any]]:
    """The environment for the demo profile's target of ``engine`` (a server for postgres),
    with ``load`` (the source records) loaded by the engine's bulk path; ``__load_s`` is the
    load's wall time."""
    env: dict[str, Any] = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "0",
                           "DBT_DEID_REPORT_DIR": str(workdir)}
    if engine == "duckdb":
        env["DBT_DEID_DUCKDB_PATH"] = str(workdir / "bench.duckdb")
        env["__load_s"] = _timed(load_duckdb, load, Path(env["DBT_DEID_DUCKDB_PATH"]))
        yield env
    elif engine == "spark":
        env.update({"DBT_DEID_SPARK_DIR": str(workdir / "spark"),
                    "DBT_DEID_SPARK_SCHEMA": "bench"})
        env["__load_s"] = _timed(load_spark, load, workdir, env)
        if SPARK_CLUSTER.get("workers"):
            cluster = start_cluster(workdir / "cluster", workers=SPARK_CLUSTER["workers"],
                                    memory=SPARK_CLUSTER["worker_memory"])
            try:
                log(f"spark: standalone cluster at {cluster.master_url}"
                    f" ({SPARK_CLUSTER['workers']} workers)")
                env["__profiles"] = str(cluster_profiles(workdir / "profiles", cluster))
                yield env
            finally:
                cluster.stop()
        else:
            yield env
    else:
        server = start_postgres(workdir / "pg", PG_SETTINGS)
        try:
            env.update(server.env("bench"))
            env["__load_s"] = _timed(load_postgres, load, server)
            yield env
        finally:
            server.stop()


#: Set by --pg-explain: extra server parameters of the bench's PostgreSQL server.
PG_SETTINGS: dict[str, str] = {}

#: Set by --spark-cluster: workers (0 = session mode on local[2]), worker and executor memory.
SPARK_CLUSTER: dict[str, Any] = {"workers": 0, "worker_memory": "3g", "executor_memory": "2g"}


def cluster_profiles(folder: Path, cluster: Any) -> Path:
    """The demo's profiles with the ``spark`` target pointed at the cluster's master: one
    1-core executor per worker (tests/integration/test_spark_cluster_release.py's settings,
    with more memory), the same warehouse and metastore as session mode."""
    import yaml

    profiles = yaml.safe_load((DEMO / "profiles" / "profiles.yml").read_text())
    target = profiles["dbt_deid_demo"]["outputs"]["spark"]
    target["server_side_parameters"].update({
        "spark.master": cluster.master_url, "spark.app.name": "bench_engines",
        "spark.executor.cores": "1", "spark.cores.max": str(SPARK_CLUSTER["workers"]),
        "spark.executor.memory": SPARK_CLUSTER["executor_memory"],
        "spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "profiles.yml").write_text(yaml.safe_dump(profiles, sort_keys=False))
    return folder


def _timed(fn: Any, frame: pd.DataFrame | None, *args: Any) -> float | None:
    if frame is None:
        return None
    t = time.perf_counter()
    fn(frame, *args)
    return time.perf_counter() - t


def load_duckdb(frame: pd.DataFrame, db: Path) -> None:
    """The records into ``main_raw.discharge_abstracts`` from the frame (DuckDB's scan of it)."""
    import duckdb

    con = duckdb.connect(str(db))
    con.register("frame", frame)
    con.execute(f"create schema if not exists {RAW_SCHEMA['duckdb']}")
    con.execute(f"create or replace table {RAW_SCHEMA['duckdb']}.{SOURCE_TABLE} as"
                " select * from frame")
    con.close()


def load_postgres(frame: pd.DataFrame, server: Any) -> None:
    """The records by ``COPY ... FROM STDIN``, with the column types the adapter path gives the
    generator's frame (dbt_deid.dbt_side.engine.python_nodes)."""
    kinds = [column_kind(frame[c]) for c in frame.columns]
    cols = ", ".join(f'"{c}" {_TYPES["default"][k]}' for c, k in zip(frame.columns, kinds,
                                                                     strict=True))
    relation = f"{RAW_SCHEMA['postgres']}.{SOURCE_TABLE}"
    con = server.connect()
    try:
        with con.cursor() as cur:
            cur.execute(f"create schema if not exists {RAW_SCHEMA['postgres']}")
            cur.execute(f"drop table if exists {relation}")
            cur.execute(f"create table {relation} ({cols})")
            cur.copy_expert(f"copy {relation} from stdin with (format csv)",
                            postgres_copy_csv(frame, kinds))
            cur.execute(f"analyze {relation}")
        con.commit()
    finally:
        con.close()


def load_spark(frame: pd.DataFrame, workdir: Path, env: dict[str, Any]) -> None:
    """The records as Parquet, read into a table of the build's metastore by a Spark session of
    its own (a child process; the column types of the adapter path)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet = workdir / "source.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), parquet)
    load_spark_parquet(parquet, spark_types(frame), workdir / "spark_load.log", env)


def spark_types(frame: pd.DataFrame) -> str:
    """``column:type,...``: the Spark types the adapter path gives the frame's columns."""
    kinds = [column_kind(frame[c]) for c in frame.columns]
    return ",".join(f"{c}:{_TYPES['spark'][k]}" for c, k in zip(frame.columns, kinds,
                                                                strict=True))


def load_spark_parquet(parquet: Path, types: str, out: Path, env: dict[str, Any]) -> float:
    """Read ``parquet`` into ``bench_raw.discharge_abstracts`` of the metastore under
    ``DBT_DEID_SPARK_DIR`` (a Spark session in a child process), cast to ``types``; seconds."""
    Path(env["DBT_DEID_SPARK_DIR"]).mkdir(parents=True, exist_ok=True)
    code, seconds, _rss, text = run_child(
        [sys.executable, "-c", SPARK_LOAD, str(parquet), env["DBT_DEID_SPARK_DIR"],
         RAW_SCHEMA["spark"], SOURCE_TABLE, types], cwd=Path(env["DBT_DEID_SPARK_DIR"]),
        env={k: v for k, v in env.items() if not k.startswith("__")}, out=out)
    if code != 0:
        raise RuntimeError(f"loading the source into Spark failed:\n{text[-3000:]}")
    log(f"spark: {text.strip().splitlines()[-1]} records loaded from Parquet in {seconds:.1f}s")
    return seconds


def build(engine: str, rows: int, workdir: Path,
          source: pd.DataFrame | None) -> dict[str, Any]:
    """``python -m dbt_deid build`` of the release at ``rows`` records on ``engine``; with
    ``source``, the records loaded natively first and the generator model excluded."""
    workdir.mkdir(parents=True, exist_ok=True)
    variables = json.dumps({"demo_rows": rows, "demo_seed": SEED,
                            "deid_release": dbt_release(0.05)})
    selection = (RELEASE_SELECTION if source is None
                 else [a for a in RELEASE_SELECTION if a != SOURCE_TABLE])
    cmd = [sys.executable, "-m", "dbt_deid", "build", "--target", TARGETS[engine],
           "--profiles-dir", "profiles", "--target-path", str(workdir / "target"),
           "--log-path", str(workdir / "logs"), *selection, "--vars", variables]
    log(f"{engine}: {'load and ' if source is not None else ''}build at {rows:,} records")
    with engine_env(engine, workdir, source) as env:
        load_s = env.pop("__load_s")
        profiles = env.pop("__profiles", None)
        if profiles:
            cmd[cmd.index("--profiles-dir") + 1] = profiles
        if load_s is not None:
            log(f"{engine}: source loaded in {load_s:.1f}s")
        code, seconds, rss, text = run_child(cmd, cwd=DEMO, env=env,
                                             out=workdir / "build.log")
    log(f"{engine}: {'OK' if code == 0 else 'FAILED'} in {seconds:.1f}s")
    out: dict[str, Any] = {"engine": engine, "rows": rows, "wall": seconds, "code": code,
                           "load": load_s, "peak_rss": rss, "nodes": {},
                           "log": str(workdir / "build.log")}
    if code != 0:
        print(text[-3000:])
        return out
    results = json.loads((workdir / "target" / "run_results.json").read_text())
    for r in results["results"]:
        parts = r["unique_id"].split(".")
        name = parts[2] if parts[0] == "test" else parts[-1]  # a test's id ends in a hash
        kind = ("python" if r.get("thread_id") == "dbt_deid" or _is_python(r, engine)
                else r["unique_id"].split(".")[0])
        out["nodes"][name] = {"seconds": float(r["execution_time"]), "kind": kind,
                              "release": r["unique_id"].split(".")[1] == PACKAGE}
    return out


def _is_python(result: dict[str, Any], engine: str) -> bool:
    """On DuckDB dbt runs the Python models itself: their compiled code is Python."""
    code = result.get("compiled_code") or ""
    return engine == "duckdb" and "def model(dbt, session)" in code


def by_kind(run: dict[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for node in run["nodes"].values():
        out[node["kind"]] = out.get(node["kind"], 0.0) + node["seconds"]
    return out


def release_seconds(run: dict[str, Any]) -> float:
    """Summed node time of the release's own nodes (the package's models and tests)."""
    return sum(n["seconds"] for n in run["nodes"].values() if n.get("release"))


def report(runs: list[dict[str, Any]], top: int) -> str:
    lines = []
    base = {r["rows"]: r for r in runs if r["engine"] == "duckdb" and r["code"] == 0}
    rows = []
    for r in runs:
        ref = base.get(r["rows"])
        ok = r["code"] == 0
        ratio = f"{r['wall'] / ref['wall']:.2f}x" if ref and ok else "-"
        rel = release_seconds(r)
        rel_ratio = f"{rel / release_seconds(ref):.2f}x" if ref and ok else "-"
        kinds = by_kind(r)
        rows.append([r["engine"], f"{r['rows']:,}", "ok" if ok else "FAILED",
                     "-" if r.get("load") is None else f"{r['load']:.1f}",
                     f"{r['wall']:.1f}", ratio, f"{rel:.1f}", rel_ratio,
                     f"{kinds.get('model', 0):.1f}", f"{kinds.get('python', 0):.1f}",
                     f"{kinds.get('test', 0):.1f}", f"{r['peak_rss'] / 2**30:.2f}"])
    lines.append(fmt_table(["engine", "records", "build", "source load s", "build wall s",
                            "vs DuckDB", "release nodes s", "release vs DuckDB",
                            "SQL models s", "Python models s", "tests s", "peak RSS GiB"],
                           rows))
    for r in runs:
        ref = base.get(r["rows"])
        if r["code"] != 0 or r["engine"] == "duckdb" or not ref:
            continue
        nodes = sorted(((k, v) for k, v in r["nodes"].items() if v.get("release")),
                       key=lambda kv: -kv[1]["seconds"])
        over = sum(1 for name, node in nodes
                   if node["seconds"] > 2 * ref["nodes"].get(name, {}).get("seconds", 1e9))
        shown = nodes[:top] if top else nodes
        total = release_seconds(r) or 1.0
        table = []
        for name, node in shown:
            ref_s = ref["nodes"].get(name, {}).get("seconds")
            table.append([name, node["kind"], f"{node['seconds']:.2f}",
                          f"{100 * node['seconds'] / total:.0f}%",
                          f"{ref_s:.2f}" if ref_s is not None else "-",
                          f"{node['seconds'] / ref_s:.2f}x" if ref_s else "-"])
        lines.append(f"\n{r['engine']} at {r['rows']:,} records: release nodes against DuckDB"
                     f" in this run ({len(nodes)} nodes, {total:.1f}s summed, {over} over 2x"
                     f"{'' if not top else f'; the {top} slowest shown'})")
        lines.append(fmt_table(["node", "kind", "s", "share", "DuckDB s", "vs DuckDB"], table))
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=PAPER_ROWS)
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--spark-rows", type=int, default=None,
                    help="records for Spark (default --rows); DuckDB also runs at this size")
    ap.add_argument("--top", type=int, default=0,
                    help="slowest release nodes shown per engine (0: all)")
    ap.add_argument("--source", choices=("native", "generator"), default="native",
                    help="native: the records loaded by each engine's bulk path, not built;"
                         " generator: the demo's generator model built through the adapter")
    ap.add_argument("--spark-cluster", type=int, default=0, metavar="WORKERS",
                    help="Spark on a private standalone cluster of WORKERS 1-core workers"
                         " (tests/integration/spark_cluster.py) instead of local[2]")
    ap.add_argument("--worker-memory", default="3g", help="memory per cluster worker")
    ap.add_argument("--executor-memory", default="2g", help="memory per cluster executor")
    ap.add_argument("--pg-explain", type=int, default=None, metavar="MS",
                    help="PostgreSQL: log the plan (auto_explain, with row counts and buffers,"
                         " no timing) and temp files of every statement over MS milliseconds"
                         " to <workdir>/postgres_<rows>/pg/server.log")
    ap.add_argument("--workdir", type=Path, default=None)
    args = ap.parse_args()
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if args.pg_explain is not None:
        PG_SETTINGS.update({
            "shared_preload_libraries": "auto_explain",
            "auto_explain.log_min_duration": str(args.pg_explain),
            "auto_explain.log_analyze": "on", "auto_explain.log_timing": "off",
            "auto_explain.log_buffers": "on", "auto_explain.log_nested_statements": "on",
            "log_temp_files": "10240"})
    SPARK_CLUSTER.update(workers=args.spark_cluster, worker_memory=args.worker_memory,
                         executor_memory=args.executor_memory)
    unknown = set(engines) - set(ENGINES)
    if unknown:
        raise SystemExit(f"unknown engine(s) {sorted(unknown)}; choose from {ENGINES}")
    if not (DEMO / "dbt_packages").exists():
        subprocess.run([str(Path(sys.executable).parent / "dbt"), "deps", "--profiles-dir",
                        "profiles", "--quiet"], cwd=DEMO, check=True)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_engines_"))
    plan = [(e, args.spark_rows if e == "spark" and args.spark_rows else args.rows)
            for e in engines]
    if "duckdb" in engines:  # the baseline at every size another engine runs at
        plan += [("duckdb", rows) for _, rows in plan if ("duckdb", rows) not in plan]
    load = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    frames: dict[int, pd.DataFrame] = {}
    runs = []
    for e, rows in plan:
        if args.source == "native" and rows not in frames:
            log(f"generating {rows:,} records (seed {SEED})")
            frames[rows] = generate_discharges(rows, seed=SEED)
        runs.append(build(e, rows, workdir / f"{e}_{rows}", frames.get(rows)))
    spark_mode = (f"standalone cluster, {args.spark_cluster} workers" if args.spark_cluster
                  else "session mode, local[2]")
    print(f"bench_engines {started} (source: {args.source}; Spark {spark_mode});"
          f" load average at start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}"
          f" on {os.cpu_count()} cores; at end"
          f" {' / '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(report(runs, args.top))
    (workdir / "bench_engines.json").write_text(json.dumps(
        {"started": started, "spark": spark_mode, "argv": sys.argv, "load_start": load,
         "load_end": os.getloadavg(), "runs": runs},
        indent=2))
    print(f"\nfigures: {workdir / 'bench_engines.json'}")
    raise SystemExit(0 if all(r["code"] == 0 for r in runs) else 1)


if __name__ == "__main__":
    main()
