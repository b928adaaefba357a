"""Run dbt on the consumer projects (``demo/``, ``integration_tests/``) in a subprocess: a
child forked from this test process's pre-imported fork server (``dbt_fork``: dbt's imports are
paid once per test process), or a plain one (``DBT_DEID_TEST_NO_FORK=1``).

Each call gets its own DuckDB file, target and log folders under a pytest ``tmp_path``, so tests
never share state. ``dbt deps`` runs once per project per session (it links ``../``).

Parsing is most of a small dbt run (a full parse of integration_tests: ~9 CPU seconds of a
~14-second build; dbt parses in full whenever ``--vars`` differ), so runs share dbt's own
partial parsing: the first run of a project with given vars and target keeps its
``partial_parse.msgpack`` and later runs with the same inputs, in any test process of the
pytest run (pytest-xdist workers), start from a copy (dbt still re-checks every file and var,
and parses in full when anything differs). dbt rejects a saved parse when the profile changes,
and the DuckDB path is part of the profile, so every run reaches its own DuckDB file through one
relative path, its file name: dbt runs in the DuckDB file's folder (``--project-dir`` names the
project).
"""

from __future__ import annotations

import copy
import fcntl
import hashlib
import json
import os
import re
import resource
import secrets
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import yaml

from tests.integration import dbt_fork, jinja_cache, suite_tmp

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo"
INTEGRATION = REPO / "integration_tests"
DBT = str(Path(sys.executable).parent / "dbt")
_deps_done: set[Path] = set()
#: The published schema (the target's) and the working schema of the release models.
RELEASE_SCHEMAS = ("main", "main_deid_work", "main_raw")  # raw: the demo's sources
#: Left out of the builds whose test reads neither the HTML report nor its index table: the
#: report node (``deid_release_report``, an extra release's ``<name>__deid_release_report``) is a
#: leaf of the graph (nothing refs it; the publish step does not depend on it), so leaving it
#: out changes nothing that is published or refused; it draws the release's figures (0.5-1.4
#: CPU s a build; docs/performance.md, "Suite time, session 7"). Builds that read the report,
#: exercise it on odd inputs (hostile names, fuzz), and the shared ``default_release`` (whose
#: log test_gate_once_dbt counts) keep it.
NO_REPORT = ["--exclude", "*deid_release_report"]
#: The dbt commands whose JSON artifacts (``target/manifest.json``, ``run_results.json``) no test
#: reads unless it says so (``run_dbt(..., artifacts=True)``): they run with ``--no-write-json``.
#: dbt writes the whole manifest (2.5 MB for integration_tests) at the end of its parse and again
#: at the end of a run, and the run results; the saved parse (``partial_parse.msgpack``), the
#: compiled SQL and the logs are written all the same. The commands a test runs for their
#: artifacts (parse, compile, ls, docs generate) and those that read them (clone, retry) keep
#: them. Measured: docs/performance.md, "Suite time, session 14".
NO_ARTIFACTS = frozenset({"build", "run", "test", "seed", "snapshot", "run-operation"})
#: The line ``dbt_operations.py`` prints after each invocation of a batch (see run_dbt_batch).
_BATCH_MARKER = "@@dbt_deid_invocation_end@@"

#: The suite's shared caches and per-process folders are under one folder per pytest run,
#: ``suite_tmp.run_folder()`` (removed at the end of the run by its controller process: see
#: suite_tmp.py): ``stable_dir()`` (this process's), ``saved_parse_dir()``, ``figure_cache_dir()``,
#: ``jinja_cache_dir()``; read when used (the run id is set once pytest is configured).


def stable_dir() -> Path:
    """A stable folder name per test process, for ``build_demo`` (its script runs dbt in
    demo/)."""
    return suite_tmp.run_folder() / str(os.getpid())


def saved_parse_dir() -> Path:
    """Saved parses by (project, dbt arguments that shape the parse, vars, DuckDB file name),
    shared by the test processes of one pytest run (pytest-xdist workers)."""
    return suite_tmp.run_folder() / "parse"


def figure_cache_dir() -> Path:
    """Drawn report figures by content, shared the same way (report/html.py,
    DBT_DEID_FIGURE_CACHE): the suite builds the same releases again and again, and drawing
    their figures was most of the report node's time (docs/performance.md, "The report step,
    session 4")."""
    return suite_tmp.run_folder() / "figures"


def jinja_cache_dir() -> Path:
    """Compiled Jinja templates by source and environment, and dbt's parse of macro files,
    shared the same way (jinja_cache.py, parse_cache.py: forked runs read it; a quarter to a
    third of a dbt run's CPU was compiling the same sources)."""
    return suite_tmp.run_folder() / "jinja"


