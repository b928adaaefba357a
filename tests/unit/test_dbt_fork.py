"""The suite's fork server (tests/integration/dbt_fork.py) behaves like a fresh subprocess per
run: environment, folder, exit codes, output, crashes, signals, and falls back to subprocesses.
No dbt: the server preloads only ``json`` here."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from tests.integration import dbt_fork

SCRIPT = """
import os, sys
print("out", os.getcwd(), os.environ.get("DBT_DEID_PROBE"), os.environ.get("ONLY_HERE"),
      sys.argv[1:], "json" in sys.modules, os.getpid())
print("err", file=sys.stderr)
what = sys.argv[1]
if what == "crash":
    raise ValueError("boom")
if what == "kill":
    os.kill(os.getpid(), 9)
if what == "message":
    sys.exit("a message")
sys.exit(int(what))
"""


def _cold(preload: tuple[str, ...]) -> dbt_fork.ForkServer:
    """A server of ``preload`` without the suite's warm-up of dbt's schemas and codecs (what
    these tests check does not need it: ~4 CPU s a server)."""
    return dbt_fork.ForkServer({**os.environ, "DBT_DEID_TEST_NO_WARM": "1"}, preload=preload)


@pytest.fixture(scope="module")
def server():
    started = _cold(("json",))
    assert started.alive
    yield started
    started.close()


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text(SCRIPT)
    return path


def _run(script, arg, cwd, env, server):
    return dbt_fork.run([sys.executable, str(script), arg], cwd, env, server)


def test_a_forked_run_has_the_requested_env_cwd_args_output_and_code(server, script, tmp_path):
    env = {**server.env, "DBT_DEID_PROBE": "x"}
    env.pop("HOME", None)  # a variable the server has and the run does not: subprocess
    assert not server.accepts(env)
    env = {**server.env, "DBT_DEID_PROBE": "x"}
    first = _run(script, "3", tmp_path, env, server)
    second = _run(script, "0", tmp_path, env, server)
    assert isinstance(first, dbt_fork.Completed) and first.forked_cpu >= 0
    assert first.returncode == 3 and second.returncode == 0
    words = first.stdout.split()
    assert words[:5] == ["out", str(tmp_path), "x", "None", "['3']"]
    assert words[5] == "True"  # preloaded in the server
    assert words[6] != second.stdout.split()[6]  # a new child per run
    assert first.stderr == "err\n"
    assert first.args == [sys.executable, str(script), "3"]


def test_crashes_messages_and_signals_give_the_codes_of_a_fresh_process(server, script, tmp_path):
    crash = _run(script, "crash", tmp_path, server.env, server)
    assert crash.returncode == 1 and "ValueError: boom" in crash.stderr
    assert "Traceback" in crash.stderr
    message = _run(script, "message", tmp_path, server.env, server)
    assert message.returncode == 1 and message.stderr.endswith("a message\n")
    killed = _run(script, "kill", tmp_path, server.env, server)
    assert killed.returncode == -signal.SIGKILL
    assert server.alive  # the server survives its children


def test_other_runs_fall_back_to_a_subprocess(server, script, tmp_path, monkeypatch):
    env = {**server.env, "ONLY_HERE": "y"}  # not a run-time variable: a subprocess
    other = _run(script, "0", tmp_path, env, server)
    assert not isinstance(other, dbt_fork.Completed) and other.stdout.split()[3] == "y"
    monkeypatch.setenv(dbt_fork.NO_FORK_ENV, "1")
    off = _run(script, "0", tmp_path, server.env, server)
    assert not isinstance(off, dbt_fork.Completed) and off.returncode == 0
    assert dbt_fork._script_argv(["ls", "-l"]) is None
    assert dbt_fork._script_argv([sys.executable, "-c", "pass"]) is None


def test_a_module_runs_as_with_python_dash_m(server, tmp_path):
    (tmp_path / "probe_module.py").write_text(
        "import sys; print(sys.argv[1:], sys.path[0]); sys.exit(4)\n")
    done = dbt_fork.run([sys.executable, "-m", "probe_module", "a"], tmp_path, server.env, server)
    assert isinstance(done, dbt_fork.Completed) and done.returncode == 4
    assert done.stdout == f"['a'] {tmp_path}\n"


def test_a_server_that_cannot_start_or_dies_is_not_used(script, tmp_path):
    broken = dbt_fork.ForkServer(preload=("no_such_module_here",))
    assert not broken.alive
    done = _run(script, "0", tmp_path, broken.env, broken)
    assert not isinstance(done, dbt_fork.Completed) and done.returncode == 0
    ending = _cold(("json",))
    ending.proc.stdin.close()  # its test process ended: the server exits on end of input
    assert ending.proc.wait(timeout=30) == 0
    dying = _cold(("json",))
    os.kill(dying.proc.pid, signal.SIGKILL)
    dying.proc.wait()
    done = _run(script, "5", tmp_path, dying.env, dying)
    assert done.returncode == 5 and not isinstance(done, dbt_fork.Completed)



def test_the_suite_preload_starts_no_thread_and_children_get_their_own_env(tmp_path):
    """The suite's preload (dbt, and the Python models' pandas, numpy, pyarrow and glue) loads
    without a thread under SERVER_ENV, so the server starts (a server whose imports started one
    refuses to, and every run would be a subprocess); a child has the modules, one thread, and
    the environment of its request, not SERVER_ENV."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os, sys\n"
        "modules, names = sys.argv[1].split(','), sys.argv[2].split(',')\n"
        "print([m for m in modules if m not in sys.modules], len(os.listdir('/proc/self/task')),"
        " [n for n in names if n in os.environ])\n")
    server = dbt_fork.ForkServer()
    try:
        assert server.alive
        done = dbt_fork.run([sys.executable, str(probe), ",".join(dbt_fork.PRELOAD),
                             ",".join(dbt_fork.SERVER_ENV)], tmp_path, server.env, server)
    finally:
        server.close()
    assert isinstance(done, dbt_fork.Completed), done.stderr
    assert done.stdout == "[] 1 []\n", (done.stdout, done.stderr)


