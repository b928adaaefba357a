"""A pre-imported fork server ("zygote") for the suite's dbt runs.

Every dbt run of the suite used to be a fresh Python process, and each paid ~1.5 CPU seconds
importing dbt and its adapter before doing anything (about 200 runs per suite). The fork server
is one long-lived process per test process that imports them once (``PRELOAD``) and then, for
each request, forks a child that becomes the program the old subprocess would have been:

- ``os.environ`` is set to exactly the requested environment and the child ``chdir``s to the
  requested folder; fd 0 is ``/dev/null``, fds 1 and 2 go to capture files;
- ``sys.argv`` is the command's arguments and the script (the ``dbt`` console script, a
  Python file such as ``dbt_operations.py``, or ``-m dbt_deid``) runs as ``__main__`` through
  :mod:`runpy`;
- the child then leaves the server's loop and exits the way a fresh interpreter does (``SystemExit``
  code, an uncaught exception's traceback on stderr and exit code 1, ``atexit`` handlers).

Each request is its own child, so nothing carries over from one run to the next. The child is the
leader of its own process group (so are plain subprocesses, ``_subprocess``): a run that has not
ended after ``timeout`` seconds (``TIMEOUT_ENV``, default ``DEFAULT_TIMEOUT``) has its whole group
killed (dbt and whatever it started) and raises ``RunTimeout``, naming the command and the
time it ran, so a hung run fails its test instead of taking the CI job's whole time; a run
interrupted in the test process (Ctrl-C) has its group killed too. The server
reports each child's exit status (``-signal`` when a signal killed it, as :mod:`subprocess` does)
and its CPU seconds from ``os.wait4`` (the child's and its descendants': the run log counts them,
``dbt_runner._log_run``), and exits when its request pipe closes (its test process ended).

What is preloaded must not change behaviour: the server checks that the imports started no
thread (a thread would not survive the fork: numpy's BLAS pool and pyarrow's allocator thread
start none only under ``SERVER_ENV``, the server's own environment), and a request whose
environment differs from the server's in anything but ``RUNTIME_ENV`` (variables read when a
run needs them, never at import: dbt reads e.g. ``DBT_RECORDER_MODE`` and
``DBT_MACRO_DEBUGGING`` at import) runs as a plain subprocess instead. So does every request
when the server cannot start or has died (said once in the log), and every request with
``DBT_DEID_TEST_NO_FORK=1``.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import inspect
import json
import logging
import os
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

#: Imported once by the server: what every dbt run on DuckDB imports, and starts no thread.
#: The second line is what the package's Python models import (every build of a release runs
#: ``deid_release_plan`` and ``deid_suppression_map``): pandas, numpy and pyarrow (dbt-duckdb
#: hands a model its refs as pandas frames through arrow) and the package's glue of those two
#: models with the core modules it imports; each forked build paid ~0.5 CPU s importing them
#: (docs/performance.md, "Suite time, session 15"). numpy's OpenBLAS and pyarrow's jemalloc each
#: start a thread when loaded, which a fork would not carry: the server loads them with
#: ``SERVER_ENV``, under which neither does.
PRELOAD = ("dbt.cli.main", "dbt.adapters.duckdb", "dbt.adapters.duckdb.impl",
           "dbt.adapters.duckdb.environments.local", "dbt.task.build", "dbt.compilation",
           "dbt.parser.sql", "duckdb", "agate",
           "numpy", "pandas", "pyarrow", "pyarrow.pandas_compat",
           "dbt_common.clients.agate_helper",
           "dbt_deid.dbt_side.entry", "dbt_deid.dbt_side.glue.release",
           "dbt_deid.dbt_side.glue.map_model")
#: The server's own environment on top of the test process's (never a child's: each child gets
#: the environment its request names, ``_become``), kept by what the server loads in its
#: children: OpenBLAS with one thread and pyarrow's jemalloc without its background thread (it
#: returns freed memory to the system; nothing computed depends on it). The package's float
#: products through BLAS (``np.dot`` over a hierarchy level's labels in ola/metrics.py, the
#: bootstrap's entry weights in longitudinal/bootstrap.py, mask_cover's prices) can differ in
#: the last bit between one and several OpenBLAS threads on long vectors (a probe: equal at
#: 5,000-100,000 float64, different at 1,000,000; review 16, L1): at the suite's sizes the same
#: bits, but a last-bit difference of a user's multi-threaded run would not show in the suite.
SERVER_ENV = {"OPENBLAS_NUM_THREADS": "1", "JE_ARROW_MALLOC_CONF": "background_thread:false"}
#: Variables a request may set differently from the server's environment (read at run time
#: only: the package's settings, dbt's usage-stats switch, pytest's current test, the Python
#: that pyspark starts for its workers, read when a Spark session starts: pyspark is not
#: preloaded).
RUNTIME_ENV = ("DBT_DEID_", "DBT_SEND_ANONYMOUS_USAGE_STATS", "PYTEST_CURRENT_TEST",
               "PYSPARK_PYTHON")
NO_FORK_ENV = "DBT_DEID_TEST_NO_FORK"
#: Seconds a run may take before its process group is killed (``run``); 0 or less: no limit.
TIMEOUT_ENV = "DBT_DEID_TEST_DBT_TIMEOUT"
#: Generous: the slowest single runs of the suite (a demo build, the Spark cluster's) take a few
#: minutes on the loaded 2-core machine.
DEFAULT_TIMEOUT = 900.0
#: Seconds to wait for the server's report on a child whose group was killed.
_KILLED_WAIT = 60.0
#: Classes whose JSON schema the server builds once (``dbtClassMixin.json_schema``, an
#: ``lru_cache`` of mashumaro's schema builder: a pure function of the class) so no child builds
#: it again: what a dbt run on DuckDB validates (a full parse all of them, a run on a saved
#: parse the project's, profile's and selectors' own), ~0.9 CPU s a full parse (measured
#: 2026-11-27, docs/performance.md, "Suite CPU, session 8"). A class missing here is built by
#: the child that needs it, as before; ``DBT_DEID_TEST_NO_WARM=1`` in the server's environment
#: leaves them all to the children (to measure the difference).
WARM_SCHEMAS = (
    "dbt.contracts.project:ProjectFlags", "dbt.contracts.project:ProfileConfig",
    "dbt.contracts.project:Project", "dbt.contracts.project:PackageConfig",
    "dbt.contracts.project:Configuration", "dbt.contracts.selection:SelectorFile",
    "dbt.adapters.duckdb.credentials:DuckDBCredentials",
    "dbt.artifacts.resources.v1.model:ModelConfig", "dbt.artifacts.resources.v1.seed:SeedConfig",
    "dbt.artifacts.resources.v1.config:NodeConfig", "dbt.artifacts.resources.v1.config:TestConfig",
    "dbt.artifacts.resources.v1.config:Hook", "dbt.artifacts.resources.v1.components:Contract",
    "dbt.contracts.graph.nodes:ModelNode", "dbt.contracts.graph.nodes:SeedNode",
    "dbt.contracts.graph.nodes:HookNode", "dbt.contracts.graph.nodes:GenericTestNode",
    "dbt.contracts.graph.unparsed:UnparsedNodeUpdate",
    "dbt.contracts.graph.unparsed:UnparsedModelUpdate",
    "dbt.contracts.graph.unparsed:UnparsedMacroUpdate", "dbt.task.test:TestResultData",
)
log = logging.getLogger(__name__)


class RunTimeout(subprocess.TimeoutExpired):
    """A run that did not end within its timeout: its process group was killed. The message
    names the command, its folder, the time it ran and the end of its output."""

    def __init__(self, cmd: list[str], cwd: Path | str, timeout: float, elapsed: float,
                 stdout: str, stderr: str) -> None:
        super().__init__(list(cmd), timeout, stdout, stderr)
        self.cwd, self.elapsed = str(cwd), elapsed

    def __str__(self) -> str:
        command = shlex.join(str(a) for a in self.cmd)
        if len(command) > 1500:
            command = f"{command[:1500]} ... ({len(command):,} characters)"
        tail = f"{self.output or ''}{self.stderr or ''}"[-2000:]
        return (f"{command}\n(in {self.cwd}) did not end within {self.timeout:g} s"
                f" ({TIMEOUT_ENV}): its process group was killed after {self.elapsed:.1f} s."
                f" The end of its output:\n{tail}")


def timeout_seconds() -> float | None:
    """The timeout of a run: ``TIMEOUT_ENV`` in this process's environment, else
    ``DEFAULT_TIMEOUT``; None (no limit) for 0 or less."""
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    try:
        seconds = float(text) if text else DEFAULT_TIMEOUT
    except ValueError:
        raise ValueError(f"{TIMEOUT_ENV} must be a number of seconds, not {text!r}") from None
    return seconds if seconds > 0 else None


def _kill_group(pgid: int) -> None:
    """SIGKILL the process group ``pgid`` (a run's child and what it started)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # ended meanwhile
        os.killpg(pgid, signal.SIGKILL)


class Completed(subprocess.CompletedProcess):
    """A :class:`subprocess.CompletedProcess` from a forked child, with its CPU seconds (this
    process's ``RUSAGE_CHILDREN`` does not see them: the fork server is the child's parent)."""

    def __init__(self, args: list[str], returncode: int, stdout: str, stderr: str,
                 forked_cpu: float) -> None:
        super().__init__(args, returncode, stdout, stderr)
        self.forked_cpu = forked_cpu


def run(
    cmd: list[str], cwd: Path | str, env: dict[str, str], server: ForkServer | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess:
    """What ``subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)`` returns,
    from a child of the fork server (this process's, or ``server``) when ``cmd`` runs a Python
    script of this interpreter (``python script.py ...`` or a console script such as ``dbt``)
    and the server can take it. Raises ``RunTimeout`` when the run has not ended after
    ``timeout`` seconds (default ``timeout_seconds()``), its process group killed."""
    limit = timeout_seconds() if timeout is None else timeout
    argv = _script_argv(cmd)
    forking = argv is not None and os.environ.get(NO_FORK_ENV) != "1"
    server = (server or _server()) if forking else None
    if server is not None and server.accepts(env):
        try:
            done = server.run(argv, str(cwd), env, limit)
        except RunTimeout as exc:
            exc.cmd = list(cmd)  # the command as the caller wrote it
            raise
        if done is not None:
            done.args = list(cmd)
            return done
    return _subprocess(cmd, cwd, env, limit)


def _subprocess(
    cmd: list[str], cwd: Path | str, env: dict[str, str], timeout: float | None,
) -> subprocess.CompletedProcess:
    """``cmd`` as a plain subprocess, the leader of its own process group (stdin /dev/null, as a
    forked child's): on timeout the whole group is killed (killing the child alone would leave
    what it started holding the output pipes open) and ``RunTimeout`` raised."""
    started = time.monotonic()
    with subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          process_group=0) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            elapsed = time.monotonic() - started
            try:
                stdout, stderr = proc.communicate(timeout=_KILLED_WAIT)
            except subprocess.TimeoutExpired:  # something left the group and holds the pipes
                stdout, stderr = "", ""
            raise RunTimeout(cmd, cwd, timeout, elapsed, stdout, stderr) from None
        except BaseException:  # interrupted: leave nothing running
            _kill_group(proc.pid)
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


def _script_argv(cmd: list[str]) -> list[str] | None:
    """The script and its arguments when ``cmd`` runs Python code with this interpreter:
    ``[sys.executable, file, ...]``, ``[sys.executable, "-m", module, ...]`` (kept as
    ``["-m", module, ...]``) or a console script in this interpreter's ``bin``."""
    if len(cmd) >= 2 and cmd[0] == sys.executable:
        if cmd[1] == "-m" and len(cmd) >= 3:
            return list(cmd[1:])
        return None if cmd[1].startswith("-") else list(cmd[1:])
    first = Path(cmd[0]) if cmd else None
    if first and first.parent == Path(sys.executable).parent and first.is_file():
        with open(first, "rb") as script:
            line = script.readline()
        if line.startswith(b"#!") and b"python" in line:
            return list(cmd)
    return None


class ForkServer:
    """The client side: starts the server (``python dbt_fork.py``) and sends it requests, one
    JSON line each, over its stdin; reads one JSON line per request from its stdout."""

    def __init__(self, env: dict[str, str] | None = None, preload: tuple[str, ...] = PRELOAD):
        self.env = dict(os.environ if env is None else env)
        self.lock = threading.Lock()
        self._replies = b""  # read from the server, not yet taken (``_reply``)
        start_within = timeout_seconds()
        self.proc: subprocess.Popen | None = subprocess.Popen(
            [sys.executable, __file__, *preload], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env={**self.env, **SERVER_ENV}, text=True, bufsize=1)
        hello = self._reply(start_within)
        if not (hello or {}).get("ready"):
            why = "no reply" if hello is None else hello.get("error", "no reply")
            self._give_up(f"the fork server did not start: {why}")

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def accepts(self, env: dict[str, str]) -> bool:
        """Whether a run with ``env`` may fork from the server: the two environments differ
        only in ``RUNTIME_ENV`` variables (others may be read at import time)."""
        names = {k for k in env.keys() | self.env.keys() if env.get(k) != self.env.get(k)}
        return self.alive and all(n.startswith(RUNTIME_ENV) for n in names)

    def run(self, argv: list[str], cwd: str, env: dict[str, str],
            timeout: float | None = None) -> Completed | None:
        """Run ``argv`` in a forked child; None when the server is gone before the request
        (the caller runs a subprocess instead). A child still running after ``timeout``
        seconds has its process group killed: ``RunTimeout``."""
        with self.lock, tempfile.TemporaryDirectory(prefix="dbt_fork_") as folder:
            out, err = os.path.join(folder, "stdout"), os.path.join(folder, "stderr")
            request = {"argv": argv, "cwd": cwd, "env": env, "stdout": out, "stderr": err}
            started = time.monotonic()
            try:
                self.proc.stdin.write(json.dumps(request) + "\n")
                self.proc.stdin.flush()
            except (OSError, AttributeError, ValueError):
                self._give_up("the fork server is gone")
                return None

            def left() -> float | None:
                return None if timeout is None else max(0.0, started + timeout - time.monotonic())

            forked = self._reply(left())  # said right after the fork: its pid
            if forked is None:  # the timeout passed before the fork (review 17, N6)
                elapsed = time.monotonic() - started
                self._give_up("the fork server did not fork within the run's timeout")
                raise RunTimeout(argv, cwd, timeout, elapsed, _read(out), _read(err))
            if forked and "error" in forked:  # the fork failed: the run never started
                self._give_up(f"the fork server could not fork: {forked['error']}")
                return None
            child = forked.get("pid") if forked else None
            reply: dict | None = {}
            if child:
                try:
                    reply = self._reply(left())
                except BaseException:  # interrupted: leave nothing running
                    self._end(child)
                    raise
                if reply is None:  # still running: its group killed, then the server's report
                    elapsed = time.monotonic() - started
                    self._end(child)
                    raise RunTimeout(argv, cwd, timeout, elapsed, _read(out), _read(err))
            if "returncode" not in reply:  # the server died during the run: never run it twice
                self._give_up("the fork server died during a run")
                reply = {"returncode": -9, "cpu": 0.0}
                with open(err, "a") as text:
                    text.write("\ndbt_fork: the fork server died during this run\n")
            return Completed(argv, reply["returncode"], _read(out), _read(err), reply["cpu"])

    def _end(self, child: int) -> None:
        """Kill the process group of the running ``child`` and take the server's report on it
        (or stop using the server when none comes)."""
        _kill_group(child)
        report = self._reply(_KILLED_WAIT)
        if not report or "returncode" not in report:
            self._give_up("the fork server did not report a killed run")

    def _reply(self, timeout: float | None = None) -> dict | None:
        """The server's next reply line as a dict: {} at the end of its output (or on a line
        that is not JSON), None when ``timeout`` seconds pass first. Reads the pipe's file
        descriptor directly (``select`` cannot see what a buffered reader holds)."""
        if self.proc is None:
            return {}
        deadline = None if timeout is None else time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        try:
            while b"\n" not in self._replies:
                wait = None if deadline is None else max(0.0, deadline - time.monotonic())
                if not select.select([fd], [], [], wait)[0]:
                    return None
                chunk = os.read(fd, 65536)
                if not chunk:
                    return {}
                self._replies += chunk
            line, _, self._replies = self._replies.partition(b"\n")
            return json.loads(line)
        except (OSError, ValueError):
            return {}

    def _give_up(self, why: str) -> None:
        """Stop using the server (runs become subprocesses); said once."""
        if self.proc is not None:
            log.warning("%s; dbt runs fall back to subprocesses", why)
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def close(self) -> None:
        """Close the request pipe (the server exits) and wait for it."""
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
            self.proc = None


def _read(path: str) -> str:
    """A capture file as ``subprocess.run(text=True)`` decodes a pipe (locale encoding,
    universal newlines); empty when the child never opened it."""
    if not os.path.exists(path):
        return ""
    with open(path) as text:
        return text.read()


_SERVER: ForkServer | None = None
_SERVER_PID: int | None = None


def _server() -> ForkServer | None:
    """This process's fork server, started on first use; None when it cannot run."""
    global _SERVER, _SERVER_PID
    if os.getpid() != _SERVER_PID:
        _SERVER_PID = os.getpid()
        try:
            _SERVER = ForkServer()
        except OSError as exc:
            log.warning("the fork server did not start (%s); dbt runs use subprocesses", exc)
            return None
        atexit.register(_SERVER.close)
    return _SERVER if _SERVER is not None and _SERVER.alive else None


# --- the server side (runs as ``python dbt_fork.py``) -------------------------------------------


def _serve(preload: list[str]) -> dict | None:
    """Import the modules ``preload``, say ready, then fork a child per request; returns the
    request in the child (which then runs it as the program, ``_become``), None in the server
    at the end of its input."""
    requests = os.fdopen(os.dup(0), "r")
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    try:
        import importlib

        for name in preload:
            importlib.import_module(name)
        warm = os.environ.get("DBT_DEID_TEST_NO_WARM", "")
        if warm != "1":
            _warm_schemas()
        if warm not in ("1", "codecs"):
            _warm_codecs()
        if warm != "1":
            # inspect's map of module files (filled on first use by walking every module:
            # dbt's adapter calls inspect.stack() for its behaviour flags in every run;
            # 0.07 CPU s, 2026-11-28)
            inspect.getmodule(sys._getframe())
        threads = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else 1
        if threading.active_count() > 1 or threads > 1:
            raise RuntimeError(f"the imports started threads ({threads} OS threads)")
    except Exception as exc:  # the client falls back to subprocesses
        replies.write(json.dumps({"error": repr(exc)}) + "\n")
        return None
    gc.freeze()  # the preloaded objects: never scanned again, nor copied by a child's collector
    replies.write(json.dumps({"ready": True}) + "\n")
    for line in requests:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError as exc:  # the client runs it as a subprocess
            replies.write(json.dumps({"error": repr(exc)}) + "\n")
            continue
        if pid == 0:
            os.setpgid(0, 0)  # its own process group: what a timeout kills (run)
            requests.close()
            replies.close()
            os.close(null)
            return request
        with contextlib.suppress(OSError):  # as the child does: set before the client knows it
            os.setpgid(pid, pid)
        replies.write(json.dumps({"pid": pid}) + "\n")
        _, status, usage = os.wait4(pid, 0)
        replies.write(json.dumps({"returncode": os.waitstatus_to_exitcode(status),
                                  "cpu": usage.ru_utime + usage.ru_stime}) + "\n")
    return None


def _warm_schemas() -> None:
    """Build the JSON schemas of ``WARM_SCHEMAS`` in the server (its children inherit them);
    one that cannot be imported or built is left to the children."""
    import importlib

    for spec in WARM_SCHEMAS:
        module, _, name = spec.partition(":")
        try:
            getattr(importlib.import_module(module), name).json_schema()
        except Exception:  # noqa: BLE001, S112 - the child builds it as dbt always did
            continue


def _warm_codecs() -> None:
    """Compile in the server the (de)serializers mashumaro writes for every dataclass of dbt
    that is imported by then (its children inherit them). dbt's classes compile them lazily
    (``lazy_compilation``): each forked run generated and compiled the same Python code again
    on first use, the manifest's classes (to read a saved parse, to write the manifest and the
    next saved parse) and the nodes' (a fifth of a run on a saved parse's profile; measured
    2026-11-28, docs/performance.md, "Suite time, session 14"). What is compiled here is what
    the lazy stub compiles on first use: the same builder with the same arguments
    (``allow_postponed_evaluation=False``, each mixin's format, encoder, decoder and dialect),
    a pure function of the class. A class whose compilation fails here (a type not resolvable
    yet, a generic) keeps its lazy stub and is compiled by the child that needs it, as
    before; ``DBT_DEID_TEST_NO_WARM=codecs`` leaves them all to the children."""
    try:
        from mashumaro.core.meta.code.builder import CodeBuilder
        from mashumaro.mixins.dict import DataClassDictMixin
    except ImportError:
        return
    seen: set[type] = set()
    stack = list(DataClassDictMixin.__subclasses__())
    while stack:
        cls = stack.pop()
        if cls in seen:
            continue
        seen.add(cls)
        stack.extend(cls.__subclasses__())
        if not cls.__module__.startswith("dbt"):
            continue
        for ancestor in cls.__mro__[-1:0:-1]:
            params = getattr(ancestor, f"_{ancestor.__name__}__mashumaro_builder_params", None)
            if not params:
                continue
            unpacker, packer = params["unpacker"], params["packer"]
            common = {"allow_postponed_evaluation": False,
                      "format_name": unpacker.get("format_name", "dict"),
                      "default_dialect": unpacker.get("dialect")}
            # a failure leaves the class to the child, as dbt always did
            with contextlib.suppress(Exception):
                CodeBuilder(cls, first_method="from_dict", decoder=unpacker.get("decoder"),
                            **common).add_unpack_method()
            common.update(format_name=packer.get("format_name", "dict"),
                          default_dialect=packer.get("dialect"))
            with contextlib.suppress(Exception):
                CodeBuilder(cls, first_method="to_dict", encoder=packer.get("encoder"),
                            encoder_kwargs=packer.get("encoder_kwargs"),
                            **common).add_pack_method()


def _become(request: dict) -> None:
    """In the forked child: take the request's environment, folder, output files and arguments,
    and run its script as ``__main__`` (exits through SystemExit like a fresh interpreter)."""
    import runpy

    for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    if os.environ.get("DBT_DEID_TEST_JINJA_CACHE"):  # jinja_cache.py, beside this file
        import jinja_cache
        import parse_cache  # the macro files' parse: the same switch and folder

        jinja_cache.install(os.environ["DBT_DEID_TEST_JINJA_CACHE"])
        parse_cache.install(os.environ["DBT_DEID_TEST_JINJA_CACHE"])
    argv = request["argv"]
    if argv[0] == "-m":  # as ``python -m module``: the folder first on the path
        sys.argv = ["-m", *argv[2:]]
        sys.path[0] = os.getcwd()
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))  # as ``python script`` sets it
    runpy.run_path(argv[0], run_name="__main__")

if __name__ == "__main__":
    job = _serve(sys.argv[1:])
    if job is None:
        sys.exit(0)
    _become(job)
