"""The Spark publish step's candidate under driver memory pressure: not a test.

    nice -n 10 .venv/bin/python bench/bench_spark_publish_heap.py WORKDIR COMPILED_SQL
        [--ballast-mb 512] [--mode rendered|merge]

Issue 37, session 17 (docs/performance.md, "Spark at 2.4M, session 17"). ``WORKDIR`` is a
kept ``bench/bench_engines.py --engines spark --workdir`` folder whose Spark build wrote the
release's working tables (``<WORKDIR>/spark/warehouse/bench_deid_work.db``); ``COMPILED_SQL``
is that build's ``target/run/.../deid_published.sql`` (the candidate as rendered). In a fresh
``local[2]`` session with the demo profile's settings and the default 1 GB driver, the
driver first holds ``--ballast-mb`` of live heap (64 MB ``ByteBuffer``s: the live heap a 2.4M
build held before its publish step, read with ``jcmd GC.class_histogram``), then runs the
candidate's select as rendered (``rendered``: Spark broadcasts ``deid_input``, sized by its
files) or with the ``/*+ MERGE(src, s) */`` hint that ``spark__publish_sql`` adds. Prints
the driver's heap before and after (MemoryMXBean, after ``System.gc()``), the heap pools'
peaks, the result (row count or the error) and the plan's joins.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

from pyspark.sql import SparkSession

TABLES = ("deid_input", "deid_suppressed", "deid_suppressed_patterns")


def kept_build_session(app: str, workdir: Path, tables: tuple[str, ...],
                       config: dict[str, str] | None = None) -> SparkSession:
    """A fresh ``local[2]`` session with the demo profile's settings (a scratch warehouse and
    Derby home) and ``tables`` of the kept build in ``workdir`` as temp views (also used by
    bench_spark_diagnostics.py and bench_spark_gate_nodes.py); ``config``: more settings."""
    scratch = Path(tempfile.mkdtemp(prefix=f"{app}_"))
    builder = (SparkSession.builder.master("local[2]").appName(app)
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
               .config("spark.sql.legacy.createHiveTableByDefault", "false")
               .config("spark.sql.warehouse.dir", str(scratch / "warehouse"))
               .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={scratch}"))
    for key, value in (config or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    warehouse = workdir / "spark" / "warehouse" / "bench_deid_work.db"
    for table in tables:
        spark.read.parquet(str(warehouse / table)).createOrReplaceTempView(table)
    return spark


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workdir", type=Path)
    parser.add_argument("compiled_sql", type=Path)
    parser.add_argument("--ballast-mb", type=int, default=0)
    parser.add_argument("--mode", choices=("rendered", "merge"), default="rendered")
    args = parser.parse_args()
    spark = kept_build_session("bench_spark_publish_heap", args.workdir, TABLES)
    jvm = spark.sparkContext._jvm
    beans = jvm.java.lang.management.ManagementFactory

    def live_mb() -> int:
        jvm.java.lang.System.gc()
        return beans.getMemoryMXBean().getHeapMemoryUsage().getUsed() // 2**20

    sql = args.compiled_sql.read_text()
    sql = sql[sql.index("select "):].replace("bench_deid_work.", "")
    if args.mode == "merge":
        sql = sql.replace("select s.", "select /*+ MERGE(src, s) */ s.", 1)
    ballast = [jvm.java.nio.ByteBuffer.allocate(2**20 * 64) for _ in range(args.ballast_mb // 64)]
    print("max heap MB", beans.getMemoryMXBean().getHeapMemoryUsage().getMax() // 2**20,
          f"live MB before (ballast {args.ballast_mb} MB, {len(ballast)} buffers)", live_mb(),
          flush=True)
    for pool in beans.getMemoryPoolMXBeans():
        pool.resetPeakUsage()
    frame = spark.sql(sql)
    started = time.time()
    try:
        result = f"OK rows {frame._jdf.queryExecution().toRdd().count()}"
    except Exception as exc:  # the broadcast's out-of-memory error is the figure
        result = "FAILED " + re.sub(r"\s+", " ", str(exc))[:160]
    plan = frame._jdf.queryExecution().executedPlan().toString()
    joins = re.findall(r"(BroadcastHashJoin|SortMergeJoin|ShuffledHashJoin)[^\n]*", plan)
    peaks = {pool.getName(): pool.getPeakUsage().getUsed() // 2**20
             for pool in beans.getMemoryPoolMXBeans() if str(pool.getType()) == "Heap memory"}
    print(args.mode, result, round(time.time() - started, 1), "s; peak MB", peaks,
          "live MB after", live_mb(), flush=True)
    print("joins:", [j[:90] for j in joins][:4], flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
