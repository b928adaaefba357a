"""Shared fixtures: paths to the shared conformance cases and data (skipped when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.integration import suite_tmp

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


#: The run id this process drew as the run's controller (``pytest_configure``).
_RUN = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    """In the process that starts the run (not a pytest-xdist worker): remove what killed runs
    left in the suite's temporary folder, and draw this run's id, which the workers inherit
    (tests/integration/suite_tmp.py)."""
    if hasattr(config, "workerinput"):
        return
    suite_tmp.prune()
    config.stash[_RUN] = suite_tmp.start_run()


def pytest_unconfigure(config: pytest.Config) -> None:
    """In the process that started the run, after its workers have finished: remove the run's
    shared caches and its test processes' folders."""
    run = config.stash.get(_RUN, None)
    if run is not None:
        suite_tmp.end_run(run)


@pytest.fixture
def conformance_dir() -> Path:
    path = SHARED / "conformance"
    if not path.is_dir():
        pytest.skip(f"shared conformance cases not found at {path}")
    return path


@pytest.fixture
def adult_dir() -> Path:
    path = SHARED / "data" / "adult"
    if not (path / "adult.csv").exists():
        pytest.skip(f"shared Adult data not found at {path}")
    return path


#: Seconds of work per test module (the slowest first; measured from the dbt run log,
#: ``DBT_DEID_TEST_RUN_LOG``, and ``pytest --durations``). `make test` runs one worker per core
#: plus one, with whole files per worker (``--dist loadfile``) in this order
#: (``--no-loadscope-reorder``):
#: xdist hands each worker two files to start with and then the next one whenever a worker is
#: free, so the longest files must start first or one worker is left running a long file alone
#: at the end (longest-processing-time-first scheduling). Only the order matters.
MODULE_SECONDS = {
    # Wave 3, session 13: summed per module from the JUnit report of the CI-like run of main
    # 1d534a4 (2026-11-27 23:16-23:37 UTC, `PYTEST_ADDOPTS="--junitxml=... --durations=60"
    # CI=true make test` on a fresh clone, 3 workers on the 2-core machine: 1,253 s wall;
    # `python bench/suite_modules.py /tmp/ci-E-junit.xml`), test time including fixture setup,
    # so a module that builds a shared session fixture first carries it (it_database,
    # default_release: built once per run, by the first worker to ask; the others wait for it).
    # Modules under 20 s keep collection order. The session-5 figures this replaces had drifted
    # (test_text_risk_dbt 91 -> 184 s, test_ola_dbt 142 -> 222 s, test_release_dbt 426 -> 247 s).
    "tests/integration/test_living_release_dbt.py": 271,
    "tests/integration/test_demo_dbt.py": 247,
    "tests/integration/test_release_dbt.py": 247,
    "tests/integration/test_fail_closed_dbt.py": 242,
    "tests/integration/test_spark_cluster_release.py": 241,
    "tests/integration/test_ola_dbt.py": 222,
    "tests/integration/test_engines_release.py": 206,
    "tests/integration/test_text_risk_dbt.py": 184,
    "tests/integration/test_lola_dbt.py": 184,
    "tests/integration/test_combined_releases_dbt.py": 184,
    "tests/integration/test_wheel_install.py": 102,
    "tests/integration/test_overrides_dbt.py": 92,
    "tests/integration/test_advice_dbt.py": 85,
    "tests/integration/test_several_releases_dbt.py": 78,
    "tests/integration/test_release_history_dbt.py": 66,
    "tests/integration/test_small_errors_dbt.py": 55,
    "tests/integration/test_cli_build_dbt.py": 54,
    "tests/unit/test_living_refresh.py": 52,
    "tests/integration/test_risk_suite_dbt.py": 48,
    "tests/integration/test_docs_dbt.py": 47,
    "tests/integration/test_hostile_names_dbt.py": 43,
    "tests/unit/test_ola_optimum.py": 39,
    "tests/integration/test_gate_once_dbt.py": 37,
    "tests/unit/test_fuzz_suppression.py": 35,
    "tests/integration/test_combined_levels_postgres.py": 35,
    "tests/integration/test_arx_hierarchy_dbt.py": 35,
    "tests/integration/test_interval_rules_dbt.py": 31,
    "tests/unit/test_fuzz_refresh.py": 31,
    "tests/integration/test_fresh_warehouse_dbt.py": 31,
    "tests/integration/test_attribute_disclosure_dbt.py": 30,
    "tests/integration/test_sample_order_dbt.py": 29,
    "tests/integration/test_fuzz_dbt.py": 29,
    "tests/unit/test_linked_changes_sql.py": 26,
    "tests/unit/test_exact_pruning.py": 26,
    "tests/integration/test_lineage_dbt.py": 23,
}


#: Session fixtures that the first test process to ask builds once per pytest run while the
#: others that ask wait on its lock (tests/integration/conftest.py, ``built_once``).
SHARED_BUILDS = frozenset({"it_database", "default_release"})


def start_order(modules: list[str], needs_shared: set[str], workers: int) -> list[str]:
    """``modules`` (slowest first) with the first ``workers`` of them, which every test process
    starts at once, holding at most one module of ``needs_shared``: the others would wait idle
    for that module's shared builds (``SHARED_BUILDS``, ~35 CPU s of dbt at the start of the
    run). The next slowest modules that need no shared build (the demo, the engines, Spark)
    take those places; the rest keep their order."""
    start: list[str] = []
    later: list[str] = []
    for module in modules:
        waits = module in needs_shared and any(m in needs_shared for m in start)
        (later if len(start) >= workers or waits else start).append(module)
    return start + later


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the slowest modules first (``MODULE_SECONDS``), the rest in their order; then
    ``start_order`` for the test processes of pytest-xdist."""
    order = {item.nodeid: i for i, item in enumerate(items)}
    items.sort(key=lambda item: (-MODULE_SECONDS.get(_module(item), 0), order[item.nodeid]))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers < 2:
        return
    modules = list(dict.fromkeys(_module(item) for item in items))
    needs_shared = {_module(item) for item in items
                    if SHARED_BUILDS & set(getattr(item, "fixturenames", ()))}
    rank = {m: i for i, m in enumerate(start_order(modules, needs_shared, workers))}
    items.sort(key=lambda item: (rank[_module(item)], order[item.nodeid]))


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]
