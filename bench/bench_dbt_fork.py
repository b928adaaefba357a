"""Benchmark of the suite's fork server (``tests/integration/dbt_fork.py``): CPU seconds of the
same dbt invocations as fresh subprocesses and as children forked from the pre-imported server,
alternating, in one process. Not a test.

    nice timeout 360 .venv/bin/python bench/bench_dbt_fork.py [--rounds 3]

On the integration project, in one scratch folder: the sources (``dbt build --exclude
package:dbt_deid``, not timed), then per round and per mode (subprocess, fork) three invocations
through ``tests/integration/dbt_runner.py`` as the tests call them: a ``dbt parse`` on a saved
parse (mostly dbt's start), a batch of two ``dbt run-operation check_settings``
(``dbt_operations.py``, a setting refused) and a build of the release on a copy of the
sources (a saved parse).
CPU seconds are the run log's (``DBT_DEID_TEST_RUN_LOG``: the child's user + system time, from
``RUSAGE_CHILDREN`` or from the server's ``os.wait4``). Prints the median per invocation and
mode and the ratio fork / subprocess. The machine may be shared: read the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.integration import dbt_fork, dbt_runner  # noqa: E402
from tests.integration.dbt_runner import INTEGRATION, run_dbt  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="bench_dbt_fork_") as scratch:
        root = Path(scratch)
        log = root / "runs.jsonl"
        os.environ["DBT_DEID_TEST_RUN_LOG"] = str(log)
        base = run_dbt(INTEGRATION, ["build", "--exclude", "package:dbt_deid"], root / "base")
        assert base.ok, base.output[-2000:]
        cpu: dict[tuple[str, str], list[float]] = {}
        for r in range(rounds):
            for mode in ("subprocess", "fork"):
                os.environ[dbt_fork.NO_FORK_ENV] = "1" if mode == "subprocess" else "0"
                tmp = root / f"{mode}{r}"
                start = len(log.read_text().splitlines()) if log.exists() else 0
                run_dbt(INTEGRATION, ["parse"], root / f"{mode}{r}_parse", database=base.database)
                bad = {**dbt_runner.project_vars(INTEGRATION)["deid_release"], "tau": 2}
                ops = dbt_runner.check_settings([("release", bad)] * 2, tmp / "ops",
                                                database=base.database)
                assert all("tau" in op.output and not op.ok for op in ops), ops[0].output
                built = dbt_runner.build_release(base.database, tmp / "build",
                                                 dbt_runner.project_vars(INTEGRATION), "run")
                assert built.ok, built.output[-2000:]
                lines = [json.loads(x) for x in log.read_text().splitlines()][start:]
                for name, line in zip(("parse", "batch of 2 operations", "run of the release"),
                                      lines, strict=True):
                    assert line["forked"] == (mode == "fork"), line
                    cpu.setdefault((name, mode), []).append(line["cpu"])
    print(f"CPU seconds per invocation, median of {rounds} (subprocess / fork / ratio):")
    for name in ("parse", "batch of 2 operations", "run of the release"):
        sub, fork = (statistics.median(cpu[name, m]) for m in ("subprocess", "fork"))
        print(f"  {name:24s} {sub:6.2f} {fork:6.2f} {fork / sub:5.2f}"
              f"   (all: {cpu[name, 'subprocess']} / {cpu[name, 'fork']})")


if __name__ == "__main__":
    main()
