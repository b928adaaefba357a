"""The suite's fork server (tests/integration/dbt_fork.py) behaves like a fresh subprocess per
run: environment, folder, exit codes, output, crashes, signals, and falls back to subprocesses.
No dbt: the server preloads only ``json`` here."""

from __future__ import annotations

import os
import signal
import sys

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
