"""Ten times national scale: the seed-000 release at 2.4M and 24M records (not a test).

Issue 18, item 3. El Emam et al. 2011 (seed 000) evaluate their PUMF algorithm on one fiscal
year of the Discharge Abstract Database, 2,375,331 records (Table 2). This bench generates ten
years of that shape (23,753,310 records) and builds the seed-000 release of
``bench/bench_seed000.py`` end to end with ``dbt build`` at one year and at ten years, in the same
run:

1. Generation, in a child process, straight into DuckDB: each year is one seeded batch of
   :func:`dbt_deid.tools.synthetic.discharge.discharge_table` (an Arrow table: never a pandas frame
   of
   the records), appended to ``main_raw.discharge_abstracts`` (where the demo's generator model
   writes it; the bench builds with that model excluded, so ``ref('discharge_abstracts')``
   reads these records). Year 0 is ``generate_discharges(2375331, seed=42)``, the records of
   ``bench_seed000.py``; the one-year database holds exactly those.
2. Per scale: the DuckDB GROUP BY baseline (the seven source QI columns with a count, the pattern
   table's query without the generalization, written to a temporary table; same DuckDB threads
   and memory limit as the build), then one ``dbt build`` of ``demo/`` (hierarchies, seeds, the
   release models, gates, publish, diagnostics and tests; dbt threads and DuckDB memory limit
   ``--threads`` and ``--memory-limit``, by default the demo profile's) in a child process, its
   wall time, peak memory (the largest summed RSS of the dbt process tree sampled from /proc
   every 0.1 s, and the kernel's peak RSS of the child from ``wait4``), per-node times from
   ``run_results.json``.
3. The suppression core on that build's pattern table (``deid_patterns``): the function the
   ``deid_suppression_map`` model calls, timed in this process, and its ratio to the baseline.
4. The independent check (``tests/independent_check.py``) on every published table, on the
   pattern level: the published rows grouped with their record counts against the distinct true
   (generalized, before suppression) tuples of ``deid_suppressed``, which counts exactly what the
   record-level check counts (a class's size is the sum of its patterns' counts; the consistent
   set of a record depends only on its true tuple), plus the record-level identities checked in
   SQL: as many published rows as records, every published cell its true value or suppressed,
   ``deid_published`` equal to the released columns of ``deid_suppressed``. The published
   table is the bench release's, found by its name in ``deid_release_history``; its cells are
   in published form (issue 35: an interval bin '35-39' is published '[35, 40)'), so the
   checked release's cells are put in that form first, per distinct value, by
   ``tests/published_form.py`` (written independently of the package's SQL).
5. An ordered md5 of each published table (compare runs before and after a change).
6. With ``--engine spark`` (issue 37, item 4), after the DuckDB build of each scale: the same
   release on a private Spark standalone cluster (a master and ``--workers`` 1-core workers,
   ``tests/integration/spark_cluster.py``, as ``bench_engines.py --spark-cluster``). The
   scale's records go from DuckDB to Parquet and into the build's metastore by a Spark session
   of their own (not timed with the build), then ``python -m dbt_deid build --target spark``
   (dbt-spark session mode pointed at the master: the driver in the build's process, record
   work in the executors, the Python models on the driver) builds the release. Reported: wall
   time, release-node time and both ratios to the DuckDB build of the same run, the peak RSS of
   every process (build, driver JVM, master, workers, executors: sampled from /proc every
   0.5 s), and the largest table the Python step read (the segmented build prints every
   table a Python model reads with its row count).

    .venv/bin/python bench/bench_scale.py [--years 10] [--workdir DIR] [--reuse-data]
        [--threads 2] [--memory-limit 3GB] [--engine spark [--workers 2]
        [--worker-memory 6g] [--executor-memory 5g]] [--year-rows N]

``--year-rows`` (default 2,375,331) sets the records per year, for a small end-to-end run
(``--years 1 --year-rows 240000 --only small``).

Targets (PASS / MISS): 24M build <= 5 min wall, peak memory <= 8 GiB, time exponent
log(t24 / t2.4) / log(10) <= 1.05; every published table verified.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_seed000 import RELEASE_SELECTION, dbt_release, fmt_table, md_table  # noqa: E402

from dbt_deid.tools.synthetic.discharge import PAPER_ROWS, discharge_table  # noqa: E402
from tests.independent_check import consistent_counts, smallest_class  # noqa: E402
from tests.published_form import published_cell  # noqa: E402

DEMO = REPO / "demo"
DBT = str(Path(sys.executable).parent / "dbt")
SEED = 42          # year 0 = bench_seed000.py's records
YEAR_SEED = 1000   # year y > 0 uses seed SEED + YEAR_SEED * y
GIB = 1024**3
SOURCE = "main_raw.discharge_abstracts"
SOURCE_QIS = ["province", "los_days", "age", "gender", "mrdx", "cmg", "cci_code"]
#: The demo's generator is replaced by the records loaded here; everything else is built.
SELECTION = [a for a in RELEASE_SELECTION if a != "discharge_abstracts"]
#: The publish models of the bench release (package models: the default release's).
PUBLISHED = ["deid_published"]
#: Defaults of --threads and --memory-limit: the demo profile's (2 dbt threads; DuckDB
#: ``memory_limit`` 3GB, env DBT_DEID_DUCKDB_MEMORY_LIMIT). One model at a time with 6GB
#: (``--threads 1 --memory-limit 6GB``) peaks lower at 24M (6.77 against 7.35 GiB) but took
#: longer, 495 s against 443 s back to back (docs/performance.md, "Ten times national scale").
BUILD_THREADS = 2
MEMORY_LIMIT = os.environ.get("DBT_DEID_DUCKDB_MEMORY_LIMIT", "3GB")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def gib(n: float) -> str:
    return f"{n / GIB:.2f} GiB"


# --------------------------------------------------------------------------------------------
# 1. Data


def generate_into(db: Path, years: int, year_rows: int = PAPER_ROWS) -> None:
    """Child process: ``years`` seeded yearly batches appended to ``SOURCE`` in ``db``."""
    import resource

    con = duckdb.connect(str(db))
    con.execute("set threads = 2")
    con.execute("create schema if not exists main_raw")
    t_gen = t_load = 0.0
    for year in range(years):
        t = time.perf_counter()
        batch = discharge_table(year_rows, seed=SEED + YEAR_SEED * year,
                                first_id=1 + year * year_rows, start=f"{2008 + year}-04-01")
        t_gen += time.perf_counter() - t
        t = time.perf_counter()
        con.register("batch", batch)
        if year == 0:
            con.execute(f"create table {SOURCE} as select * from batch")
        else:
            con.execute(f"insert into {SOURCE} select * from batch")
        con.unregister("batch")
        del batch
        t_load += time.perf_counter() - t
        log(f"generate: year {year + 1}/{years} ({t_gen:.0f}s generating, {t_load:.0f}s loading)")
    con.close()
    print(json.dumps({"generate": t_gen, "load": t_load,
                      "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


def one_year_copy(big: Path, small: Path, year_rows: int = PAPER_ROWS) -> None:
    """The first year (ids 1 .. 2,375,331) of ``big`` as its own database."""
    con = duckdb.connect(str(small))
    con.execute(f"attach '{big}' as big (read_only)")
    con.execute("create schema if not exists main_raw")
    con.execute(f"create table {SOURCE} as select * from big.{SOURCE}"
                f" where abstract_id <= {year_rows} order by abstract_id")
    con.close()


# --------------------------------------------------------------------------------------------
# 2. Processes


def tree_rss(root: int) -> int:
    """Summed RSS (bytes) of ``root`` and its descendants, from /proc."""
    return sum(process_rss(root).values())


def process_rss(root: int) -> dict[int, int]:
    """RSS (bytes) of ``root`` and each of its descendants, by pid, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry.name), int(fields[1])
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    out, stack = {}, [root]
    while stack:
        pid = stack.pop()
        out[pid] = rss.get(pid, 0)
        stack += children.get(pid, [])
    return out


