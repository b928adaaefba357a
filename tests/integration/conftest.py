"""Fixtures shared by the dbt integration tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.integration.dbt_runner import INTEGRATION, DbtRun, release_vars, run_dbt


@pytest.fixture(scope="session")
def it_database(tmp_path_factory) -> Path:
    """integration_tests with its seeds and sources built once; tests copy the file."""
    tmp = tmp_path_factory.mktemp("it_base")
    run = run_dbt(INTEGRATION, ["build", "--exclude", "package:dbt_deid"], tmp)
    assert run.ok, run.output[-3000:]
    return run.database


@pytest.fixture(scope="session")
def default_release(it_database, tmp_path_factory) -> DbtRun:
    """The project's own release (its vars, ``release_vars()``) built and published once per
    test process: ``dbt build --select package:dbt_deid`` on a copy of ``it_database``. Several
    modules start from this same build (test_release_dbt, test_fail_closed_dbt,
    test_release_history_dbt, test_fresh_warehouse_dbt); read it in place (read-only) or
    build on a copy (``copy_of``)."""
    tmp = tmp_path_factory.mktemp("default_release")
    db = tmp / "release.duckdb"
    shutil.copy(it_database, db)
    run = run_dbt(INTEGRATION, ["build", "--select", "package:dbt_deid"], tmp, release_vars(),
                  db)
    assert run.ok, run.output[-3000:]
    return run

