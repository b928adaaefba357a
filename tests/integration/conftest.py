"""Fixtures shared by the dbt integration tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.dbt_runner import INTEGRATION, run_dbt


@pytest.fixture(scope="session")
def it_database(tmp_path_factory) -> Path:
    """integration_tests with its seeds and sources built once; tests copy the file."""
    tmp = tmp_path_factory.mktemp("it_base")
    run = run_dbt(INTEGRATION, ["build", "--exclude", "package:dbt_deid"], tmp)
    assert run.ok, run.output[-3000:]
    return run.database
