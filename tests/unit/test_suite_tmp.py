"""The suite's per-run folder of shared caches (tests/integration/suite_tmp.py): a pytest run's
controller removes its run's folder at its end, after its workers, and what killed runs left a
day ago at its start; the workers and their forked dbt runs use the controller's run id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.integration import suite_tmp

REPO = Path(__file__).resolve().parents[2]
DAY = 24 * 3600


def _age(path: Path, seconds: float) -> None:
    """Set ``path``'s modification time (a symlink's own) ``seconds`` in the past."""
    when = time.time() - seconds
    os.utime(path, (when, when), follow_symlinks=False)


def test_prune_removes_what_nothing_changed_for_a_day_and_keeps_the_rest(tmp_path):
    root = tmp_path / "dbt_deid_it_0"
    elsewhere = tmp_path / "a test's folder"  # what a process's link points at: never touched
    elsewhere.mkdir()
    (elsewhere / "release.duckdb").write_text("x")
    killed = root / "run-1-killed"  # a killed run's folder: caches and a process's link
    (killed / "parse").mkdir(parents=True)
    (killed / "parse" / "k.msgpack").write_text("x")
    (killed / "4242").symlink_to(elsewhere, target_is_directory=True)
    old_layout = root / "123_jinja"  # what runs before session 17 left
    old_layout.mkdir()
    (root / "4343").symlink_to(elsewhere, target_is_directory=True)
    running = root / "run-2-running"  # started two days ago, still adding entries
    (running / "parse").mkdir(parents=True)
    (running / "5555").mkdir()
    recent = root / "run-3-recent"
    recent.mkdir()
    lock = root / "deps-integration_tests.lock"  # shared by every run: kept
    lock.write_text("")
    for path in (killed / "parse" / "k.msgpack", killed / "parse", killed / "4242", killed,
                 old_layout, root / "4343", running / "parse", running, lock):
        _age(path, 2 * DAY)
    _age(running / "5555", 60)
    removed = suite_tmp.prune(root)
    assert sorted(p.name for p in removed) == ["123_jinja", "4343", "run-1-killed"]
    assert sorted(p.name for p in root.iterdir()) == [
        "deps-integration_tests.lock", "run-2-running", "run-3-recent"]
    assert (elsewhere / "release.duckdb").exists()  # a link is removed, never followed
    assert suite_tmp.prune(tmp_path / "no such folder") == []
    # the same entries with a shorter age limit, at a later time
    assert sorted(p.name for p in suite_tmp.prune(root, 30, now=time.time() + 3600)) == [
        "run-2-running", "run-3-recent"]


def test_a_run_id_is_drawn_per_run_and_its_folder_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # gettempdir() reads TMPDIR again
    monkeypatch.delenv(suite_tmp.RUN_ENV, raising=False)
    first = suite_tmp.start_run()
    assert os.environ[suite_tmp.RUN_ENV] == first == suite_tmp.run_id()
    assert suite_tmp.start_run() != first  # a nested pytest run's controller: its own
    folder = suite_tmp.run_folder()
    assert folder == tmp_path / f"dbt_deid_it_{os.getuid()}" / os.environ[suite_tmp.RUN_ENV]
    other = folder.with_name("run-other")
    for path in (folder / "parse", other):
        path.mkdir(parents=True)
    suite_tmp.end_run(folder.name)
    suite_tmp.end_run("..")  # never outside the root
    assert not folder.exists() and other.exists()


INNER_CONFTEST = """
from tests.conftest import *  # noqa: F403 - the suite's hooks, as the tests under tests/ have them
"""

INNER_TEST = """
import json
import os
import sys
import tempfile
from pathlib import Path

from tests.integration import dbt_fork, dbt_runner

FAKE_DBT = '''
import os, sys
from pathlib import Path
target = Path(sys.argv[sys.argv.index("--target-path") + 1])
target.mkdir(parents=True, exist_ok=True)
(target / "partial_parse.msgpack").write_text("a parse")  # dbt's saved parse
for name in ("DBT_DEID_TEST_JINJA_CACHE", "DBT_DEID_FIGURE_CACHE"):  # the caches dbt writes
    Path(os.environ[name]).mkdir(parents=True, exist_ok=True)
    (Path(os.environ[name]) / str(os.getpid())).write_text("x")
'''


def test_a_tiny_forked_run(tmp_path):
    script = tmp_path / "fake_dbt.py"
    script.write_text(FAKE_DBT)
    db = tmp_path / "db" / "release.duckdb"
    target = tmp_path / "target"
    proc = dbt_runner._run_on_saved_parse(
        [sys.executable, str(script), "--target-path", str(target)], dbt_runner.INTEGRATION,
        "key", db, target, ["fake"])
    assert proc.returncode == 0, proc.stderr
    assert isinstance(proc, dbt_fork.Completed)  # a child of the worker's fork server
    dbt_runner.stable_database_path(db)  # this process's folder (build_demo's)
    root = Path(tempfile.gettempdir()) / f"dbt_deid_it_{os.getuid()}"
    with open(os.environ["RECORD"], "a") as record:
        record.write(json.dumps([os.getpid(), sorted(
            str(p.relative_to(root)) for p in [*root.glob("*"), *root.glob("*/*")])]) + "\\n")
"""


def test_a_run_with_two_workers_leaves_nothing_in_the_temporary_folder(tmp_path):
    """A pytest run with two workers (pytest-xdist), each with a forked run that writes every
    cache of the suite and its own process folder, leaves nothing of its own in its uid's
    folder, and removed a killed run's leftover of two days ago (not another run's)."""
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "conftest.py").write_text(INNER_CONFTEST)
    (inner / "test_tiny.py").write_text(INNER_TEST)
    temp = tmp_path / "tmp"
    root = temp / f"dbt_deid_it_{os.getuid()}"
    leftover, other = root / "run-1-killed", root / "run-2-another-run"
    for path in (leftover / "jinja", other / "jinja"):
        path.mkdir(parents=True)
    for path in (leftover / "jinja", leftover):
        _age(path, 2 * DAY)
    record = tmp_path / "record.jsonl"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", suite_tmp.RUN_ENV, "DBT_DEID_TEST_RUN_LOG"))}
    env.update(TMPDIR=str(temp), RECORD=str(record), DBT_DEID_TEST_NO_WARM="1",
               PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "src")]))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
         "--dist", "each", "test_tiny.py"], cwd=inner, env=env, capture_output=True,
        text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "2 passed" in done.stdout, done.stdout[-3000:]
    assert sorted(p.name for p in root.iterdir()) == [other.name]  # the rest removed
    assert (other / "jinja").is_dir()
    seen = dict(json.loads(line) for line in record.read_text().splitlines())
    assert len(seen) == 2, seen  # two test processes
    during = {name for names in seen.values() for name in names if "/" not in name}
    assert during - {other.name} and len(during - {other.name}) == 1, seen  # one run's folder
    run = (during - {other.name}).pop()
    for pid, names in seen.items():
        assert {f"{run}/{n}" for n in ("parse", "jinja", "figures", str(pid))} <= set(names)
