"""A private Spark standalone cluster for the engine tests: one master and two workers.

Started from the pip ``pyspark`` distribution (its ``bin/spark-class`` runs the standalone
``org.apache.spark.deploy.master.Master`` and ``...worker.Worker``), each a separate JVM bound to
127.0.0.1 only, on free ports (the RPC ports and the web UIs, whose JSON status tells when the
workers have registered), with its configuration, logs, work and scratch folders under one
private folder. Each worker offers one core and a little memory (the test machine has 2 shared
cores). ``SparkCluster.stop`` ends every process it started (its process group), also when the
start failed half way.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.integration.postgres_server import _free_port as free_port

#: Seconds to wait for the master and both workers (Spark is slow on a loaded 2-core machine).
REGISTRATION_TIMEOUT = 180.0


def spark_home() -> Path | None:
    """The pip pyspark distribution's folder (its ``bin/spark-class`` and ``jars/``), or None."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        return None
    home = Path(next(iter(spec.submodule_search_locations)))
    return home if (home / "bin" / "spark-class").exists() else None


def cluster_unavailable() -> str | None:
    """None when a cluster can start here, else why not (the skip reason)."""
    if shutil.which("java") is None:
        return "no Java runtime for Spark (apt-get install openjdk-17-jre-headless)"
    if spark_home() is None:
        return "pyspark is not installed (pip install 'dbt_deid[spark]')"
    if importlib.util.find_spec("dbt.adapters.spark") is None:
        return "dbt-spark is not installed (pip install 'dbt_deid[spark]')"
    return None


@dataclass
class SparkCluster:
    base: Path
    master_port: int
    master_ui_port: int
    worker_ui_ports: list[int]
    processes: list[subprocess.Popen] = field(default_factory=list)

    @property
    def master_url(self) -> str:
        return f"spark://127.0.0.1:{self.master_port}"

    def status(self, ui_port: int | None = None) -> dict[str, Any]:
        """The JSON status of the master (default) or of the process whose web UI is on
        ``ui_port`` (a worker: its executors, running and finished)."""
        port = ui_port or self.master_ui_port
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/", timeout=10) as response:
            return json.loads(response.read())

    def logs(self) -> str:
        """The tail of every process's log (for failure messages)."""
        parts = []
        for path in sorted((self.base / "logs").glob("*.out")):
            parts.append(f"--- {path.name}\n{path.read_text(errors='replace')[-1500:]}")
        return "\n".join(parts)

    def stop(self) -> None:
        """End every process this cluster started (SIGTERM to its process group, then SIGKILL
        after 30 s)."""
        for proc in self.processes:
            if proc.poll() is None:
                _signal_group(proc, signal.SIGTERM)
        deadline = time.monotonic() + 30
        for proc in self.processes:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait(timeout=30)
        for proc in self.processes:
            if proc.stdout:
                proc.stdout.close()


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, sig)


def _environment(base: Path, java_options: str = "") -> dict[str, str]:
    """The cluster processes' environment: the pip distribution as SPARK_HOME, an empty
    configuration folder (no user spark-defaults), every folder under ``base``."""
    home = spark_home()
    assert home is not None
    for name in ("conf", "logs", "work", "local"):
        (base / name).mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
    env.update({
        "SPARK_HOME": str(home), "SPARK_CONF_DIR": str(base / "conf"),
        "SPARK_LOG_DIR": str(base / "logs"), "SPARK_WORKER_DIR": str(base / "work"),
        "SPARK_LOCAL_DIRS": str(base / "local"), "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_DAEMON_MEMORY": "256m",
    })
    if java_options:  # the master's and workers' own JVMs (SPARK_DAEMON_JAVA_OPTS)
        env["SPARK_DAEMON_JAVA_OPTS"] = java_options
    return env


def start_cluster(base: Path, workers: int = 2, cores: int = 1, memory: str = "1g",
                  timeout: float = REGISTRATION_TIMEOUT, java_options: str = "") -> SparkCluster:
    """Start a master and ``workers`` workers under ``base`` and wait until every worker has
    registered with the master (its JSON status lists them ALIVE). Raises RuntimeError with
    the processes' logs when they do not come up in ``timeout`` seconds; stops whatever it
    started before raising. ``java_options``: extra options of the master's and workers' JVMs."""
    home = spark_home()
    if home is None:
        raise RuntimeError("pyspark is not installed")
    env = _environment(base, java_options)
    cluster = SparkCluster(base, free_port(), free_port(), [free_port() for _ in range(workers)])
    spark_class = str(home / "bin" / "spark-class")

    def launch(name: str, args: list[str]) -> None:
        out = open(base / "logs" / f"{name}.out", "w")  # noqa: SIM115 - closed by stop()
        cluster.processes.append(subprocess.Popen(
            [spark_class, *args], cwd=base, env=env, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True))
        out.close()  # the child holds its own descriptor

    try:
        launch("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                          "--port", str(cluster.master_port),
                          "--webui-port", str(cluster.master_ui_port)])
        for i, ui_port in enumerate(cluster.worker_ui_ports):
            work = base / "work" / f"worker{i}"
            work.mkdir(parents=True, exist_ok=True)
            launch(f"worker{i}", ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                  "--webui-port", str(ui_port), "--cores", str(cores),
                                  "--memory", memory, "--work-dir", str(work),
                                  cluster.master_url])
        _wait_for_workers(cluster, workers, timeout)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _wait_for_workers(cluster: SparkCluster, workers: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    alive = 0
    while time.monotonic() < deadline:
        dead = [p.args[1] for p in cluster.processes if p.poll() is not None]
        if dead:
            raise RuntimeError(f"Spark process ended early: {dead}\n{cluster.logs()}")
        try:
            status = cluster.status()
            alive = sum(1 for w in status.get("workers", []) if w.get("state") == "ALIVE")
            if status.get("status") == "ALIVE" and alive >= workers:
                return
        except OSError:
            pass  # the master's web UI is not up yet
        time.sleep(1)
    raise RuntimeError(f"{alive} of {workers} Spark workers registered in {timeout:.0f} s\n"
                       f"{cluster.logs()}")