@dataclass
class DbtRun:
    returncode: int
    output: str
    database: Path

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def tables(self, schema: str | None = None) -> set[str]:
        """Table names in ``schema``, or in the schemas the release writes (the published one,
        ``main``, and the working one, ``main_deid_work``) when None."""
        if not self.database.exists():
            return set()
        schemas = [schema] if schema else list(RELEASE_SCHEMAS)
        with duckdb.connect(str(self.database), read_only=True) as con:
            return {r[0] for r in con.execute(
                "select table_name from information_schema.tables where table_schema in"
                f" ({', '.join('?' for _ in schemas)})", schemas,
            ).fetchall()}

    def query(self, sql: str) -> pd.DataFrame:
        """Run ``sql`` with unqualified names found in the published schema, then the working
        one."""
        with duckdb.connect(str(self.database), read_only=True) as con:
            present = {r[0] for r in con.execute(
                "select schema_name from information_schema.schemata").fetchall()}
            path = [s for s in RELEASE_SCHEMAS if s in present]
            con.execute(f"set search_path = '{','.join(path)}'")
            return con.execute(sql).df()


def project_vars(project: Path) -> dict[str, Any]:
    """The vars block of a project's dbt_project.yml (to derive test releases from)."""
    return yaml.safe_load((project / "dbt_project.yml").read_text())["vars"]


def release_vars(project: Path | None = None, **changes: Any) -> dict[str, Any]:
    """The project's vars (default integration_tests) with settings of ``deid_release``
    changed; a None value removes the setting."""
    variables = project_vars(project or INTEGRATION)
    release = copy.deepcopy(variables["deid_release"])
    for key, value in changes.items():
        if value is None:
            release.pop(key, None)
        else:
            release[key] = value
    variables["deid_release"] = release
    return variables


def deps(project: Path) -> None:
    """``dbt deps`` in ``project``, once per test process; test processes running side by side
    (pytest-xdist) take turns through a lock file."""
    if project in _deps_done:
        return
    suite_tmp.root().mkdir(parents=True, exist_ok=True)  # the lock: of every run
    with open(suite_tmp.root() / f"deps-{project.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        dbt_fork.run([DBT, "deps", "--profiles-dir", "profiles", "--quiet"], project,
                     dict(os.environ)).check_returncode()
    _deps_done.add(project)


def stable_database_path(db: Path) -> Path:
    """The stable path through which this process's next dbt run reaches ``db``: a symlink
    folder pointed at ``db``'s folder (DuckDB's write-ahead log lands beside the real file)."""
    link = stable_dir()
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.exists():
        link.unlink()
    db.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(db.parent.resolve(), target_is_directory=True)
    return link / db.name


