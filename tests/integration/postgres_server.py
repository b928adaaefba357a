"""A private PostgreSQL server for the engine tests: ``initdb`` + ``pg_ctl`` in a temp folder.

The server listens only on a Unix socket in its own directory (no TCP port is opened; the port
number only names the socket file), trusts local connections, and is stopped when the fixture
ends. PostgreSQL refuses to run as root: as root the server runs as the ``postgres`` user
(Debian's ``postgresql-15`` package creates it).
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


def pg_bindir() -> Path | None:
    """Where initdb and pg_ctl are (``pg_config --bindir``, then PATH), or None."""
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        candidate = Path(out.stdout.strip())
        if (candidate / "initdb").exists() and (candidate / "pg_ctl").exists():
            return candidate
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb and shutil.which("pg_ctl") else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PostgresServer:
    socket_dir: Path
    port: int
    user: str
    data: Path
    bindir: Path
    run_as: list[str]

    def env(self, schema: str = "main") -> dict[str, str]:
        """Environment variables for the ``postgres`` target of the projects' profiles."""
        return {"DBT_DEID_PG_HOST": str(self.socket_dir), "DBT_DEID_PG_PORT": str(self.port),
                "DBT_DEID_PG_USER": self.user, "DBT_DEID_PG_PASSWORD": "",
                "DBT_DEID_PG_DBNAME": "postgres", "DBT_DEID_PG_SCHEMA": schema}

    def connect(self):  # noqa: ANN201 - psycopg2 connection
        import psycopg2

        return psycopg2.connect(host=str(self.socket_dir), port=self.port, user=self.user,
                                dbname="postgres")

    def stop(self) -> None:
        subprocess.run([*self.run_as, str(self.bindir / "pg_ctl"), "-D", str(self.data),
                        "-m", "immediate", "-w", "stop"], capture_output=True, text=True)


def start_postgres(base: Path, settings: dict[str, str] | None = None) -> PostgresServer:
    """initdb a cluster under ``base`` and start it on a private socket directory, with
    ``settings`` (server parameters, e.g. auto_explain's) added to the command line."""
    bindir = pg_bindir()
    if bindir is None:
        raise RuntimeError("initdb/pg_ctl not found (apt-get install postgresql-15)")
    base.mkdir(parents=True, exist_ok=True)
    data, sock = base / "data", base / "sock"
    sock.mkdir(exist_ok=True)
    run_as: list[str] = []
    user = pwd.getpwuid(os.getuid()).pw_name
    if os.getuid() == 0:
        user = "postgres"
        run_as = ["runuser", "-u", user, "--"]
        for p in (base, sock):
            shutil.chown(p, user=user)
        os.chmod(base, 0o755)
        for parent in base.parents:  # the postgres user must reach the folder
            if str(parent) in ("/", "/tmp"):
                break
            os.chmod(parent, os.stat(parent).st_mode | 0o711)
    init = subprocess.run(
        [*run_as, str(bindir / "initdb"), "-D", str(data), "-U", user, "--auth=trust",
         "--encoding=UTF8", "--locale=C", "--no-sync"], capture_output=True, text=True)
    if init.returncode:
        raise RuntimeError(f"initdb failed: {init.stderr[-2000:]}")
    port = _free_port()
    opts = (f"-c listen_addresses='' -c unix_socket_directories='{sock}' -p {port}"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            " -c shared_buffers=64MB -c max_connections=40")
    opts += "".join(f" -c {k}={v}" for k, v in (settings or {}).items())
    start = subprocess.run(
        [*run_as, str(bindir / "pg_ctl"), "-D", str(data), "-l", str(base / "server.log"),
         "-o", opts, "-w", "-t", "60", "start"], capture_output=True, text=True)
    if start.returncode:
        log = (base / "server.log").read_text() if (base / "server.log").exists() else ""
        raise RuntimeError(f"pg_ctl start failed: {start.stderr[-1000:]} {log[-2000:]}")
    return PostgresServer(sock, port, user, data, bindir, run_as)


def module_server(prefix: str) -> Iterator[PostgresServer]:
    """A test module's private server, stopped and removed when the module is done (the body
    of a module-scoped fixture: ``yield from module_server("dbt_deid_pg_x_")``); skips the
    module when psycopg2 or initdb/pg_ctl is missing."""
    import importlib.util
    import tempfile

    import pytest

    if importlib.util.find_spec("psycopg2") is None:
        pytest.skip("psycopg2 is not installed (pip install 'dbt_deid[postgres]')")
    if pg_bindir() is None:
        pytest.skip("initdb/pg_ctl not found (apt-get install postgresql-15)")
    base = Path(tempfile.mkdtemp(prefix=prefix))
    running = start_postgres(base / "pg")
    try:
        yield running
    finally:
        running.stop()
        shutil.rmtree(base, ignore_errors=True)
