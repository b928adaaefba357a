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
        [--baseline-rev REV [--pairs N]]

``--baseline-rev REV`` (issue 33's acceptance) also builds the release with the package of
git revision REV (``git archive`` of it into ``<workdir>/old_<commit>``, its own ``demo/``
project, profiles and ``RELEASE_SELECTION`` read from its ``bench/bench_seed000.py``, dbt run
with ``PYTHONPATH`` at its ``src``; the venv's dbt is the same), on every engine, in the same
run: per engine ``--pairs`` pairs of builds (old then new, then new then old, and so on, so
that a load rising or falling through the run weighs on both alike), each on a fresh database
loaded with the same frame of records by the same loader (this version's generator and
loader; the frame's SHA-256 is printed for every build, and the old version's own generator
is fingerprinted once per size to say whether it would have produced the same records). It
prints every build's wall time and release-node time and the ratios new/old of their medians
(:mod:`bench_baseline`). The old release's own nodes are whatever its selection builds: the
number of models and tests of each is printed. ``--source generator`` is refused with it (the
records would come from each version's own generator model).

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.integration.postgres_server

from bench_baseline import (  # noqa: E402 - after the path
    OLD_GENERATOR,
    baseline_rows,
    frame_fingerprint,
    release_nodes,
    release_seconds,
)
from bench_seed000 import (  # noqa: E402 - after the path
    DEMO,
    PAPER_ROWS,
    RELEASE_SELECTION,
    REPO,
    SEED,
    dbt_release,
    fmt_table,
    log,
    run_child,
)

from dbt_deid.dbt_side.engine.python_nodes import (  # noqa: E402
    _TYPES,
    column_kind,
    postgres_copy_frame,
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
         .config("spark.hadoop.hive.downloaded.resources.dir",
                 spark_dir + "/hive/${hive.session.id}_resources")
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


@dataclass(frozen=True)
class Package:
    """The package a build uses: ``new`` is this checkout; ``old`` a ``git archive`` of the
    baseline revision, run with ``PYTHONPATH`` at its ``src``."""

    label: str = "new"
    root: Path = REPO
    selection: list[str] = field(default_factory=lambda: list(RELEASE_SELECTION))
    rev: str = "HEAD"
    pythonpath: str | None = None


NEW = Package()


def baseline_package(rev: str, workdir: Path) -> Package:
    """The package of git revision ``rev``: extracted by ``git archive`` into
    ``<workdir>/old_<commit>`` (reused when there), its demo's dbt dependencies installed, its
    ``RELEASE_SELECTION`` read from its ``bench/bench_seed000.py``."""
    from bench_baseline import release_selection

    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                            check=True, capture_output=True, text=True).stdout.strip()
    root = workdir / f"old_{commit[:7]}"
    if not (root / "demo" / "dbt_project.yml").exists():
        root.mkdir(parents=True, exist_ok=True)
        archive = subprocess.Popen(["git", "-C", str(REPO), "archive", commit],
                                   stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", str(root)], stdin=archive.stdout, check=True)
        if archive.wait() != 0:
            raise SystemExit(f"git archive {commit} failed")
    seed000 = root / "bench" / "bench_seed000.py"
    try:
        selection = release_selection(seed000.read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"--baseline-rev {rev}: no RELEASE_SELECTION in {seed000}: {exc}") from exc
    pkg = Package("old", root, selection, commit, str(root / "src"))
    if not (root / "demo" / "dbt_packages").exists():
        subprocess.run([str(Path(sys.executable).parent / "dbt"), "deps", "--profiles-dir",
                        "profiles", "--quiet"], cwd=root / "demo", check=True,
                       env={**os.environ, "PYTHONPATH": pkg.pythonpath or "",
                            "DBT_SEND_ANONYMOUS_USAGE_STATS": "0"})
    log(f"baseline: {commit[:7]} in {root}; its selection: {' '.join(selection)}")
    return pkg


def old_generator_fingerprint(pkg: Package, rows: int) -> str:
    """The SHA-256 of the old package's own ``generate_discharges(rows, seed)`` (a child
    process with ``PYTHONPATH`` at its ``src``; it checks that the old package is the one
    imported)."""
    proc = subprocess.run(
        [sys.executable, "-c", OLD_GENERATOR, str(Path(__file__).resolve().parent), str(rows),
         str(SEED)], env={**os.environ, "PYTHONPATH": pkg.pythonpath or ""},
        capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return f"failed: {proc.stderr.strip().splitlines()[-1:]}"
    imported, sha = proc.stdout.split()[-2:]
    if not imported.startswith(str(pkg.root)):
        raise SystemExit(f"the old package's child imported dbt_deid from {imported},"
                         f" not from {pkg.root}: PYTHONPATH is not honoured")
    return sha


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
            postgres_copy_frame(cur, relation, frame, kinds)
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
          source: pd.DataFrame | None, pkg: Package = NEW) -> dict[str, Any]:
    """``python -m dbt_deid build`` of the release at ``rows`` records on ``engine`` with the
    package ``pkg`` (its demo project and selection); with ``source``, the records loaded
    natively first (their fingerprint recorded) and the generator model excluded."""
    workdir.mkdir(parents=True, exist_ok=True)
    variables = json.dumps({"demo_rows": rows, "demo_seed": SEED,
                            "deid_release": dbt_release(0.05)})
    selection = (pkg.selection if source is None
                 else [a for a in pkg.selection if a != SOURCE_TABLE])
    cmd = [sys.executable, "-m", "dbt_deid", "build", "--target", TARGETS[engine],
           "--profiles-dir", "profiles", "--target-path", str(workdir / "target"),
           "--log-path", str(workdir / "logs"), *selection, "--vars", variables]
    sha = frame_fingerprint(source) if source is not None else None
    log(f"{engine}: {'load and ' if source is not None else ''}build at {rows:,} records"
        f" ({pkg.label} package {pkg.rev[:7]}"
        f"{f'; source sha256 {sha[:16]}' if sha else ''})")
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    load_start = os.getloadavg()
    with engine_env(engine, workdir, source) as env:
        load_s = env.pop("__load_s")
        profiles = env.pop("__profiles", None)
        if pkg.pythonpath is not None:
            env["PYTHONPATH"] = pkg.pythonpath
        if profiles:
            cmd[cmd.index("--profiles-dir") + 1] = profiles
        if load_s is not None:
            log(f"{engine}: source loaded in {load_s:.1f}s")
        code, seconds, rss, text = run_child(cmd, cwd=pkg.root / "demo", env=env,
                                             out=workdir / "build.log")
    log(f"{engine}: {'OK' if code == 0 else 'FAILED'} in {seconds:.1f}s")
    out: dict[str, Any] = {"engine": engine, "rows": rows, "wall": seconds, "code": code,
                           "load": load_s, "peak_rss": rss, "nodes": {},
                           "log": str(workdir / "build.log"), "package": pkg.label,
                           "rev": pkg.rev, "source_sha256": sha, "started": started,
                           "load_average_start": load_start, "load_average": os.getloadavg()}
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


def baseline_report(runs: list[dict[str, Any]], top: int,
                    old_generator: dict[int, str]) -> str:
    """The old and new package side by side: every build (in run order), then per engine and
    size the medians and the ratios new/old, then the release nodes of the last pair."""
    lines = ["Old and new package, every build in run order:"]
    table = []
    for r in runs:
        models, tests = release_nodes(r)
        table.append([r["engine"], f"{r['rows']:,}", f"{r['package']} {r['rev'][:7]}",
                      r["started"][11:19], "ok" if r["code"] == 0 else "FAILED",
                      f"{r['wall']:.1f}", f"{release_seconds(r):.1f}",
                      f"{models} / {tests}", (r.get("source_sha256") or "-")[:16],
                      f"{r['load_average_start'][0]:.1f} / {r['load_average'][0]:.1f}"])
    lines.append(fmt_table(["engine", "records", "package", "start UTC", "build",
                            "build wall s", "release nodes s", "release models / tests",
                            "source sha256", "load avg 1 min start / end"], table))
    for rows, sha in sorted(old_generator.items()):
        news = {r["source_sha256"] for r in runs if r["rows"] == rows}
        same = "the same records" if news == {sha} else "DIFFERENT records (not loaded)"
        lines.append(f"old package's own generator at {rows:,} records: sha256 {sha[:16]}:"
                     f" {same}")
    table = []
    for row in baseline_rows(runs):
        def fmt(x: float | None) -> str:
            return "-" if x is None else f"{x:.1f}"

        table.append([row["engine"], f"{row['rows']:,}",
                      " ".join(f"{x:.1f}" for x in row["old_wall"]) or "-",
                      " ".join(f"{x:.1f}" for x in row["new_wall"]) or "-",
                      "-" if row["wall_ratio"] is None else f"{row['wall_ratio']:.2f}",
                      fmt(row["old_release_median"]), fmt(row["new_release_median"]),
                      "-" if row["release_ratio"] is None else f"{row['release_ratio']:.2f}",
                      "yes" if row["same_source"] else "NO", str(row["failed"])])
    lines.append("\nRatios new/old (of the medians of the successful builds):")
    lines.append(fmt_table(["engine", "records", "old build wall s", "new build wall s",
                            "wall new/old", "old release nodes s", "new release nodes s",
                            "release new/old", "same source", "failed builds"], table))
    for key in dict.fromkeys((r["engine"], r["rows"]) for r in runs):
        pair = {r["package"]: r for r in runs
                if (r["engine"], r["rows"]) == key and r["code"] == 0}
        if set(pair) != {"old", "new"}:
            continue
        old, new = pair["old"]["nodes"], pair["new"]["nodes"]
        names = sorted({n for n, v in {**old, **new}.items() if v.get("release")},
                       key=lambda n: -max(old.get(n, {}).get("seconds", 0),
                                          new.get(n, {}).get("seconds", 0)))
        shown = names[:top] if top else names
        table = [[n, (new.get(n) or old.get(n))["kind"],
                  f"{old[n]['seconds']:.2f}" if n in old else "-",
                  f"{new[n]['seconds']:.2f}" if n in new else "-"] for n in shown]
        lines.append(f"\n{key[0]} at {key[1]:,} records, release nodes of the last successful"
                     f" build of each package ({len(names)} names"
                     f"{'' if not top else f'; the {top} slowest shown'}; - = not in that"
                     " version's build)")
        lines.append(fmt_table(["node", "kind", "old s", "new s"], table))
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
    ap.add_argument("--baseline-rev", default=None, metavar="REV",
                    help="also build with the package of git revision REV (issue 33: old and"
                         " new package in one run, on the same records), old then new")
    ap.add_argument("--pairs", type=int, default=1,
                    help="with --baseline-rev: pairs of builds per engine"
                         " (old, new, new, old, ...)")
    args = ap.parse_args()
    if args.baseline_rev and args.source != "native":
        raise SystemExit("--baseline-rev needs --source native: with the generator model each"
                         " version would build its own generator's records")
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
    if "duckdb" in engines and not args.baseline_rev:  # DuckDB at every other engine's size
        plan += [("duckdb", rows) for _, rows in plan if ("duckdb", rows) not in plan]
    load = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    old = baseline_package(args.baseline_rev, workdir) if args.baseline_rev else None
    new = Package(rev=_head())
    frames: dict[int, pd.DataFrame] = {}
    old_generator: dict[int, str] = {}
    runs = []
    for e, rows in plan:
        if args.source == "native" and rows not in frames:
            log(f"generating {rows:,} records (seed {SEED})")
            frames[rows] = generate_discharges(rows, seed=SEED)
            if old is not None:
                old_generator[rows] = old_generator_fingerprint(old, rows)
                log(f"old generator at {rows:,}: {old_generator[rows][:16]}, loaded frame:"
                    f" {frame_fingerprint(frames[rows])[:16]}")
        if old is None:
            runs.append(build(e, rows, workdir / f"{e}_{rows}", frames.get(rows)))
            continue
        for i in range(args.pairs):  # old, new, new, old, old, new...: a load trend cancels
            for pkg in (old, new) if i % 2 == 0 else (new, old):
                runs.append(build(e, rows, workdir / f"{e}_{rows}_{pkg.label}{i}",
                                  frames.get(rows), pkg))
    spark_mode = (f"standalone cluster, {args.spark_cluster} workers" if args.spark_cluster
                  else "session mode, local[2]")
    print(f"bench_engines {started} (source: {args.source}; Spark {spark_mode});"
          f" load average at start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}"
          f" on {os.cpu_count()} cores; at end"
          f" {' / '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if old is not None:
        print(f"baseline: {old.rev} ({args.baseline_rev}) from {old.root}; new: this checkout"
              f" {new.rev}")
        print(baseline_report(runs, args.top, old_generator))
        news = [r for r in runs if r["package"] == "new"]
        if len({r["engine"] for r in news}) > 1 and "duckdb" in engines:
            print("\nThe new package's engines against DuckDB (the last build of each):")
            print(report(list({(r["engine"], r["rows"]): r for r in news}.values()),
                         args.top))
    else:
        print(report(runs, args.top))
    (workdir / "bench_engines.json").write_text(json.dumps(
        {"started": started, "spark": spark_mode, "argv": sys.argv, "load_start": load,
         "load_end": os.getloadavg(), "baseline": old and [old.rev, str(old.root), old.selection],
         "old_generator_sha256": old_generator, "runs": runs},
        indent=2))
    print(f"\nfigures: {workdir / 'bench_engines.json'}")
    raise SystemExit(0 if all(r["code"] == 0 for r in runs) else 1)


def _head() -> str:
    """This checkout's commit (with ``+changes`` when the tree differs from it)."""
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "src",
                            "macros", "models", "python_models"],
                           capture_output=True, text=True, check=False).stdout.strip()
    return head + (" +changes" if dirty else "")


if __name__ == "__main__":
    main()