def _parse_key(project: Path, args: list[str], variables: dict[str, Any] | None, db: Path) -> str:
    shaping = [v for a, v in zip(args[:-1], args[1:], strict=True)
               if a in ("--target", "-t", "--profile")]
    text = json.dumps([str(project), shaping, variables, db.name], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def suite_caches(env: dict[str, str]) -> dict[str, str]:
    """``env`` (changed in place) with the suite's shared caches of drawn report figures and
    compiled Jinja (``figure_cache_dir()``, ``jinja_cache_dir()``) unless it names its own: for
    every dbt run of the suite, whatever its target (the engine builds' too)."""
    env.setdefault("DBT_DEID_FIGURE_CACHE", str(figure_cache_dir()))
    env.setdefault(jinja_cache.ENV, str(jinja_cache_dir()))
    return env


def run_dbt(
    project: Path, args: list[str], tmp: Path, variables: dict[str, Any] | None = None,
    database: Path | None = None, script: Path | None = None, artifacts: bool = False,
) -> DbtRun:
    """Run ``dbt <args>`` in ``project`` with its own DuckDB file under ``tmp`` (through the
    Python file ``script`` instead of the ``dbt`` console script when given, e.g.
    ``dbt_without_release_tables_hook.py``). A command of ``NO_ARTIFACTS`` writes no JSON
    artifacts unless ``artifacts`` (a test reads ``target/manifest.json`` or
    ``run_results.json`` afterwards, or a later run's ``--state`` does)."""
    deps(project)
    db = database or tmp / "release.duckdb"
    target = tmp / "target"
    program = [sys.executable, str(script)] if script else [DBT]
    cmd = [*program, *args, *_project_args(project), "--target-path", str(target),
           "--log-path", str(tmp / "logs")]
    if not artifacts and args and args[0] in NO_ARTIFACTS:
        cmd.append("--no-write-json")
    if variables:
        cmd += ["--vars", json.dumps(variables)]
    proc = _run_on_saved_parse(cmd, project, _parse_key(project, args, variables, db), db, target,
                               args)
    return DbtRun(proc.returncode, proc.stdout + proc.stderr, db)


def _project_args(project: Path) -> list[str]:
    """The project and its profiles as absolute paths (dbt runs in the DuckDB file's folder)."""
    return ["--project-dir", str(project), "--profiles-dir", str(project / "profiles")]


def _run_on_saved_parse(
    cmd: list[str], project: Path, key: str, db: Path, target: Path, log_args: list[str],
) -> subprocess.CompletedProcess:
    """Run ``cmd`` (a dbt command on ``project``, or the batch script) in ``db``'s folder with
    ``db`` as the relative DuckDB path, starting from the saved parse ``key`` when there is one
    and saving the parse the run leaves in ``target`` for later runs with the same inputs (see
    the module docstring); one run-log line (``_log_run``)."""
    db.parent.mkdir(parents=True, exist_ok=True)
    run_env = suite_caches({**os.environ, "DBT_DEID_DUCKDB_PATH": db.name,
                            "DBT_SEND_ANONYMOUS_USAGE_STATS": "0"})
    if project == DEMO:  # the demo's claims release needs a pseudonym key: a random one per run
        run_env.setdefault("DBT_DEID_PSEUDONYM_KEY", secrets.token_hex(32))
    saved = saved_parse_dir() / f"{key}.msgpack"
    own = target / "partial_parse.msgpack"
    # the inputs of the parse the target holds: a test that runs dbt in one target with other
    # vars in turn (a setting added, then removed) left the parse of the other vars, which dbt
    # throws away for a full parse; the saved parse of these inputs replaces it
    own_key = target / "partial_parse.key"
    held = own_key.read_text() if own.exists() and own_key.exists() else None
    if saved.exists() and (not own.exists() or held != key):
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(saved, own)
        held = key
    reused = own.exists() and held == key
    stamp = own.stat().st_mtime_ns if own.exists() else None
    started, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = dbt_fork.run(cmd, db.parent, run_env)
    _log_run(log_args, started, before, reused, proc, key)
    # this run's parse when dbt wrote one (or the target held it already); else unknown
    ours = own.exists() and (held == key or own.stat().st_mtime_ns != stamp)
    if ours:
        own_key.write_text(key)
    elif own_key.exists():
        own_key.unlink()
    if ours and not saved.exists():
        saved.parent.mkdir(parents=True, exist_ok=True)
        partial = saved.with_name(f"{saved.name}.{os.getpid()}")  # other processes: whole files
        shutil.copy(own, partial)
        os.replace(partial, saved)
    return proc


def run_dbt_batch(
    project: Path, invocations: list[list[str]], tmp: Path,
    variables: dict[str, Any] | None = None, database: Path | None = None,
) -> list[DbtRun]:
    """Run several dbt invocations (e.g. ``run-operation``s) in ``project`` in ONE process on one
    parse with ``variables`` (``dbt_operations.py``): each costs a fraction of a second instead
    of a dbt start and a parse. Returns one DbtRun per invocation, with that invocation's output
    only; all share the DuckDB file under ``tmp`` (or ``database``)."""
    deps(project)
    db = database or tmp / "release.duckdb"
    target = tmp / "target"
    common = [*_project_args(project), "--target-path", str(target),
              "--log-path", str(tmp / "logs"), "--no-write-json"]  # see NO_ARTIFACTS
    if variables:
        common += ["--vars", json.dumps(variables)]
    script = Path(__file__).with_name("dbt_operations.py")
    spec = json.dumps({"common": common, "invocations": invocations, "marker": _BATCH_MARKER})
    proc = _run_on_saved_parse([sys.executable, str(script), spec], project,
                               _parse_key(project, common, variables, db), db, target,
                               ["batch", str(len(invocations)), *(invocations[:1] or [[]])[0][:2]])
    return _split_batch(proc, len(invocations), db)


def check_settings(
    cases: list[tuple[str, dict[str, Any]]], tmp: Path, database: Path | None = None,
    first: list[list[str]] | None = None, variables: dict[str, Any] | None = None,
) -> list[DbtRun]:
    """Each (validator, settings) case through the package's own validator, in one batch on
    integration_tests with its own vars (dbt_project.yml): ``dbt run-operation check_settings`` (in
    integration_tests/macros/settings_probe.sql), whose output holds the validator's error
    message, or SETTINGS_ACCEPTED. ``first``: dbt invocations to run before the cases in the
    same batch (e.g. building a table a validator reads); their runs come first in the list
    returned, then one per case. ``variables``: run with these vars instead (the cases do not
    read them; vars an earlier run of the test process used reuse its saved parse)."""
    invocations = [*(first or []), *(["run-operation", "check_settings", "--args",
                                      json.dumps({"validator": v, "settings": s})]
                                     for v, s in cases)]
    # no --vars by default: the project's own vars, and the it_database fixture's saved parse
    return run_dbt_batch(INTEGRATION, invocations, tmp, variables, database)


def _split_batch(proc: subprocess.CompletedProcess, count: int, db: Path) -> list[DbtRun]:
    """One DbtRun per invocation from the batch's output (see ``dbt_operations.py``)."""
    text = proc.stdout + proc.stderr
    parts = re.split(rf"^{re.escape(_BATCH_MARKER)} (\S+) ([01])\n", proc.stdout,
                     flags=re.MULTILINE)
    # parts: [before parse marker, "parse", rc, out0, "0", rc0, out1, ...]
    if len(parts) < 3 or parts[1] != "parse" or parts[2] != "0":
        raise AssertionError(f"the batch's parse failed:\n{text[-3000:]}")
    outputs, indices, codes = parts[3::3], parts[4::3], parts[5::3]
    runs = [DbtRun(int(code), out, db) for out, code in zip(outputs, codes, strict=False)]
    if [int(i) for i in indices] != list(range(count)) or len(runs) != count:
        raise AssertionError(f"the batch stopped early:\n{text[-3000:]}")
    return runs


def _log_run(
    args: list[str], started: float, before: Any, reused: bool,
    proc: subprocess.CompletedProcess, key: str | None = None,
) -> None:
    """With ``DBT_DEID_TEST_RUN_LOG`` set, append one JSON line per dbt run (the test, the
    command, wall and CPU seconds, whether a saved parse was reused, whether the run was forked
    from the fork server, ``dbt_fork``, and the saved parse's key, ``_parse_key``: a run that
    parsed in full under a key an earlier run had used lost a reuse): where the suite's time
    goes."""
    path = os.environ.get("DBT_DEID_TEST_RUN_LOG")
    if not path:
        return
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    forked = isinstance(proc, dbt_fork.Completed)
    cpu += proc.forked_cpu if forked else 0.0
    line = {"test": os.environ.get("PYTEST_CURRENT_TEST", ""), "args": args[:3],
            "wall": round(time.perf_counter() - started, 2), "cpu": round(cpu, 2),
            "saved_parse": reused, "forked": forked, "parse_key": key}
    with open(path, "a") as out:
        out.write(json.dumps(line) + "\n")


def copy_of(run: DbtRun, folder: Path) -> DbtRun:
    """``run`` (its return code and output) on a copy of its database under ``folder``: to build
    on a shared build (e.g. the ``default_release`` fixture) without changing it."""
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "release.duckdb"
    shutil.copy(run.database, db)
    return DbtRun(run.returncode, run.output, db)


def build_demo(tmp: Path) -> DbtRun:
    """Build the demo with ``demo/build_demo.py`` (what `make demo` runs) in its own DuckDB
    file under ``tmp``."""
    deps(DEMO)
    db = tmp / "demo.duckdb"
    env = {**os.environ, "DBT_DEID_DUCKDB_PATH": str(stable_database_path(db)),
           "DBT_SEND_ANONYMOUS_USAGE_STATS": "0"}
    env.setdefault("DBT_DEID_PSEUDONYM_KEY", secrets.token_hex(32))
    suite_caches(env)
    # the script's dbt invocations are plain subprocesses: jinja_site/sitecustomize.py gives
    # them the suite's Jinja cache (the script itself then runs as a plain subprocess too)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(Path(__file__).with_name("jinja_site")), env.get("PYTHONPATH")) if p)
    started, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = dbt_fork.run(
        [sys.executable, str(DEMO / "build_demo.py"), "--target-path", str(tmp / "target"),
         "--log-path", str(tmp / "logs")], DEMO, env)
    _log_run(["build_demo.py"], started, before, False, proc)
    return DbtRun(proc.returncode, proc.stdout + proc.stderr, db)


def build_release(
    base: Path, tmp: Path, variables: dict[str, Any], command: str = "build",
    extra: list[str] | None = None, select: str = "package:dbt_deid", report: bool = False,
    artifacts: bool = False,
) -> DbtRun:
    """Copy the prebuilt integration database ``base`` (seeds and sources) and run ``dbt
    <command>`` on the package's release models only (or on ``select``), with ``variables``;
    without the report node (``NO_REPORT``) unless ``report``; ``artifacts``: see run_dbt."""
    db = tmp / "release.duckdb"
    shutil.copy(base, db)
    args = [command, "--select", select, *(extra or []), *([] if report else NO_REPORT)]
    return run_dbt(INTEGRATION, args, tmp, variables, db, artifacts=artifacts)
