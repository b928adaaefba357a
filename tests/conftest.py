"""Shared fixtures: paths to the shared conformance cases and data (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


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
    # Wave 3, session 2: the whole suite's own figures, summed per module from the JUnit report
    # of `PYTEST_ADDOPTS="--durations=100 --junitxml=..." CI=true bash .ci/run` on a fresh clone
    # of 0decccf (2026-11-26 14:39-15:02 UTC, the machine shared with one light session): test
    # time including fixture setup, so a module that builds a shared session fixture first
    # carries it (it_database, default_release; since session 3 built once per run, by the
    # first worker to ask, the others wait for it). Modules under 20 s keep collection order.
    "tests/integration/test_release_dbt.py": 299,
    "tests/integration/test_fail_closed_dbt.py": 255,  # session 3: one build fewer (-2% CPU)
    "tests/integration/test_spark_cluster_release.py": 210,
    "tests/integration/test_living_release_dbt.py": 173,
    "tests/integration/test_engines_release.py": 137,
    "tests/integration/test_demo_dbt.py": 128,
    "tests/integration/test_release_history_dbt.py": 103,
    "tests/integration/test_ola_dbt.py": 100,
    "tests/integration/test_combined_releases_dbt.py": 89,
    "tests/integration/test_lola_dbt.py": 72,
    "tests/integration/test_small_errors_dbt.py": 72,
    "tests/integration/test_advice_dbt.py": 60,
    "tests/integration/test_wheel_install.py": 53,
    "tests/integration/test_overrides_dbt.py": 52,
    "tests/integration/test_text_risk_dbt.py": 52,
    "tests/integration/test_hostile_names_dbt.py": 51,
    "tests/integration/test_sample_order_dbt.py": 49,
    "tests/integration/test_arx_hierarchy_dbt.py": 45,
    "tests/integration/test_risk_suite_dbt.py": 41,
    "tests/integration/test_fresh_warehouse_dbt.py": 38,
    "tests/integration/test_interval_rules_dbt.py": 35,
    "tests/integration/test_docs_dbt.py": 35,
    "tests/integration/test_fuzz_dbt.py": 30,
    "tests/unit/test_fuzz_suppression.py": 29,
    "tests/unit/test_living_refresh.py": 28,
    "tests/integration/test_several_releases_dbt.py": 27,
    "tests/integration/test_lineage_dbt.py": 27,
    "tests/integration/test_cli_build_dbt.py": 24,
    "tests/integration/test_readme_quickstart_dbt.py": 22,
    "tests/unit/test_ola_optimum.py": 22,
    "tests/unit/test_exact_pruning.py": 21,
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the slowest modules first (``MODULE_SECONDS``); the rest keep their order."""
    order = {item.nodeid: i for i, item in enumerate(items)}
    items.sort(key=lambda item: (-MODULE_SECONDS.get(item.nodeid.split("::")[0], 0),
                                 order[item.nodeid]))
