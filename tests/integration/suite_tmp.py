"""The suite's per-run folder of shared caches under the temporary directory, and its removal.

dbt_runner keeps caches that the test processes of one pytest run share (the saved dbt parses,
the drawn report figures, the compiled Jinja and parsed macro files: ``dbt_runner.suite_caches``)
and one folder per test process (``dbt_runner.stable_database_path``), all under one folder per
run: ``<tempdir>/dbt_deid_it_<uid>/<run id>/``. They are worth keeping for the run only (the
next run starts over), and nothing removed them: two days of runs on the team's machine had
left 24 GB (1,370 entries; session 17).

- The pytest process that starts the run (the controller: under pytest-xdist not a worker, whose
  test processes still share the caches while others run) draws the run id in
  ``pytest_configure`` (``start_run``) and sets it in ``RUN_ENV``, which its workers and every
  process they start inherit; at ``pytest_unconfigure``, after the workers have finished, it
  removes the run's folder (``end_run``), its workers' per-process folders with it.
- A run whose controller never reached its end (killed) leaves its folder; the next run's
  controller removes the entries of ``dbt_deid_it_<uid>`` that nothing has changed for
  ``STALE_SECONDS`` (``prune``): its own uid's folder only, never a ``.lock`` file (``dbt deps``
  locks shared by concurrent runs, ``dbt_runner.deps``).
- A process that uses dbt_runner outside a pytest run (a bench script) has no run id in its
  environment: it draws its own on first use and removes its folder when it exits.

Light on purpose (standard library only): ``tests/conftest.py`` imports it in every pytest run.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path

#: The run id a pytest run's controller sets for its workers (and their children) to inherit.
RUN_ENV = "DBT_DEID_TEST_RUN_ID"
#: Entries of the root folder that nothing has changed for this long are a killed run's.
STALE_SECONDS = 24 * 3600


def root() -> Path:
    """This user's folder of the suite's runs (``tempfile.gettempdir()`` honours ``TMPDIR``)."""
    return Path(tempfile.gettempdir()) / f"dbt_deid_it_{os.getuid()}"


def run_id() -> str:
    """This pytest run's id (``RUN_ENV``); outside a pytest run, one drawn for this process,
    whose folder is removed when it exits."""
    found = os.environ.get(RUN_ENV)
    if found:
        return found
    drawn = start_run()
    owner = os.getpid()
    # not in a child forked from this process (it would remove the folder its parent still uses)
    atexit.register(lambda: os.getpid() == owner and end_run(drawn))
    return drawn


def run_folder() -> Path:
    """The folder of this run's shared caches and per-process folders."""
    return root() / run_id()


def start_run() -> str:
    """Draw a run id and set it in ``RUN_ENV`` (inherited by the processes started from now
    on). Always a new one: a pytest run started by a test of another run has its own."""
    drawn = f"run-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    os.environ[RUN_ENV] = drawn
    return drawn


def end_run(run: str) -> None:
    """Remove the run's folder (its caches and its processes' folders)."""
    if run and os.sep not in run and run not in (".", ".."):
        shutil.rmtree(root() / run, ignore_errors=True)


def prune(folder: Path | None = None, max_age: float = STALE_SECONDS,
          now: float | None = None) -> list[Path]:
    """Remove the entries of ``folder`` (default ``root()``) that nothing has changed for
    ``max_age`` seconds: neither the entry (a symlink's own time, not its target's) nor, for a
    folder, any entry directly in it (a run adds and replaces entries there while it lasts).
    ``.lock`` files are kept. Returns what was removed."""
    folder = root() if folder is None else folder
    limit = (time.time() if now is None else now) - max_age
    removed = []
    try:
        entries = list(folder.iterdir())
    except OSError:  # no folder yet
        return removed
    for entry in entries:
        if entry.name.endswith(".lock") or _last_change(entry) >= limit:
            continue
        try:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        except OSError:  # removed meanwhile by another run's prune, or not ours to remove
            continue
        removed.append(entry)
    return removed


def _last_change(entry: Path) -> float:
    """The newest modification time of ``entry`` and, for a folder, of its direct entries."""
    try:
        newest = entry.lstat().st_mtime
        if entry.is_dir() and not entry.is_symlink():
            for child in os.scandir(entry):
                newest = max(newest, child.stat(follow_symlinks=False).st_mtime)
    except OSError:  # gone meanwhile: nothing to remove
        return float("inf")
    return newest
