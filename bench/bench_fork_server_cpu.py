"""CPU seconds of forked dbt runs from this tree's fork server against another tree's (e.g. an
export of an earlier commit), alternating, in one process. Not a test.

    git archive 5dda012 | tar -x -C /tmp/base   # the baseline tree (any folder holding tests/)
    nice timeout 360 .venv/bin/python bench/bench_fork_server_cpu.py --baseline /tmp/base
        [--rounds 4]

Each tree's ``tests/integration/dbt_fork.py`` starts its own server (its preloads and warm-up,
its ``jinja_cache.py``), each with its own Jinja cache folder. On the integration project, per
round and per tree: ``dbt parse --no-partial-parse`` (a full parse, as every run whose vars
differ from an earlier run's) and then ``dbt build --select package:dbt_deid`` on the parse it
saved, on a copy of the project's sources (built once, not timed). CPU seconds are the child's
user + system time from the server's ``os.wait4``. The first round fills the caches and is left
out; prints the medians of the others and the ratio this tree / baseline. The machine may be
shared: read the ratios of one run (docs/performance.md, "Suite CPU, session 8").
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.integration.dbt_runner import DBT, INTEGRATION, run_dbt  # noqa: E402

STEPS = ("full parse", "build on the saved parse")


def _fork_module(tree: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, tree / "tests/integration/dbt_fork.py")
    assert spec is not None and spec.loader is not None, tree
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    trees = {"baseline": args.baseline.resolve(), "this tree": REPO}
    with tempfile.TemporaryDirectory(prefix="bench_fork_server_cpu_") as scratch:
        root = Path(scratch)
        sources = run_dbt(INTEGRATION, ["build", "--exclude", "package:dbt_deid"],
                          root / "sources")
        assert sources.ok, sources.output[-2000:]
        servers = {label: _fork_module(tree, f"fork_{i}").ForkServer(dict(os.environ))
                   for i, (label, tree) in enumerate(trees.items())}
        cpu: dict[str, list[tuple[float, float]]] = {label: [] for label in trees}
        for rnd in range(args.rounds):
            for label, server in servers.items():
                folder = root / f"{rnd}_{label.replace(' ', '_')}"
                folder.mkdir()
                shutil.copy(sources.database, folder / "r.duckdb")
                env = {**os.environ, "DBT_DEID_DUCKDB_PATH": "r.duckdb",
                       "DBT_SEND_ANONYMOUS_USAGE_STATS": "0",
                       "DBT_DEID_TEST_JINJA_CACHE": str(root / f"jinja_{label[0]}")}
                common = ["--project-dir", str(INTEGRATION), "--profiles-dir",
                          str(INTEGRATION / "profiles"), "--target-path", str(folder / "t"),
                          "--log-path", str(folder / "l")]
                full = server.run([DBT, "parse", "--no-partial-parse", *common], str(folder), env)
                build = server.run([DBT, "build", "--select", "package:dbt_deid", "--exclude",
                                    "*deid_release_report", *common], str(folder), env)
                assert full is not None and build is not None and full.returncode == 0 and (
                    build.returncode == 0), (full and full.stderr[-2000:], build and build.stdout)
                cpu[label].append((full.forked_cpu, build.forked_cpu))
                print(f"round {rnd} {label}: {full.forked_cpu:.2f} / {build.forked_cpu:.2f}"
                      " CPU s", flush=True)
        for server in servers.values():
            server.close()
    for i, step in enumerate(STEPS):
        medians = {label: statistics.median(r[i] for r in runs[1:] or runs)
                   for label, runs in cpu.items()}
        before, after = medians["baseline"], medians["this tree"]
        print(f"{step}: baseline {before:.2f} CPU s, this tree {after:.2f}"
              f" (ratio {after / before:.2f})")


if __name__ == "__main__":
    main()