HANG = """
import subprocess, sys, time
grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
with open(sys.argv[1], "w") as out:
    out.write(str(grandchild.pid))
print("started", flush=True)
time.sleep(30)
"""


def _ended(pid: int) -> bool:
    """Whether process ``pid`` has ended (gone, or a zombie not yet reaped by its new parent),
    waiting up to 10 s for a signal sent to it to take effect."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("forked", [True, False])
def test_a_run_past_its_timeout_has_its_process_group_killed_and_fails_naming_it(
        server, tmp_path, monkeypatch, forked):
    """A hung run (here a script that started a process of its own, then sleeps) does not hold
    its test for ever: after DBT_DEID_TEST_DBT_TIMEOUT seconds the run's whole process group is
    killed (the script and what it started) and the run raises, naming the command and the time
    it ran; a forked run's server goes on serving."""
    script = tmp_path / "hang.py"
    script.write_text(HANG)
    pid_file = tmp_path / "grandchild.pid"
    monkeypatch.setenv("DBT_DEID_TEST_DBT_TIMEOUT", "1")
    if not forked:
        monkeypatch.setenv(dbt_fork.NO_FORK_ENV, "1")
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as raised:
        dbt_fork.run([sys.executable, str(script), str(pid_file)], tmp_path, server.env, server)
    elapsed = time.monotonic() - started
    grandchild = int(pid_file.read_text())
    try:
        assert elapsed < 20, elapsed
        assert _ended(grandchild)
        message = str(raised.value)
        assert f"{sys.executable} {script} {pid_file}\n(in {tmp_path})" in message, message
        assert "did not end within 1 s (DBT_DEID_TEST_DBT_TIMEOUT)" in message, message
        assert re.search(r"killed after \d+\.\d s\. The end of its output:\nstarted\n", message)
        assert isinstance(raised.value, dbt_fork.RunTimeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(grandchild, signal.SIGKILL)
    assert server.alive
    monkeypatch.delenv(dbt_fork.NO_FORK_ENV, raising=False)
    probe = tmp_path / "probe.py"
    probe.write_text(SCRIPT)
    after = _run(probe, "0", tmp_path, server.env, server)
    assert isinstance(after, dbt_fork.Completed) and after.returncode == 0, after.stderr


def test_a_timeout_that_passes_before_the_fork_is_a_timeout_not_a_dead_server(tmp_path):
    """A run whose timeout passes before the server has even said the child's pid raises
    RunTimeout like any run past its timeout (review 17, N6: it was reported as "the fork
    server died during this run", return code -9)."""
    sleeper = tmp_path / "sleep.py"
    sleeper.write_text("import time\ntime.sleep(5)\n")
    own = _cold(("json",))
    try:
        with pytest.raises(dbt_fork.RunTimeout):
            dbt_fork.run([sys.executable, str(sleeper)], tmp_path, own.env, own, timeout=1e-9)
        assert not own.alive  # given up: later runs are subprocesses
    finally:
        own.close()


def test_the_timeout_setting(monkeypatch):
    monkeypatch.delenv(dbt_fork.TIMEOUT_ENV, raising=False)
    assert dbt_fork.timeout_seconds() == dbt_fork.DEFAULT_TIMEOUT == 900
    monkeypatch.setenv(dbt_fork.TIMEOUT_ENV, "2.5")
    assert dbt_fork.timeout_seconds() == 2.5
    monkeypatch.setenv(dbt_fork.TIMEOUT_ENV, "0")
    assert dbt_fork.timeout_seconds() is None
    monkeypatch.setenv(dbt_fork.TIMEOUT_ENV, "15 min")
    with pytest.raises(ValueError, match="DBT_DEID_TEST_DBT_TIMEOUT must be a number"):
        dbt_fork.timeout_seconds()