def run_measured(cmd: Sequence[str], cwd: Path | None, env: dict[str, str] | None,
                 out: Path) -> dict[str, Any]:
    """Run ``cmd``; wall seconds, exit code, peak RSS (sampled process tree and ``wait4``), CPU
    seconds (``wait4``'s user + system time: less noisy than the wall time for comparing two
    versions of the code on a shared machine)."""
    peak = [0]
    t = time.perf_counter()
    with out.open("w") as fh:
        proc = subprocess.Popen(list(cmd), cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT)
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.1):
                peak[0] = max(peak[0], tree_rss(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _pid, status, usage = os.wait4(proc.pid, 0)
        done.set()
        sampler.join()
    return {"seconds": time.perf_counter() - t, "code": os.waitstatus_to_exitcode(status),
            "tree_rss": peak[0], "maxrss": usage.ru_maxrss * 1024,
            "peak": max(peak[0], usage.ru_maxrss * 1024),
            # CPU seconds (user + system) of the child and the descendants it waited for: dbt
            # runs DuckDB and the Python models in its own process, so this is the build's work
            "cpu": usage.ru_utime + usage.ru_stime}


# --------------------------------------------------------------------------------------------
# 3. Per scale


def duckdb_settings(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    return dict(con.execute(
        "select name, value from duckdb_settings() where name in"
        " ('threads', 'memory_limit', 'temp_directory', 'preserve_insertion_order')").fetchall())


def baseline(db: Path, settings: dict[str, str], repeat: int) -> float:
    """Best-of-``repeat`` seconds of one DuckDB GROUP BY of the source QIs into a table."""
    sel = ", ".join(SOURCE_QIS)
    best = math.inf
    with duckdb.connect(str(db)) as con:
        for name, value in settings.items():
            con.execute(f"set {name} = '{value}'")
        for _ in range(repeat):
            t = time.perf_counter()
            con.execute(f"create or replace temp table _baseline as select {sel}, count(*) as n"
                        f" from {SOURCE} group by all")
            best = min(best, time.perf_counter() - t)
    return best


def claim_target(target: Path, project: Path) -> None:
    """Make ``target`` (a dbt --target-path) the given project's: a parse saved there from
    another checkout (another worktree) points at that checkout's seed files, and dbt reuses it,
    so it is dropped unless the folder's stamp names this project."""
    stamp = target / "dbt_deid_project_dir.txt"
    here = str(project.resolve())
    if not stamp.exists() or stamp.read_text() != here:
        (target / "partial_parse.msgpack").unlink(missing_ok=True)
    target.mkdir(parents=True, exist_ok=True)
    stamp.write_text(here)


def dbt_build(db: Path, workdir: Path, label: str, threads: int = BUILD_THREADS,
              memory_limit: str = MEMORY_LIMIT) -> dict[str, Any]:
    release = dbt_release(0.05)
    variables = json.dumps({"demo_seed": SEED, "deid_release": release})
    target = workdir / f"target_{label}"
    claim_target(target, DEMO)
    env = {**os.environ, "DBT_DEID_DUCKDB_PATH": str(db), "DBT_SEND_ANONYMOUS_USAGE_STATS": "0",
           "DBT_DEID_DUCKDB_MEMORY_LIMIT": memory_limit}
    cmd = [DBT, "build", *SELECTION, "--threads", str(threads), "--profiles-dir",
           "profiles", "--target-path", str(target), "--log-path", str(workdir / f"logs_{label}"),
           "--vars", variables]
    log(f"{label}: dbt build")
    res = run_measured(cmd, DEMO, env, workdir / f"dbt_build_{label}.log")
    shown = " ".join(shlex.quote(c) for c in cmd[1:]).replace(shlex.quote(variables), "'<vars>'")
    res["command"] = (f"cd demo && DBT_DEID_DUCKDB_PATH=<db> DBT_DEID_DUCKDB_MEMORY_LIMIT="
                      f"{memory_limit} dbt {shown}")
    if res["code"] != 0:
        print((workdir / f"dbt_build_{label}.log").read_text()[-6000:])
        raise SystemExit(f"dbt build failed at {label}: {workdir / f'dbt_build_{label}.log'}")
    run = json.loads((target / "run_results.json").read_text())
    res["nodes"] = sorted(((r["unique_id"].split(".", 2)[-1], float(r["execution_time"]))
                           for r in run["results"]), key=lambda x: -x[1])
    res["dbt_elapsed"] = float(run["elapsed_time"])
    res["threads"] = threads
    manifest = json.loads((target / "manifest.json").read_text())
    node = next(n for n in manifest["nodes"].values() if n["name"] == "deid_suppression_map")
    res["release_json"] = node["config"]["deid_release_json"]
    log(f"{label}: dbt build {res['seconds']:.1f}s, peak {gib(res['peak'])}")
    return res


class _Quiet:
    def info(self, msg: str) -> None:
        pass


def core(db: Path, release_json: str, repeat: int) -> dict[str, Any]:
    """The suppression core as ``deid_suppression_map`` runs it, on the build's pattern table."""
    from dbt_deid.dbt_side.glue.release import suppression_map

    with duckdb.connect(str(db), read_only=True) as con:
        patterns = con.sql("select * from main_deid_work.deid_patterns").to_arrow_table()
    release = json.loads(release_json)
    best = math.inf
    rows = 0
    for _ in range(repeat):
        t = time.perf_counter()
        out = suppression_map(patterns, release, logger=_Quiet())
        best = min(best, time.perf_counter() - t)
        rows = len(out)
    return {"seconds": best, "patterns": patterns.num_rows, "map_rows": rows}


def check(db: Path, release_json: str) -> dict[str, Any]:
    """The independent check on the pattern level (see the module docstring).

    Per verified combination: the published rows grouped with their record counts, and the
    true (generalized) tuples of ``deid_suppressed`` grouped with theirs. The smallest class
    is ``smallest_class`` (loops: a few thousand published patterns); the consistent sets are
    ``consistent_counts`` (numpy: the loop of ``smallest_consistent_set`` over millions of
    true tuples did not finish at 24M records), whose minimum is the smallest consistent set
    and whose tuples below k give the records below k (0 exactly when the minimum is >= k; a
    cross-check, in ``below_k``). The record-level identities are SQL; the multiset equality
    of ``deid_published`` and ``deid_suppressed``'s released columns is counted on the grouped
    rows (the same number as EXCEPT ALL both ways, 15x faster at 2.4M records)."""
    from dbt_deid.config import parse_release

    release = json.loads(release_json)
    cfg = parse_release(release)
    out: dict[str, Any] = {"tables": {}}
    t0 = time.perf_counter()
    with duckdb.connect(str(db), read_only=True) as con:
        con.execute("set threads = 2")
        released = cfg.released_qis()
        forms = published_forms(con, release, released)
        for table in PUBLISHED:
            pub = bench_published_relation(con, release["name"], table)
            sel = ", ".join(f"cast({q} as varchar) as {q}" for q in released)
            # deid_suppressed's released cells, and its true (generalized) cells, in published form
            shown = published_form_sql(released, released, forms)
            n_pub, n_src = con.execute(f"select (select count(*) from {pub}),"
                                       f" (select count(*) from {SOURCE})").fetchone()
            # rows in one table and not the other, as multisets: what EXCEPT ALL both ways
            # counts, summed over the distinct rows as |count in one - count in the other|
            on = " and ".join(f"p.{q} is not distinct from s.{q}" for q in released)
            diff = con.execute(
                f"select coalesce(sum(abs(coalesce(p.n, 0) - coalesce(s.n, 0))), 0) from"
                f" (select {sel}, count(*) as n from {pub} group by all) p full outer join"
                f" (select *, count(*) as n from ({shown}) group by all) s on {on}").fetchone()[0]
            untrue = con.execute(
                "select count(*) from main_deid_work.deid_suppressed where "
                + " or ".join(f"({q} is not null and {q} is distinct from {q}__generalized)"
                              for q in released)).fetchone()[0]
            combos = []
            below_k: dict[str, int] = {}
            for b in cfg.verified_combinations():
                cols = ", ".join(b)
                published = con.execute(
                    "select " + ", ".join(f"cast({q} as varchar) as {q}" for q in b)
                    + f", count(*) as n from {pub} group by all").df()
                truth = con.execute(
                    f"select {cols}, count(*) as n from"
                    f" ({published_form_sql(b, [f'{q}__generalized' for q in b], forms)})"
                    " group by all").df()
                smallest = smallest_class(published, b, counts="n")
                per_tuple = consistent_counts(truth, published, b, counts="n")
                consistent = int(per_tuple.min()) if len(per_tuple) else 0
                below_k[", ".join(b)] = int(truth["n"].to_numpy()[per_tuple < cfg.k].sum())
                combos.append((list(b), len(published), len(truth), smallest, consistent,
                               smallest >= cfg.k and consistent >= cfg.k))
            md5 = published_md5(con, pub) if n_pub <= 3 * PAPER_ROWS else None
            out["tables"][table] = {
                "relation": pub, "rows": (n_pub, n_src), "diff": diff, "untrue": untrue,
                "combos": combos,
                "md5": md5, "below_k": below_k,
                "ok": n_pub == n_src and diff == 0 and untrue == 0
                and all(c[-1] for c in combos) and not any(below_k.values())}
    out["seconds"] = time.perf_counter() - t0
    out["k"] = cfg.k
    return out


def bench_published_relation(con: duckdb.DuckDBPyConnection, release: str, table: str) -> str:
    """The relation the bench release published as ``table`` (its last 'published' row in
    ``deid_release_history``, in the target schema): the table the check reads is the bench
    release's, not another release's table of that name."""
    rows = con.execute(
        "select published_relation from main.deid_release_history where release_name = ?"
        " and status = 'published' order by recorded_at desc", [release]).fetchall()
    found = [r[0] for r in rows if r[0].split(".")[-1].strip('"') == table]
    if not found:
        raise SystemExit(f"release {release} published no {table} (deid_release_history)")
    return found[0]


def published_forms(con: duckdb.DuckDBPyConnection, release: dict[str, Any],
                    released: Sequence[str]) -> dict[str, Any]:
    """Per released QI, the frame (checked, shown): each distinct checked cell of
    ``deid_suppressed`` (released and generalized) and its published form
    (``tests/published_form.published_cell``, at the release's level), registered on ``con``
    as ``form_<qi>``. Per distinct value, so it scales with the categories, not the records."""
    import pandas as pd

    qis = release["quasi_identifiers"]
    missing = release.get("missing_label", "<missing>")
    forms = {}
    for q in released:
        values = [r[0] for r in con.execute(
            f"select distinct v from (select cast({q} as varchar) as v from"
            f" main_deid_work.deid_suppressed union all select cast({q}__generalized as varchar)"
            " from main_deid_work.deid_suppressed) where v is not null").fetchall()]
        spec = qis[q]
        shown = [published_cell(v, spec.get("rule"), int(spec.get("level", 0)), missing)
                 for v in values]
        forms[q] = pd.DataFrame({"checked": values, "shown": [str(v) for v in shown]})
        con.register(f"form_{q}", forms[q])
    return forms


def published_form_sql(names: Sequence[str], columns: Sequence[str], forms: dict[str, Any]) -> str:
    """deid_suppressed's ``columns`` in published form, as columns ``names`` (a NULL stays NULL)."""
    cols = ", ".join(f"f{i}.shown as {n}" for i, n in enumerate(names))
    joins = " ".join(f"left join form_{n} f{i} on cast(s.{c} as varchar) = f{i}.checked"
                     for i, (n, c) in enumerate(zip(names, columns, strict=True)))
    return f"select {cols} from main_deid_work.deid_suppressed s {joins}"


def published_md5(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """md5 of the table's rows as text, sorted (one md5 per row, then of their sorted list)."""
    cols = [r[0] for r in con.execute(f"describe {table}").fetchall()]
    row = " || '|' || ".join(f"coalesce(cast({c} as varchar), '<null>')" for c in cols)
    return con.execute(f"select md5(string_agg(h, ',' order by h)) from"
                       f" (select md5({row}) as h from {table})").fetchone()[0]



# --------------------------------------------------------------------------------------------
# 6. Spark on a local standalone cluster (--engine spark)

#: Spark workers of the cluster (one core each) and their memory defaults (--worker-memory,
#: --executor-memory): the machine has 2 cores and 24 GiB, shared.
SPARK_WORKERS = 2
#: "<model> read <relation> (<n> rows)": printed by the segmented build per table a Python
#: model reads (dbt_deid.dbt_side.engine.segmented).
READ_LINE = re.compile(r"Python model (\S+) read (\S+) \((\d+) rows\)")
#: Processes below this peak RSS are counted, not listed (Python workers, shells).
SHOWN_RSS = 100 * 1024**2
#: Process kinds by their command line, for the per-process peak memory.
PROCESS_KINDS = [("deploy.master.Master", "Spark master"),
                 ("deploy.worker.Worker", "Spark worker"),
                 ("CoarseGrainedExecutorBackend", "Spark executor"),
                 ("SparkSubmit", "Spark driver JVM (in the build)"),
                 ("dbt_deid build", "dbt_deid build (Python: dbt, glue)")]


class ProcessPeaks:
    """Peak RSS of every process under ``root`` (by pid, with its kind), sampled from /proc
    every ``interval`` seconds in a thread until ``stop``."""

    def __init__(self, root: int, interval: float = 0.5) -> None:
        self.root, self.interval = root, interval
        self.peaks: dict[int, tuple[str, int]] = {}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> ProcessPeaks:
        self._thread.start()
        return self

    def stop(self) -> list[tuple[str, int, int]]:
        """(kind, pid, peak bytes) of every process seen, largest first."""
        self._done.set()
        self._thread.join()
        return sorted(((k, pid, b) for pid, (k, b) in self.peaks.items()), key=lambda x: -x[2])

    def _run(self) -> None:
        while not self._done.wait(self.interval):
            for pid, rss in process_rss(self.root).items():
                if pid == self.root:
                    continue
                kind, peak = self.peaks.get(pid) or (_kind(pid), 0)
                self.peaks[pid] = (kind, max(peak, rss))


def _kind(pid: int) -> str:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "?"
    cmd = cmd.replace("-m dbt_deid build", "dbt_deid build")
    for marker, kind in PROCESS_KINDS:
        if marker in cmd:
            return kind
    return Path(cmd.split(" ", 1)[0]).name or "?"


def release_seconds(target: Path) -> float:
    """Summed node time of the release's own nodes (``model.dbt_deid.*``/``test.dbt_deid.*``)
    in ``target``'s run_results.json, as bench_engines.py counts them."""
    run = json.loads((target / "run_results.json").read_text())
    return sum(float(r["execution_time"]) for r in run["results"]
               if r["unique_id"].split(".")[1] == "dbt_deid")


def spark_build(db: Path, workdir: Path, label: str, workers: int, worker_memory: str,
                executor_memory: str) -> dict[str, Any]:
    """The release on a private Spark standalone cluster, from the records of ``db``."""
    from bench_engines import (
        SPARK_CLUSTER,
        cluster_profiles,
        load_spark_parquet,
        spark_types,
    )

    from dbt_deid.tools.synthetic.discharge import generate_discharges
    from tests.integration.spark_cluster import start_cluster

    base = workdir / f"spark_{label}"
    shutil.rmtree(base, ignore_errors=True)  # a fresh warehouse and metastore
    base.mkdir(parents=True)
    parquet = base / "source.parquet"
    t = time.perf_counter()
    with duckdb.connect(str(db), read_only=True) as con:
        con.execute("set threads = 2")
        con.execute(f"copy (select * from {SOURCE}) to '{parquet}' (format parquet)")
    export_s = time.perf_counter() - t
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "0",
           "DBT_DEID_REPORT_DIR": str(base), "DBT_DEID_SPARK_DIR": str(base / "spark"),
           "DBT_DEID_SPARK_SCHEMA": "bench"}
    log(f"{label}: spark: loading the records (Parquet exported in {export_s:.0f}s)")
    # the column types bench_engines.py gives the same generator's records
    load_s = load_spark_parquet(parquet, spark_types(generate_discharges(100, seed=SEED)),
                                base / "spark_load.log", env)
    SPARK_CLUSTER.update(workers=workers, worker_memory=worker_memory,
                         executor_memory=executor_memory)
    variables = json.dumps({"demo_seed": SEED, "deid_release": dbt_release(0.05)})
    peaks = ProcessPeaks(os.getpid()).start()
    load = os.getloadavg()
    cluster = start_cluster(base / "cluster", workers=workers, memory=worker_memory)
    try:
        profiles = cluster_profiles(base / "profiles", cluster)
        cmd = [sys.executable, "-m", "dbt_deid", "build", "--target", "spark",
               "--profiles-dir", str(profiles), "--target-path", str(base / "target"),
               "--log-path", str(base / "logs"), *SELECTION, "--vars", variables]
        log(f"{label}: spark: build on {cluster.master_url} ({workers} workers)")
        res = run_measured(cmd, DEMO, env, base / "build.log")
    finally:
        cluster.stop()
        processes = peaks.stop()
    text = (base / "build.log").read_text()
    if res["code"] != 0:
        print(text[-6000:])
        raise SystemExit(f"Spark build failed at {label}: {base / 'build.log'}")
    reads = [(m.group(1), m.group(2), int(m.group(3))) for m in READ_LINE.finditer(text)]
    shown = " ".join(shlex.quote(c) for c in cmd[1:]).replace(shlex.quote(variables),
                                                               "'<vars>'")
    res.update(export=export_s, load_s=load_s, load=load, processes=processes, reads=reads,
               release=release_seconds(base / "target"), workers=workers,
               worker_memory=worker_memory, executor_memory=executor_memory,
               command=f"cd demo && python {shown}")
    log(f"{label}: spark: build {res['seconds']:.1f}s")
    return res


def report_spark(label: str, r: dict[str, Any]) -> None:
    sp, duck = r["spark"], r["build"]
    print(f"\n### {label}: Spark standalone cluster ({sp['workers']} 1-core workers, worker"
          f" memory {sp['worker_memory']}, executor memory {sp['executor_memory']})")
    print(f"load average before the build: {' '.join(f'{x:.2f}' for x in sp['load'])};"
          f" records to Parquet {sp['export']:.0f}s and into the metastore {sp['load_s']:.0f}s"
          " (not timed with the build)")
    print(f"build: {sp['seconds']:.1f}s wall, {sp['seconds'] / duck['seconds']:.2f}x the DuckDB"
          f" build of this run ({duck['seconds']:.1f}s); release nodes {sp['release']:.1f}s,"
          f" {sp['release'] / duck['release']:.2f}x DuckDB's ({duck['release']:.1f}s);"
          f" process tree of the build peak {gib(sp['peak'])}")
    print(f"  {sp['command']}")
    shown = [(k, pid, b) for k, pid, b in sp["processes"] if b >= SHOWN_RSS]
    print(f"peak RSS per process (sampled every 0.5 s; {len(sp['processes']) - len(shown)}"
          f" short-lived or small processes under {gib(SHOWN_RSS)} not shown):")
    print(fmt_table(["process", "pid", "peak RSS"], [(k, pid, gib(b)) for k, pid, b in shown]))
    if sp["reads"]:
        model, relation, n = max(sp["reads"], key=lambda x: x[2])
        patterns = [r for r in sp["reads"] if "pattern" in r[1]]
        if patterns:
            p_model, p_relation, p_n = max(patterns, key=lambda x: x[2])
            print(f"largest pattern table a Python step held: {p_relation} ({p_n:,} rows, read"
                  f" by {p_model})")
        print(f"largest table a Python step held: {relation} ({n:,} rows, read by {model});"
              " every read:")
        print(fmt_table(["Python model", "table read", "rows"],
                        [(m, rel, f"{n_:,}") for m, rel, n_ in sp["reads"]]))

# --------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--years", type=int, default=10, help="years of records at the large scale")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--reuse-data", action="store_true",
                    help="keep the generated databases of --workdir (dropping built tables)")
    ap.add_argument("--only", choices=["small", "large"], default=None)
    ap.add_argument("--threads", type=int, default=BUILD_THREADS,
                    help="dbt threads of the builds (models at a time)")
    ap.add_argument("--memory-limit", default=MEMORY_LIMIT,
                    help="DuckDB memory_limit of the builds and the baseline")
    ap.add_argument("--repeat", type=int, default=2, help="repetitions of baseline and core")
    ap.add_argument("--year-rows", type=int, default=PAPER_ROWS,
                    help="records per year (default one DAD year, 2,375,331)")
    ap.add_argument("--engine", choices=["duckdb", "spark"], default="duckdb",
                    help="spark: also build each scale on a local Spark standalone cluster")
    ap.add_argument("--workers", type=int, default=SPARK_WORKERS,
                    help="1-core Spark workers (--engine spark)")
    ap.add_argument("--worker-memory", default="6g", help="memory per Spark worker")
    ap.add_argument("--executor-memory", default="5g", help="memory per Spark executor")
    ap.add_argument("--generate-into", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.generate_into is not None:
        generate_into(args.generate_into, args.years, args.year_rows)
        return
    # SIGTERM (a `timeout`) as SystemExit: the Spark cluster's processes run in sessions of
    # their own and are stopped by spark_build's `finally`, which a plain SIGTERM skips
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    command = "python bench/bench_scale.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_scale_"))
    workdir.mkdir(parents=True, exist_ok=True)
    if not (DEMO / "dbt_packages").exists():
        subprocess.run([DBT, "deps", "--profiles-dir", "profiles", "--quiet"], cwd=DEMO,
                       check=True)
    t_start = time.perf_counter()
    big, small = workdir / "scale_large.duckdb", workdir / "scale_small.duckdb"
    print(f"# seed-000 release at 1 and {args.years} years of discharge abstracts")
    print(f"command: {command}; workdir {workdir};"
          f" {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"load average at start: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}"
          f" {os.getloadavg()[2]:.2f}")
    if not (args.reuse_data and big.exists() and small.exists()):
        for f in (big, small):
            f.unlink(missing_ok=True)
        log(f"generating {args.years * args.year_rows} records into {big}")
        gen = run_measured([sys.executable, __file__, "--years", str(args.years),
                            "--year-rows", str(args.year_rows), "--generate-into", str(big)],
                           None, None, workdir / "generate.log")
        text = (workdir / "generate.log").read_text()
        if gen["code"] != 0:
            raise SystemExit(text)
        info = json.loads(text.strip().splitlines()[-1])
        t = time.perf_counter()
        one_year_copy(big, small, args.year_rows)
        print(f"generated {args.years} x {args.year_rows} records: {gen['seconds']:.0f}s wall"
              f" (Arrow batches {info['generate']:.0f}s, DuckDB appends {info['load']:.0f}s),"
              f" peak {gib(gen['peak'])}; one-year copy {time.perf_counter() - t:.0f}s")
    else:
        for f in (big, small):
            with duckdb.connect(str(f)) as con:
                for kind, schema, name in con.execute(
                        "select 'view', schema_name, view_name from duckdb_views()"
                        " where not internal union all select 'table', schema_name, table_name"
                        " from duckdb_tables() where not (schema_name = 'main_raw'"
                        " and table_name = 'discharge_abstracts')").fetchall():
                    con.execute(f'drop {kind} if exists "{schema}"."{name}" cascade')
        print("data reused from the workdir (built tables dropped)")

    year_m = args.year_rows / 1e6
    scales = [(f"{year_m:.2g}M", small, 1), (f"{args.years * year_m:.2g}M", big, args.years)]
    if args.only:
        scales = scales[:1] if args.only == "small" else scales[1:]
    results: dict[str, dict[str, Any]] = {}
    for label, db, years in scales:
        with duckdb.connect(str(db), read_only=True) as con:
            records = con.execute(f"select count(*) from {SOURCE}").fetchone()[0]
        settings = {"threads": "2", "memory_limit": args.memory_limit,
                    "preserve_insertion_order": "false"}
        log(f"{label}: baseline")
        base = baseline(db, settings, args.repeat)
        load = os.getloadavg()
        build = dbt_build(db, workdir, label.replace(".", "_"), args.threads, args.memory_limit)
        build["release"] = release_seconds(workdir / f"target_{label.replace('.', '_')}")
        log(f"{label}: suppression core")
        cr = core(db, build["release_json"], args.repeat)
        log(f"{label}: independent check")
        chk = check(db, build["release_json"])
        results[label] = {"records": records, "years": years, "baseline": base, "build": build,
                          "core": cr, "check": chk, "load": load}
        report_scale(label, results[label])
        if args.engine == "spark":
            results[label]["spark"] = spark_build(db, workdir, label.replace(".", "_"),
                                                  args.workers, args.worker_memory,
                                                  args.executor_memory)
            report_spark(label, results[label])
        sys.stdout.flush()
    if len(results) == 2:
        report_summary(results, command)
    print(f"\ntotal bench time {time.perf_counter() - t_start:.0f}s; load average at end:"
          f" {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def report_scale(label: str, r: dict[str, Any]) -> None:
    b, c, chk = r["build"], r["core"], r["check"]
    print(f"\n## {label}: {r['records']} records ({r['years']} year(s))")
    print(f"load average before the build: {' '.join(f'{x:.2f}' for x in r['load'])}")
    print(f"DuckDB GROUP BY baseline ({len(SOURCE_QIS)} source QIs, best of the repeats):"
          f" {r['baseline']:.2f}s")
    print(f"dbt build: {b['seconds']:.1f}s wall ({b['seconds'] / r['baseline']:.0f}x baseline),"
          f" dbt elapsed {b['dbt_elapsed']:.1f}s; peak memory {gib(b['peak'])}"
          f" (process tree sampled {gib(b['tree_rss'])}, wait4 maxrss {gib(b['maxrss'])});"
          f" CPU user+sys {b['cpu']:.0f}s ({b['cpu'] / b['seconds']:.2f} cores on average)")
    print(f"  {b['command']}")
    print(f"suppression core (deid_suppression_map's function on {c['patterns']} patterns):"
          f" {c['seconds']:.2f}s ({c['seconds'] / r['baseline']:.1f}x baseline),"
          f" {c['map_rows']} map rows")
    print(f"slowest nodes (run_results.json execution_time, {b['threads']} dbt thread(s)):")
    print(fmt_table(["node", "seconds"], [(n, f"{t:.1f}") for n, t in b["nodes"][:12]]))
    print(f"independent check (tests/independent_check.py, pattern level, k = {chk['k']}):"
          f" {chk['seconds']:.0f}s")
    for table, t in chk["tables"].items():
        print(f"  {table} ({t['relation']}): {t['rows'][0]} published rows /"
              f" {t['rows'][1]} records; differing from deid_suppressed (in published form)"
              f" {t['diff']}; cells not true and not suppressed"
              f" {t['untrue']}; records consistent with fewer than k published records"
              f" {sum(t.get('below_k', {}).values())};"
              f" md5 {t['md5'] or '(not computed above 3 years)'};"
              f" {'OK' if t['ok'] else 'FAILED'}")
        print(fmt_table(["combination", "published patterns", "true tuples", "smallest class",
                         "smallest consistent set", "ok"],
                        [("+".join(b_), p, tt, s, cs, "yes" if ok else "NO")
                         for b_, p, tt, s, cs, ok in t["combos"]]))


def report_summary(results: dict[str, dict[str, Any]], command: str) -> None:
    (sl, s), (ll, lg) = results.items()
    factor = lg["records"] / s["records"]
    exponent = math.log(lg["build"]["seconds"] / s["build"]["seconds"]) / math.log(factor)
    core_exp = math.log(lg["core"]["seconds"] / s["core"]["seconds"]) / math.log(factor)
    base_exp = math.log(lg["baseline"] / s["baseline"]) / math.log(factor)
    peak = max(r["build"]["peak"] for r in results.values())
    ok = all(t["ok"] for r in results.values() for t in r["check"]["tables"].values())
    targets = [
        (f"dbt build at {ll} <= 5 min wall", f"{lg['build']['seconds']:.0f} s",
         lg["build"]["seconds"] <= 300),
        ("peak memory <= 8 GiB", gib(peak), peak <= 8 * GIB),
        (f"time exponent log(t{ll}/t{sl})/log({factor:.0f}) <= 1.05", f"{exponent:.2f}",
         exponent <= 1.05),
        ("every published table passes the independent check", "all ok" if ok else "FAILED",
         ok),
    ]
    print("\n## Summary\n")
    print(md_table(["measure", sl, ll, "exponent"], [
        ("records", f"{s['records']:,}", f"{lg['records']:,}", ""),
        ("DuckDB GROUP BY baseline", f"{s['baseline']:.2f} s", f"{lg['baseline']:.2f} s",
         f"{base_exp:.2f}"),
        ("dbt build, wall", f"{s['build']['seconds']:.0f} s", f"{lg['build']['seconds']:.0f} s",
         f"{exponent:.2f}"),
        ("dbt build / baseline", f"{s['build']['seconds'] / s['baseline']:.0f}x",
         f"{lg['build']['seconds'] / lg['baseline']:.0f}x", ""),
        ("peak memory (dbt process tree)", gib(s["build"]["peak"]), gib(lg["build"]["peak"]),
         ""),
        ("dbt build, CPU user+sys", f"{s['build']['cpu']:.0f} s", f"{lg['build']['cpu']:.0f} s",
         ""),
        ("suppression core", f"{s['core']['seconds']:.2f} s", f"{lg['core']['seconds']:.2f} s",
         f"{core_exp:.2f}"),
        ("suppression core / baseline", f"{s['core']['seconds'] / s['baseline']:.1f}x",
         f"{lg['core']['seconds'] / lg['baseline']:.1f}x", ""),
        ("patterns", f"{s['core']['patterns']:,}", f"{lg['core']['patterns']:,}", ""),
        ("load average (1/5/15 min) before the build",
         " ".join(f"{x:.1f}" for x in s["load"]), " ".join(f"{x:.1f}" for x in lg["load"]), ""),
    ]))
    if "spark" in s and "spark" in lg:
        spark_exp = math.log(lg["spark"]["seconds"] / s["spark"]["seconds"]) / math.log(factor)
        print(md_table(["Spark cluster", sl, ll, "exponent"], [
            ("build, wall", f"{s['spark']['seconds']:.0f} s", f"{lg['spark']['seconds']:.0f} s",
             f"{spark_exp:.2f}"),
            ("build / DuckDB build", *(f"{r['spark']['seconds'] / r['build']['seconds']:.2f}x"
                                       for r in (s, lg)), ""),
            ("release nodes / DuckDB's", *(f"{r['spark']['release'] / r['build']['release']:.2f}x"
                                           for r in (s, lg)), ""),
            ("largest process peak RSS", *(gib(r["spark"]["processes"][0][2]) + " ("
                                           + r["spark"]["processes"][0][0] + ")"
                                           for r in (s, lg)), ""),
            ("largest pattern table held by a Python step",
             *(f"{max((x[2] for x in r['spark']['reads'] if 'pattern' in x[1]), default=0):,}"
               " rows" for r in (s, lg)), ""),
        ]))
    print()
    print(md_table(["target", "value", "result"],
                   [(n, v, "PASS" if ok_ else "MISS") for n, v, ok_ in targets]))


if __name__ == "__main__":
    main()
