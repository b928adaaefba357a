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
    # Wave 3, session 3: the whole suite's own figures, summed per module from the JUnit report
    # of `PYTEST_ADDOPTS="--durations=40 --junitxml=..." CI=true bash .ci/run` on a fresh clone
    # of 2a367fc (2026-11-26 17:06-17:28 UTC, 3 workers on the 2-core machine, so each figure is
    # about 1.5 times the module's time alone): test time including fixture setup, so a module
    # that builds a shared session fixture first carries it (it_database, default_release: built
    # once per run, by the first worker to ask; the others wait for it). Modules under 20 s keep
    # collection order.
    "tests/integration/test_release_dbt.py": 464,
    "tests/integration/test_fail_closed_dbt.py": 416,
    "tests/integration/test_spark_cluster_release.py": 291,
    "tests/integration/test_living_release_dbt.py": 255,
    "tests/integration/test_demo_dbt.py": 224,
    "tests/integration/test_engines_release.py": 176,
    "tests/integration/test_ola_dbt.py": 162,
    "tests/integration/test_combined_releases_dbt.py": 155,
    "tests/integration/test_lola_dbt.py": 123,
    "tests/integration/test_small_errors_dbt.py": 108,
    "tests/integration/test_release_history_dbt.py": 105,
    "tests/integration/test_advice_dbt.py": 100,
    "tests/integration/test_wheel_install.py": 80,
    "tests/integration/test_text_risk_dbt.py": 78,
    "tests/integration/test_overrides_dbt.py": 72,
    "tests/integration/test_hostile_names_dbt.py": 66,
    "tests/integration/test_docs_dbt.py": 64,
    "tests/integration/test_fresh_warehouse_dbt.py": 58,
    "tests/integration/test_risk_suite_dbt.py": 57,
    "tests/integration/test_arx_hierarchy_dbt.py": 54,
    "tests/integration/test_interval_rules_dbt.py": 53,
    "tests/integration/test_sample_order_dbt.py": 48,
    "tests/integration/test_fuzz_dbt.py": 47,
    "tests/integration/test_cli_build_dbt.py": 42,
    "tests/integration/test_several_releases_dbt.py": 40,
    "tests/integration/test_lineage_dbt.py": 40,
    "tests/unit/test_ola_optimum.py": 36,
    "tests/integration/test_attribute_disclosure_dbt.py": 35,
    "tests/unit/test_fuzz_suppression.py": 31,
    "tests/unit/test_living_refresh.py": 29,
    "tests/integration/test_mask_cover_dbt.py": 24,
    "tests/integration/test_readme_quickstart_dbt.py": 20,
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the slowest modules first (``MODULE_SECONDS``); the rest keep their order."""
    order = {item.nodeid: i for i, item in enumerate(items)}
    items.sort(key=lambda item: (-MODULE_SECONDS.get(item.nodeid.split("::")[0], 0),
                                 order[item.nodeid]))
