"""Fixtures shared by the dbt integration tests."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.dbt_runner import INTEGRATION, DbtRun, release_vars, run_dbt


def built_once(tmp_path_factory, name: str, build: Callable[[Path], DbtRun]) -> DbtRun:
    """``build(folder)`` once per pytest run: under pytest-xdist the first test process to ask
    builds it in a folder of the run's shared temporary root (the others wait on a lock file,
    then read its return code, output and database from there); in a single process, in its
    own temporary folder. The result is shared: read it in place (read-only) or copy it."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return build(tmp_path_factory.mktemp(name))
    root = tmp_path_factory.getbasetemp().parent / "built_once"  # one per pytest run
    root.mkdir(exist_ok=True)
    folder, record = root / name, root / f"{name}.json"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            folder.mkdir(exist_ok=True)  # or left by a process that failed building
            run = build(folder)
            record.write_text(json.dumps({"returncode": run.returncode, "output": run.output,
                                          "database": str(run.database)}))
    saved = json.loads(record.read_text())
    return DbtRun(saved["returncode"], saved["output"], Path(saved["database"]))


@pytest.fixture(scope="session")
def it_database(tmp_path_factory) -> Path:
    """integration_tests with its seeds and sources built once per pytest run; tests copy the
    file."""
    run = built_once(tmp_path_factory, "it_base", lambda tmp: run_dbt(
        INTEGRATION, ["build", "--exclude", "package:dbt_deid"], tmp))
    assert run.ok, run.output[-3000:]
    return run.database


@pytest.fixture(scope="session")
def default_release(it_database, tmp_path_factory) -> DbtRun:
    """The project's own release (its vars, ``release_vars()``) built and published once per
    pytest run: ``dbt build --select package:dbt_deid`` on a copy of ``it_database``. Several
    modules start from this same build (test_release_dbt, test_fail_closed_dbt,
    test_release_history_dbt, test_fresh_warehouse_dbt); read it in place (read-only) or
    build on a copy (``copy_of``)."""

    def build(tmp: Path) -> DbtRun:
        db = tmp / "release.duckdb"
        shutil.copy(it_database, db)
        # its target's manifest is the `--state` of test_overrides_dbt's `dbt clone`
        return run_dbt(INTEGRATION, ["build", "--select", "package:dbt_deid"], tmp,
                       release_vars(), db, artifacts=True)

    run = built_once(tmp_path_factory, "default_release", build)
    assert run.ok, run.output[-3000:]
    return run
